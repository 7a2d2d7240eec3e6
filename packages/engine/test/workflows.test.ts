/**
 * Workflows on a real engine: a real SQLite file, the real sandbox running the fixture steps of
 * fixtures/components/workflows, and the one queue and runner shared with sources.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WorkflowRunT } from '@tributary/contracts';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Engine } from '../src/engine.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../fixtures/components/workflows');
const code = (file: string): string => readFileSync(path.join(FIXTURES, file), 'utf8');

let engine: Engine;
let dataDir: string;
let cacheDir: string;
const logs: string[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-wf-data-'));
  cacheDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-wf-cache-'));
  engine = await Engine.create({
    dataDir,
    cacheDir,
    publicUrl: 'http://endpoints.test.invalid',
    allowPrivateUrls: false,
    concurrency: 4,
    sourceTimeoutMs: 20_000,
    log: (message) => logs.push(message),
    workflowKeepRuns: 3,
  });
  await engine.start();
  await engine.components.publish('wf-greet', { code: code('greet-action.mjs') });
});

afterAll(async () => {
  await engine.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(cacheDir, { recursive: true, force: true });
});

async function finished(runId: string, ms = 60_000): Promise<WorkflowRunT> {
  const deadline = Date.now() + ms;
  for (;;) {
    const run = await engine.workflows.getRun(runId);
    if (['succeeded', 'exited', 'failed', 'cancelled'].includes(run.status)) return run;
    if (Date.now() > deadline) throw new Error(`run ${runId} is still ${run.status}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('workflows', () => {
  it('runs an action and a code step, passing data through steps.* and expressions', async () => {
    const workflow = await engine.workflows.create({
      name: 'greet and double',
      trigger: { type: 'manual' },
      steps: [
        { name: 'greet', action: 'wf-greet', props: { name: '{{ steps.trigger.event.name }}', token: 's3cret' } },
        { name: 'double', code: code('double-step.mjs'), props: { n: '{{ steps.greet.$return_value }}' } },
      ],
    });
    expect(workflow.version).toBe(1);
    const runId = await engine.workflows.trigger(workflow.id, 'manual', { name: 'Ada' });
    const run = await finished(runId);
    expect(run.status).toBe('succeeded');
    expect(run.version).toBe(1);
    const [greet, double] = run.steps;
    expect(greet).toMatchObject({
      name: 'greet',
      status: 'succeeded',
      props: { name: 'Ada', token: '[REDACTED]' },
      return_value: 11,
      exports: { greeting: 'Hello, Ada!' },
    });
    expect(greet?.logs.map((line) => line.message)).toEqual(['Hello, Ada!']);
    // The secret is redacted where the API shows the workflow, and sealed in the database file.
    expect(workflow.spec.steps[0]?.props).toEqual({ name: '{{ steps.trigger.event.name }}', token: '[REDACTED]' });
    for (const name of ['tributary.db', 'tributary.db-wal']) {
      const file = path.join(dataDir, name);
      if (existsSync(file)) expect(readFileSync(file).includes('s3cret'), name).toBe(false);
    }
    // Saved back as the API showed it, the secret keeps its value.
    const again = await engine.workflows.update(workflow.id, workflow.spec);
    expect(again.version).toBe(2);
    const rerun = await finished(await engine.workflows.trigger(workflow.id, 'manual', { name: 'Ada' }));
    expect(rerun.steps[0]?.props).toEqual({ name: 'Ada', token: '[REDACTED]' });
    expect(double).toMatchObject({
      status: 'succeeded',
      props: { n: 11 },
      return_value: 22,
      exports: { seen: 'Hello, Ada!' },
    });
  });

  it("keeps one workflow's expression globals away from another's", async () => {
    const make = (name: string, expression: string) =>
      engine.workflows.create({
        name,
        trigger: { type: 'manual' },
        steps: [{ name: 'greet', action: 'wf-greet', props: { name: expression } }],
      });
    const writer = await make('writer', '{{ (globalThis.leak = steps.trigger.event.secret) }}');
    const reader = await make('reader', '{{ String(globalThis.leak) }}');
    expect(
      (await finished(await engine.workflows.trigger(writer.id, 'manual', { secret: 'hidden' }))).steps[0]?.props,
    ).toEqual({ name: 'hidden' });
    expect((await finished(await engine.workflows.trigger(reader.id, 'manual', {}))).steps[0]?.props).toEqual({
      name: 'undefined',
    });
  });

  it('many runs at once (their steps sharing worker requests) each keep their own exports, exits, failures and answers', async () => {
    const workflow = await engine.workflows.create({
      name: 'many at once',
      trigger: { type: 'manual' },
      settings: { keep_runs: 100 },
      steps: [
        {
          name: 'first',
          code: `export default defineComponent({ async run({ steps, $ }) {
            $.export('doubled', steps.trigger.event.n * 2);
            return steps.trigger.event.n;
          } });`,
        },
        {
          name: 'middle',
          code: `export default defineComponent({
            props: { doubled: { type: 'integer' } },
            async run({ steps, $ }) {
              const n = steps.first.$return_value;
              if (n % 4 === 1) throw new Error('run ' + n + ' broke');
              if (n % 4 === 2) return $.flow.exit('run ' + n + ' stopped');
              await $.respond({ status: 200, body: { n, doubled: this.doubled } });
              return this.doubled + 1;
            },
          });`,
          props: { doubled: '{{ steps.first.doubled }}' },
        },
        {
          name: 'last',
          code: `export default defineComponent({ async run({ steps }) {
            return [steps.trigger.event.n, steps.first.doubled, steps.middle.$return_value];
          } });`,
        },
      ],
    });
    // Runs before the burst make the steps known to be quick (warm), so its calls are gathered.
    for (const n of [0, 4, 8])
      expect((await finished(await engine.workflows.trigger(workflow.id, 'manual', { n }))).status).toBe('succeeded');
    const numbers = Array.from({ length: 24 }, (_, index) => index + 1);
    const runIds = await Promise.all(numbers.map((n) => engine.workflows.trigger(workflow.id, 'manual', { n })));
    const answers = await Promise.all(runIds.map((runId) => engine.pubsub.awaitReply(runId)));
    const runs = await Promise.all(runIds.map((runId) => finished(runId)));
    for (const [index, run] of runs.entries()) {
      const n = index + 1;
      const answer = answers[index];
      switch (n % 4) {
        case 1:
          expect(run.status).toBe('failed');
          expect(run.error).toMatchObject({ step: 'middle', message: `run ${n} broke` });
          expect(run.steps.map((step) => step.status)).toEqual(['succeeded', 'failed', 'skipped']);
          expect(answer).toBeNull();
          break;
        case 2:
          expect(run.status).toBe('exited');
          expect(run.exit).toEqual({ reason: `run ${n} stopped` });
          expect(run.steps.map((step) => step.status)).toEqual(['succeeded', 'succeeded', 'skipped']);
          expect(answer).toBeNull();
          break;
        default:
          expect(run.status).toBe('succeeded');
          expect(run.steps[1]?.props).toEqual({ doubled: n * 2 });
          expect(run.steps[2]?.return_value).toEqual([n, n * 2, n * 2 + 1]);
          expect(JSON.parse(answer?.body?.toString('utf8') ?? 'null')).toEqual({ n, doubled: n * 2 });
      }
    }
  });

  it('ends with $.flow.exit as a success and skips the rest', async () => {
    const workflow = await engine.workflows.create({
      name: 'exit',
      trigger: { type: 'manual' },
      steps: [
        { name: 'stop', code: code('exit-step.mjs') },
        { name: 'never', code: code('throw-step.mjs') },
      ],
    });
    const run = await finished(await engine.workflows.trigger(workflow.id, 'manual', null));
    expect(run.status).toBe('exited');
    expect(run.exit).toEqual({ reason: 'nothing to do' });
    expect(run.steps.map((step) => step.status)).toEqual(['succeeded', 'skipped']);
  });

  it('fails the run at the step that threw, and at an expression that threw, naming step and prop', async () => {
    const workflow = await engine.workflows.create({
      name: 'fail',
      trigger: { type: 'manual' },
      steps: [
        { name: 'boom', code: code('throw-step.mjs') },
        { name: 'after', code: code('exit-step.mjs') },
      ],
    });
    const run = await finished(await engine.workflows.trigger(workflow.id, 'manual', {}));
    expect(run.status).toBe('failed');
    expect(run.error).toMatchObject({ code: 'COMPONENT_ERROR', step: 'boom', message: 'the step broke' });
    expect(run.steps.map((step) => step.status)).toEqual(['failed', 'skipped']);

    const bad = await engine.workflows.create({
      name: 'bad expression',
      trigger: { type: 'manual' },
      steps: [{ name: 'greet', action: 'wf-greet', props: { name: '{{ steps.trigger.event.missing.deeper }}' } }],
    });
    const failed = await finished(await engine.workflows.trigger(bad.id, 'manual', {}));
    expect(failed.error?.code).toBe('WORKFLOW_EXPRESSION_INVALID');
    expect(failed.error?.message).toMatch(
      /^step "greet", prop "name": \{\{ steps\.trigger\.event\.missing\.deeper \}\} threw: /,
    );
  });

  it("refuses a code step that does not parse at the line and column of the author's code", async () => {
    const refusal = (source: string) =>
      engine.workflows
        .create({ name: 'syntax', trigger: { type: 'manual' }, steps: [{ name: 'broken', code: source }] })
        .then(
          () => null,
          (error: unknown) => error as { message: string; details: Record<string, unknown> },
        );
    const third = await refusal('export default defineComponent({\n  async run() {\n    return 1 +;\n  },\n});\n');
    expect(third?.details).toMatchObject({ line: 3, column: 15, step: 'broken' });
    expect(third?.message).toMatch(/^steps\[0\] "broken": .*:3:15: Unexpected ";"/);
    const oneLine = 'export default defineComponent({ async run() { return 1 +; } });';
    const first = await refusal(oneLine);
    expect(first?.details).toMatchObject({ line: 1, column: oneLine.indexOf('+;') + 2 });
    expect(first?.message).toContain(`:1:${oneLine.indexOf('+;') + 2}: Unexpected ";"`);
  });

  it('suspends on $.flow.delay and continues with the next step; a delayed run can be cancelled', async () => {
    const workflow = await engine.workflows.create({
      name: 'delay',
      trigger: { type: 'manual' },
      steps: [
        { name: 'wait', code: code('delay-step.mjs') },
        { name: 'greet', action: 'wf-greet', props: { name: '{{ steps.wait.$return_value }}' } },
      ],
    });
    // The run read as delayed is the one checked: 1.5 s later it has resumed and has no resume time.
    const delayedRun = async (id: string): Promise<WorkflowRunT> => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const run = await engine.workflows.getRun(id);
        if (run.status === 'delayed') return run;
        if (Date.now() > deadline) throw new Error(`never delayed: ${JSON.stringify(run)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const triggeredAt = Date.now();
    const runId = await engine.workflows.trigger(workflow.id, 'manual', {});
    const delayed = await delayedRun(runId);
    // 1.5 s from when the step ran, which is after the trigger and before this read.
    expect(delayed.resume_at).toBeGreaterThanOrEqual(triggeredAt + 1500);
    expect(delayed.resume_at).toBeLessThanOrEqual(Date.now() + 1500);
    const run = await finished(runId);
    expect(run.status).toBe('succeeded');
    expect(run.steps[1]?.exports).toEqual({ greeting: 'Hello, waited!' });

    // Cancelled while it waits: a delay long enough that a loaded machine cannot see it resume first.
    const waitsLong = await engine.workflows.create({
      name: 'long delay',
      trigger: { type: 'manual' },
      steps: [
        {
          name: 'wait',
          code: "export default defineComponent({ async run({ $ }) { $.flow.delay(600_000); return 'waited'; } });",
        },
        { name: 'greet', action: 'wf-greet', props: { name: '{{ steps.wait.$return_value }}' } },
      ],
    });
    const second = await engine.workflows.trigger(waitsLong.id, 'manual', {});
    await delayedRun(second);
    expect((await engine.workflows.cancel(second)).status).toBe('cancelled');
    await expect(engine.workflows.cancel(second)).rejects.toMatchObject({ code: 'WORKFLOW_RUN_NOT_DELAYED' });
  });

  it('versions every save, runs record theirs, and keeps the last N runs saying what was dropped', async () => {
    const spec = {
      name: 'versions',
      trigger: { type: 'manual' },
      steps: [{ name: 'greet', action: 'wf-greet', props: { name: 'v1' } }],
    } as const;
    const workflow = await engine.workflows.create(spec);
    const first = await finished(await engine.workflows.trigger(workflow.id, 'manual', {}));
    const updated = await engine.workflows.update(workflow.id, {
      ...spec,
      steps: [{ ...spec.steps[0], props: { name: 'v2' } }],
    });
    expect(updated.version).toBe(2);
    const second = await finished(await engine.workflows.trigger(workflow.id, 'manual', {}));
    expect([first.version, second.version]).toEqual([1, 2]);
    expect(second.steps[0]?.exports).toEqual({ greeting: 'Hello, v2!' });
    for (let i = 0; i < 3; i += 1) await finished(await engine.workflows.trigger(workflow.id, 'manual', { i }));
    const runs = await engine.workflows.listRuns(workflow.id, { limit: 10 });
    expect(runs.total).toBe(3);
    expect(runs.dropped).toBe(2);
    // Trims are debug lines, which a plain line log drops: no line per trim at the default level.
    expect(logs.some((line) => line.includes(`workflow ${workflow.id}: dropped`))).toBe(false);
    const replayed = await finished(await engine.workflows.replay(runs.data[0]?.id ?? ''));
    expect(replayed).toMatchObject({ trigger: 'replay', event: { i: 2 }, status: 'succeeded' });
  });

  it('steps a run it starts from memory, stored as running with the run; a run in a lane waits its turn queued', async () => {
    const make = (settings: { concurrency: number } | undefined) =>
      engine.workflows.create({
        name: `held ${settings ? 'lane' : 'alone'}`,
        ...(settings ? { settings } : {}),
        trigger: { type: 'manual' },
        steps: [{ name: 'slow', code: code('slow-step.mjs'), props: { ms: 200 } }],
      });
    const alone = await make(undefined);
    const held = await engine.workflows.trigger(alone.id, 'manual', {});
    // Read before the runner's next turn: no claim could have started it (decision 0020).
    expect((await engine.workflows.getRun(held)).status).toBe('running');
    // A lane keeps its runs in order through the queue: a run there starts when claimed.
    const lane = await make({ concurrency: 1 });
    const laned = await engine.workflows.trigger(lane.id, 'manual', {});
    expect((await engine.workflows.getRun(laned)).status).toBe('queued');
    expect((await finished(held)).status).toBe('succeeded');
    expect((await finished(laned)).status).toBe('succeeded');
  });

  it('runs one at a time, in trigger order, when its settings ask for concurrency 1', async () => {
    // Without a limit each run has a queue key of its own; the same step's worker still takes one
    // invocation at a time (the sandbox's rule), so only the limit's order is asserted here.
    const spans = async (concurrency: number | undefined): Promise<{ started: number; ended: number }[]> => {
      const workflow = await engine.workflows.create({
        name: `slow ${concurrency ?? 'unlimited'}`,
        ...(concurrency ? { settings: { concurrency } } : {}),
        trigger: { type: 'manual' },
        steps: [{ name: 'slow', code: code('slow-step.mjs'), props: { ms: 400 } }],
      });
      const ids: string[] = [];
      for (let i = 0; i < 3; i += 1) ids.push(await engine.workflows.trigger(workflow.id, 'manual', { i }));
      const runs = await Promise.all(ids.map((id) => finished(id)));
      return runs.map((run) => run.steps[0]?.return_value as { started: number; ended: number });
    };
    const serial = await spans(1);
    for (let i = 1; i < serial.length; i += 1) {
      expect(serial[i]?.started).toBeGreaterThanOrEqual(serial[i - 1]?.ended ?? Infinity);
    }
  });

  it('shows a run whose entry became a dead letter as failed, and resumes it when the dead letter is retried', async () => {
    const workflow = await engine.workflows.create({
      name: 'platform failure',
      trigger: { type: 'manual' },
      steps: [{ name: 'greet', action: 'wf-greet', props: { name: 'x' } }],
    });
    // A real SQLite error on every checkpoint, from a connection of the test's own.
    const sqlite = new SqliteDatabase(path.join(dataDir, 'tributary.db'));
    sqlite.exec(
      "CREATE TRIGGER break_checkpoints BEFORE INSERT ON workflow_steps BEGIN SELECT RAISE(ABORT, 'disk is away'); END",
    );
    try {
      const runId = await engine.workflows.trigger(workflow.id, 'manual', {});
      const failed = await finished(runId);
      expect(failed.error).toMatchObject({ code: 'INTERNAL', step: null });
      expect(failed.error?.message).toContain('disk is away');
      sqlite.exec('DROP TRIGGER break_checkpoints');
      await engine.deadLetters.retry(runId);
      const deadline = Date.now() + 60_000;
      while ((await engine.workflows.getRun(runId)).status !== 'succeeded') {
        if (Date.now() > deadline) throw new Error('the retried run never succeeded');
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    } finally {
      sqlite.close();
    }
  });

  it('gives an app prop its connected account, and refuses an unknown account at save time', async () => {
    await engine.components.publish('wf-acme', { code: code('acme-action.mjs') });
    const account = await engine.accounts.create({ app: 'acme', fields: { api_key: 'k-123456' } });
    const spec = (acme: unknown) => ({
      name: 'acme',
      trigger: { type: 'manual' },
      steps: [{ name: 'key', action: 'wf-acme', props: { acme } }],
    });
    const workflow = await engine.workflows.create(spec({ authProvisionId: account.id }));
    const run = await finished(await engine.workflows.trigger(workflow.id, 'manual', {}));
    expect(run.steps[0]).toMatchObject({ status: 'succeeded', return_value: 8 });
    await expect(engine.workflows.create(spec({ authProvisionId: 'apn_nope' }))).rejects.toMatchObject({
      code: 'PROP_INVALID',
      message: 'steps[0] "key": app prop "acme": no connected account "apn_nope"',
    });
  });

  it('refuses bad workflows at save time with a code, storing nothing', async () => {
    const before = (await engine.workflows.list()).length;
    await expect(
      engine.workflows.create({
        name: 'x',
        trigger: { type: 'manual' },
        steps: [{ name: 'a', action: 'no-such-key' }],
      }),
    ).rejects.toMatchObject({
      code: 'WORKFLOW_COMPONENT_UNKNOWN',
      message: 'steps[0] "a": no registry key or saved component "no-such-key"',
    });
    await expect(
      engine.workflows.create({
        name: 'x',
        trigger: { type: 'manual' },
        steps: [{ name: 'a', code: 'export default defineComponent({ async run() { return ( } })' }],
      }),
    ).rejects.toMatchObject({ code: 'COMPONENT_SYNTAX_ERROR' });
    await expect(
      engine.workflows.create({
        name: 'x',
        trigger: { type: 'source', source_id: 'dc_nope' },
        steps: [{ name: 'a', action: 'wf-greet' }],
      }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await engine.workflows.list()).length).toBe(before);
  });
});
