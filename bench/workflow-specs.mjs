// The benchmark workflows of workflows-vs-node-red.mjs and workflow-cpu.mjs, in one place.
import { readFileSync } from 'node:fs';
import path from 'node:path';
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
