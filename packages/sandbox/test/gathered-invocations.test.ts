import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { HttpResponse, InvocationResult } from '@tributary/runtime';
import type { ComponentHandle, Sandbox, SandboxOptions } from '@tributary/sandbox';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { testSandbox } from './sandbox-harness.js';

/**
 * Concurrent calls of a quick component made in the same turn of the event loop go to one worker
 * in one `invoke_each` request (ComponentHandle.invoke). Each call must still get exactly what it
 * would have got alone: its own result, logs and response, its own failure, and the calls after a
 * failed one must still run.
 */
const sourcesDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-gathered-'));
afterAll(() => rmSync(sourcesDir, { recursive: true, force: true }));

/**
 * An action that, per call: counts its calls in its worker, logs and exports its input, answers
 * with `$.respond`, returns what the step before it returned (`steps.before`), and does what
 * `mode` says (`throw`, `crash`, `hang`, `busy`: hold its worker for a second).
 */
function writeStep(name: string): string {
  const file = path.join(sourcesDir, `${name}.mjs`);
  writeFileSync(
    file,
    `export default {
  key: '${name}',
  name: '${name}',
  version: '0.0.1',
  type: 'action',
  props: { n: { type: 'integer' }, mode: { type: 'string', optional: true } },
  async run({ steps, $ }) {
    // Inside bubblewrap every worker is pid 2 of its own namespace: mark the process instead.
    globalThis.processMark ??= Math.random().toString(36).slice(2);
    globalThis.calls = (globalThis.calls ?? 0) + 1;
    console.log('call ' + this.n);
    if (this.mode === 'throw') throw new Error('call ' + this.n + ' threw');
    if (this.mode === 'crash') process.exit(9);
    if (this.mode === 'busy') for (const until = Date.now() + 1000; Date.now() < until; );
    // 4.5 MB of log lines: three calls' worth is past the worker's 6 MB and the host's 12 MB.
    if (this.mode === 'loud') for (let line = 0; line < 72; line += 1) console.log(String(this.n).repeat(65536));
    if (this.mode === 'hang') await new Promise(() => setInterval(() => {}, 1000));
    $.export('n', this.n);
    await $.respond({ status: 200, body: { n: this.n } });
    return { n: this.n, before: steps.before.$return_value, worker: globalThis.processMark, order: globalThis.calls };
  },
};
`,
  );
  return file;
}

function sandboxWith(options: Partial<SandboxOptions>): Sandbox {
  const env = testSandbox(options);
  onTestFinished(() => env.dispose());
  return env.sandbox;
}

async function openStep(sandbox: Sandbox, name: string): Promise<ComponentHandle> {
  const prepared = await sandbox.prepare(writeStep(name));
  return sandbox.open(prepared, { key: name, purpose: 'run', group: 'gathered-owner' });
}

interface Returned {
  readonly n: number;
  readonly before: number;
  readonly worker: string;
  readonly order: number;
}

/** One concurrent call with prop `n`; what it answered with `$.respond` lands in `responses[n]`. */
function call(
  handle: ComponentHandle,
  n: number,
  responses: Map<number, HttpResponse>,
  options: { mode?: string; timeoutMs?: number } = {},
): Promise<InvocationResult> {
  return handle.invoke(
    {
      kind: 'run',
      configured: { n, ...(options.mode ? { mode: options.mode } : {}) },
      accounts: {},
      steps: { before: { $return_value: n * 10 } },
      state: { db: {}, dedupe: null },
      timeoutMs: options.timeoutMs ?? 10_000,
      concurrent: true,
    },
    { onRespond: (response) => responses.set(n, response) },
  );
}

const returned = (result: InvocationResult): Returned => result.returnValue as unknown as Returned;

describe('concurrent calls gathered into one request', () => {
  it('run one after the other in one worker, each with its own props, steps, exports, logs and response', async () => {
    // However slow this machine is today, the component counts as quick: gathering is certain.
    const sandbox = sandboxWith({ maxWorkersPerGroup: 4, gatherQuickMs: 60_000 });
    // Two handles on the same component, as the engine opens one per call: they gather together.
    const [one, two] = [await openStep(sandbox, 'gathered-step'), await openStep(sandbox, 'gathered-step')];
    if (!one || !two) throw new Error('no handle');
    const responses = new Map<number, HttpResponse>();
    // The first call goes alone: until a call has run, the component is not known to be quick.
    expect((await call(one, 0, responses)).ok).toBe(true);
    // Alone, the calls after the first would not wait for it to let its worker go: the pool would
    // start the group's other workers for them.
    const results = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((n) => call(n % 2 === 0 ? one : two, n, responses, n === 1 ? { mode: 'busy' } : {})),
    );
    for (const [index, result] of results.entries()) {
      const n = index + 1;
      expect(result.ok, result.error?.message).toBe(true);
      expect(returned(result)).toMatchObject({ n, before: n * 10 });
      expect(result.exports).toEqual({ n });
      expect(result.logs.map((entry) => entry.message)).toEqual([`call ${n}`]);
      expect(JSON.parse(responses.get(n)?.body?.toString('utf8') ?? 'null')).toEqual({ n });
    }
    // One worker ran them, in the order they were made, with nothing of another in between.
    expect(new Set(results.map((result) => returned(result).worker)).size).toBe(1);
    const orders = results.map((result) => returned(result).order);
    expect(orders).toEqual(orders.map((_, index) => (orders[0] ?? 0) + index));
  });

  it('a call that throws fails alone; the others succeed', async () => {
    const sandbox = sandboxWith({ maxWorkersPerGroup: 2, gatherQuickMs: 60_000 });
    const handle = await openStep(sandbox, 'gathered-throw');
    const responses = new Map<number, HttpResponse>();
    expect((await call(handle, 0, responses)).ok).toBe(true);
    const results = await Promise.all(
      [1, 2, 3].map((n) => call(handle, n, responses, n === 2 ? { mode: 'throw' } : {})),
    );
    expect(results.map((result) => result.ok)).toEqual([true, false, true]);
    expect(results[1]?.error?.message).toContain('call 2 threw');
    expect(results.map((result) => (result.ok ? returned(result).n : null))).toEqual([1, null, 3]);
    expect([...responses.keys()].sort()).toEqual([0, 1, 3]);
  });

  it('a call that crashes its worker fails (CRASHED); the calls before keep their results, those after run elsewhere', async () => {
    const sandbox = sandboxWith({ maxWorkersPerGroup: 2, gatherQuickMs: 60_000 });
    const handle = await openStep(sandbox, 'gathered-crash');
    const responses = new Map<number, HttpResponse>();
    expect((await call(handle, 0, responses)).ok).toBe(true);
    const results = await Promise.all(
      [1, 2, 3, 4].map((n) => call(handle, n, responses, n === 2 ? { mode: 'crash' } : {})),
    );
    expect(results.map((result) => result.ok)).toEqual([true, false, true, true]);
    expect(results[1]?.error?.code).toBe('CRASHED');
    const [first, , third, fourth] = results.map((result) => (result.ok ? returned(result) : null));
    expect(first?.n).toBe(1);
    expect(third?.n).toBe(3);
    expect(fourth?.n).toBe(4);
    // The crashed worker is gone: what ran after the crash ran in another process.
    expect(third?.worker).not.toBe(first?.worker);
    expect([...responses.keys()].sort()).toEqual([0, 1, 3, 4]);
  });

  it('a call past its deadline fails (TIMEOUT) alone; the calls after it run', async () => {
    const sandbox = sandboxWith({ maxWorkersPerGroup: 2, gatherQuickMs: 60_000 });
    const handle = await openStep(sandbox, 'gathered-hang');
    const responses = new Map<number, HttpResponse>();
    expect((await call(handle, 0, responses, { timeoutMs: 3000 })).ok).toBe(true);
    const results = await Promise.all(
      [1, 2, 3].map((n) => call(handle, n, responses, { timeoutMs: 3000, ...(n === 1 ? { mode: 'hang' } : {}) })),
    );
    expect(results.map((result) => result.ok)).toEqual([false, true, true]);
    expect(results[0]?.error?.code).toBe('TIMEOUT');
    expect(results.slice(1).map((result) => returned(result).n)).toEqual([2, 3]);
  });

  it('a host stalled past the deadline blames no call that finished in time, and keeps the worker', async () => {
    // Which worker runs the calls may vary (the warm call's caller gets its answer before its
    // request ends, so on a busy machine the next calls can start a second worker): what must not
    // happen is a worker stopped, which the sandbox reports.
    const exits: string[] = [];
    const sandbox = sandboxWith({
      maxWorkersPerGroup: 2,
      gatherQuickMs: 60_000,
      workerEvents: { started: () => undefined, exited: (reason) => exits.push(reason) },
    });
    const handle = await openStep(sandbox, 'gathered-stall');
    const responses = new Map<number, HttpResponse>();
    const warm = await call(handle, 0, responses, { timeoutMs: 2000 });
    expect(warm.ok).toBe(true);
    // The first call holds the worker for a second, well within its 2 s deadline (+ 0.5 s grace).
    const calls = Promise.all(
      [1, 2, 3].map((n) => call(handle, n, responses, { timeoutMs: 2000, ...(n === 1 ? { mode: 'busy' } : {}) })),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The host's loop stalls (a long GC, a starved machine) for 3.5 s, after its poll phase: the
    // calls' results wait in the pipe, and the next turn runs the deadline's due timer before it
    // reads them.
    await new Promise<void>((resolve) =>
      setImmediate(() => {
        for (const until = Date.now() + 3500; Date.now() < until;);
        resolve();
      }),
    );
    const results = await calls;
    expect(results.map((result) => result.error?.code ?? null)).toEqual([null, null, null]);
    expect(results.map((result) => returned(result).n)).toEqual([1, 2, 3]);
    // Nothing was stopped, and the group answers the next call.
    const after = await call(handle, 4, responses, { timeoutMs: 2000 });
    expect(after.error ?? null).toBeNull();
    expect(exits).toEqual([]);
  });

  it('each call has its own payload budget and its own deadline, not what is left of the request', async () => {
    const sandbox = sandboxWith({ maxWorkersPerGroup: 2, gatherQuickMs: 60_000 });
    const handle = await openStep(sandbox, 'gathered-budgets');
    const responses = new Map<number, HttpResponse>();
    expect((await call(handle, 0, responses)).ok).toBe(true);
    const loud = await Promise.all([1, 2, 3].map((n) => call(handle, n, responses, { mode: 'loud' })));
    for (const [index, result] of loud.entries()) {
      const n = index + 1;
      expect(result.ok, result.error?.message).toBe(true);
      expect(result.logs).toHaveLength(73);
      // Every line is the call's own.
      expect(result.logs.slice(1).every((entry) => entry.message === String(n).repeat(65536))).toBe(true);
    }
    expect(new Set(loud.map((result) => returned(result).worker)).size).toBe(1);
    // Four calls busy for a second each, with a deadline of four seconds each: together they run
    // past one deadline (and its grace), each alone well within it.
    const busy = await Promise.all(
      [4, 5, 6, 7, 8].map((n) => call(handle, n, responses, { mode: 'busy', timeoutMs: 4000 })),
    );
    expect(busy.map((result) => result.error?.code ?? null)).toEqual([null, null, null, null, null]);
    expect(busy.map((result) => returned(result).n)).toEqual([4, 5, 6, 7, 8]);
    expect(new Set(busy.map((result) => returned(result).worker)).size).toBe(1);
  });

  it('calls made while the group has its cap of requests out wait, then go together in one request', async () => {
    let started = 0;
    const sandbox = sandboxWith({
      maxWorkersPerGroup: 4,
      gatherQuickMs: 60_000,
      gatherRequests: 1,
      workerEvents: { started: () => (started += 1), exited: () => undefined },
    });
    const handle = await openStep(sandbox, 'gathered-capped');
    const responses = new Map<number, HttpResponse>();
    const warm = await call(handle, 0, responses);
    expect(warm.ok).toBe(true);
    // The first call holds the group's one request for a second; the next five come in turns of
    // their own meanwhile, each of which alone would have been a request of its own.
    const busy = call(handle, 1, responses, { mode: 'busy' });
    const later: Promise<InvocationResult>[] = [];
    for (const n of [2, 3, 4, 5, 6]) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      later.push(call(handle, n, responses));
    }
    const first = await busy;
    const results = await Promise.all(later);
    expect(results.map((result) => returned(result).n)).toEqual([2, 3, 4, 5, 6]);
    // The busy call's worker ran all of them, one after the other, right after it. The busy call
    // itself may have started a second worker (the warm call's caller gets its answer before its
    // request ends, so on a busy machine that request can still be out), but the five waiting
    // calls started none: each going out alone would have started up to two more.
    expect(new Set(results.map((result) => returned(result).worker))).toEqual(new Set([returned(first).worker]));
    expect(started).toBeLessThanOrEqual(2);
    const orders = results.map((result) => returned(result).order);
    expect(orders).toEqual(orders.map((_, index) => returned(first).order + 1 + index));
  });

  it('a request that runs past what its quick calls may take stops holding its place under the cap', async () => {
    // Quick means at most 10 ms a call: a request of MAX_GATHERED (64) of them may take 640 ms.
    const sandbox = sandboxWith({ maxWorkersPerGroup: 2, gatherQuickMs: 10, gatherRequests: 1 });
    const handle = await openStep(sandbox, 'gathered-slow-request');
    const responses = new Map<number, HttpResponse>();
    expect((await call(handle, 0, responses)).ok).toBe(true);
    const settled: number[] = [];
    const busy = call(handle, 1, responses, { mode: 'busy' }).then((result) => {
      settled.push(1);
      return result;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const quick = call(handle, 2, responses).then((result) => {
      settled.push(2);
      return result;
    });
    const [slow, other] = await Promise.all([busy, quick]);
    // The quick call went out while the busy one still ran, to the group's other worker.
    expect(settled).toEqual([2, 1]);
    expect(returned(other).worker).not.toBe(returned(slow).worker);
  });

  it('calls of a component whose last call was slower than the limit go one request each, side by side', async () => {
    const sandbox = sandboxWith({ maxWorkersPerGroup: 2 });
    const file = path.join(sourcesDir, 'gathered-slow.mjs');
    writeFileSync(
      file,
      `export default { name: 'gathered-slow', version: '0.0.1', type: 'action', props: {}, async run() {
        globalThis.processMark ??= Math.random().toString(36).slice(2);
        const start = Date.now();
        await new Promise((resolve) => setTimeout(resolve, 300));
        return { start, end: Date.now(), worker: globalThis.processMark };
      } };\n`,
    );
    const handle = await sandbox.open(await sandbox.prepare(file), { key: 'slow', purpose: 'run', group: 'slow' });
    const twice = () =>
      Promise.all(
        [1, 2].map(() =>
          handle.invoke({
            kind: 'run',
            configured: {},
            accounts: {},
            state: { db: {}, dedupe: null },
            timeoutMs: 10_000,
            concurrent: true,
          }),
        ),
      );
    // The first pair starts the group's second worker (the pool waits briefly for a busy one first).
    await twice();
    const [first, second] = (await twice()).map(
      (result) => result.returnValue as { start: number; end: number; worker: string },
    );
    if (!first || !second) throw new Error('a call returned nothing');
    expect(first.start < second.end && second.start < first.end).toBe(true);
    expect(first.worker).not.toBe(second.worker);
  });
});
