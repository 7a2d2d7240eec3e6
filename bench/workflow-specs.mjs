// The benchmark workflows of workflows-vs-node-red.mjs and workflow-cpu.mjs, in one place.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { COMPONENTS_DIR } from './lib.mjs';

export const readComponent = (name) => readFileSync(path.join(COMPONENTS_DIR, name), 'utf8');

/** The benchmark's workflow; `customResponse` chooses between the two HTTP trigger modes. */
export function benchWorkflow(name, customResponse) {
  return {
    name,
    trigger: { type: 'http', custom_response: customResponse },
    steps: [
      {
        name: 'pick',
        action: 'tributary-pick-fields',
        props: { data: '{{ JSON.stringify(steps.trigger.event.body) }}', paths: ['seq', 'sentAt'] },
      },
      {
        name: customResponse ? 'respond' : 'count',
        code: readComponent(customResponse ? 'workflow-respond-step.mjs' : 'workflow-count-step.mjs'),
      },
    ],
  };
}

/**
 * Creates a benchmark workflow on a `tributary start` of server-lib.mjs. The curated registry
 * (`tributary-pick-fields`) is published at the server's first start: a deploy that finds it
 * missing is tried again for up to 10 s; any other refusal is a mistake of the benchmark.
 */
export async function deployBenchWorkflow(server, spec) {
  for (let attempt = 0; ; attempt += 1) {
    const answer = await server.api('POST', '/v1/workflows', spec);
    if (answer.status === 200 || answer.status === 201) return answer.body.data;
    if (attempt >= 20 || !JSON.stringify(answer.body).includes('tributary-pick-fields'))
      throw new Error(`workflow deploy answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    await delay(500);
  }
}
