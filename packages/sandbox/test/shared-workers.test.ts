import { getEventListeners } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { InvocationResult } from '@tributary/runtime';
import type { ComponentHandle, Sandbox, SandboxOptions } from '@tributary/sandbox';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { FIXTURES, invoke, testSandbox } from './sandbox-harness.js';

/**
 * Shared placement: the components of one group run in a few workers they share. Each test writes
 * its own distinct components (distinct code means distinct bundles, as with deployed sources).
 */
const sourcesDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-shared-components-'));
afterAll(() => rmSync(sourcesDir, { recursive: true, force: true }));

/** A source that emits who it is, which worker process ran it and a per-component counter kept in db. */
function counterSource(name: string): string {
  const file = path.join(sourcesDir, `${name}.mjs`);
  writeFileSync(
    file,
    `export default {
  key: '${name}',
  name: '${name}',
  version: '0.0.1',
  type: 'source',
  props: { db: '$.service.db', label: { type: 'string' } },
  async run() {
    const n = (this.db.get('n') ?? 0) + 1;
    this.db.set('n', n);
    // Inside bubblewrap every worker is pid 2 of its own namespace: mark the process instead.
    globalThis.processMark ??= Math.random().toString(36).slice(2);
    this.$emit({ component: '${name}', label: this.label, n, worker: globalThis.processMark });
  },
};
`,
  );
  return file;
}

function writeComponent(name: string, run: string): string {
  const file = path.join(sourcesDir, `${name}.mjs`);
  writeFileSync(
    file,
    `export default { name: '${name}', version: '0.0.1', type: 'source', props: {}, async run() { ${run} } };\n`,
  );
  return file;
}

async function openFile(sandbox: Sandbox, file: string, key: string, group?: string): Promise<ComponentHandle> {
  const prepared = await sandbox.prepare(file);
  return sandbox.open(prepared, { key, purpose: 'run', ...(group ? { group } : {}) });
}

const emitted = (result: InvocationResult) => result.emits[0]?.event as Record<string, unknown> | undefined;

/**
 * A sandbox for the running test, closed (its workers ended, its cache removed) when that test
 * finishes, passed or failed or timed out, so no worker outlives it.
 */
/** A run with a long deadline that ends when `signal` aborts; `onLog` hears each line it writes. */
function stoppable(
  handle: ComponentHandle,
  signal: AbortSignal,
  configured: Record<string, unknown> = {},
  onLog?: () => void,
): Promise<InvocationResult> {
  return handle.invoke(
    { kind: 'run', configured, accounts: {}, state: { db: {}, dedupe: null }, timeoutMs: 120_000, signal },
    onLog ? { onLog } : {},
  );
}

function sandboxWith(options: Partial<SandboxOptions>) {
  const env = testSandbox(options);
  onTestFinished(() => env.dispose());
  return env.sandbox;
}

describe('shared placement (many components per worker)', () => {
  it('serves 40 distinct components from a few processes, each with its own props, state and emits', async () => {
    const sandbox = sandboxWith({ maxWorkersPerGroup: 2 });
    const handles = await Promise.all(
      Array.from({ length: 40 }, (_, i) => openFile(sandbox, counterSource(`counter-${i}`), `component:${i}`)),
    );
    const states = handles.map(() => ({ db: {}, dedupe: null }) as InvocationResult['state']);
    const workers = new Set<unknown>();
    for (let round = 1; round <= 2; round += 1) {
      const results = await Promise.all(
        handles.map((handle, i) => invoke(handle, { configured: { label: `label ${i}` }, state: states[i] })),
      );
      for (const [i, result] of results.entries()) {
        expect(result.ok, result.error?.message).toBe(true);
        expect(emitted(result)).toMatchObject({ component: `counter-${i}`, label: `label ${i}`, n: round });
        expect(result.state.db).toEqual({ n: round });
        states[i] = result.state;
        workers.add(emitted(result)?.['worker']);
      }
    }
    expect(workers.size).toBeGreaterThanOrEqual(1);
    expect(workers.size).toBeLessThanOrEqual(2);
  });

  it('a component that takes the shared worker down costs only the invocation in flight (CRASHED); the queued one runs in a new worker', async () => {
    const sandbox = sandboxWith({ maxWorkersPerGroup: 1 });
    // The worker exits 1.5 s after the bomb's run: the slow run must have started by then, which a
    // loaded machine may take a second for, and is still going then (it lasts 4 s).
    const bomb = await openFile(
      sandbox,
      writeComponent('delayed-exit', 'setTimeout(() => process.exit(9), 1500);'),
      'bomb',
    );
    const slow = await openFile(
      sandbox,
      writeComponent(
        'slow',
        "console.log('slow started'); await new Promise((r) => setTimeout(r, 4000)); this.$emit({ done: true });",
      ),
      'slow',
    );
    const queued = await openFile(sandbox, counterSource('queued-behind'), 'queued');
    expect((await invoke(bomb)).ok).toBe(true);
    const [inFlight, waiting] = await Promise.all([
      invoke(slow, { timeoutMs: 10_000 }),
      invoke(queued, { configured: { label: 'q' } }),
    ]);
    expect(inFlight.error?.code).toBe('CRASHED');
    expect(inFlight.error?.message).toContain('exit code 9');
    expect(inFlight.logs[0]?.message).toBe('slow started');
    expect(waiting.ok, waiting.error?.message).toBe(true);
    expect(emitted(waiting)).toMatchObject({ component: 'queued-behind', n: 1 });
    const again = await invoke(slow, { timeoutMs: 10_000 });
    expect(again.ok, again.error?.message).toBe(true);
  });

  it('still kills at deadline + grace and over the memory cap; neighbours queued on that worker run elsewhere', async () => {
    const sandbox = sandboxWith({ maxWorkersPerGroup: 1 });
    const neighbour = await openFile(sandbox, counterSource('neighbour'), 'neighbour');
    for (const [fixture, code, timeoutMs] of [
      ['hostile/infinite-loop.mjs', 'TIMEOUT', 800],
      ['hostile/buffer-bomb.mjs', 'OUT_OF_MEMORY', 20_000],
    ] as const) {
      const hostile = await openFile(sandbox, path.join(FIXTURES, fixture), fixture);
      const [result, fine] = await Promise.all([
        invoke(hostile, { timeoutMs }),
        invoke(neighbour, { configured: { label: fixture } }),
      ]);
      expect(result.error?.code, fixture).toBe(code);
      expect(fine.ok, fine.error?.message).toBe(true);
      expect(emitted(fine)).toMatchObject({ component: 'neighbour', label: fixture });
    }
  });

  it('ends one call in flight when its signal aborts; a neighbour waiting for that worker still runs', async () => {
    const sandbox = sandboxWith({ maxWorkersPerGroup: 1 });
    const neighbour = await openFile(sandbox, counterSource('beside-cancelled'), 'beside-cancelled');
    const hangs = await openFile(
      sandbox,
      writeComponent(
        'hangs-until-stopped',
        "console.log('started'); await new Promise(() => setInterval(() => undefined, 1000));",
      ),
      'hangs-until-stopped',
    );
    // A second handle on the same component, opened while the worker is free.
    const alsoHangs = await openFile(sandbox, path.join(sourcesDir, 'hangs-until-stopped.mjs'), 'also-hangs');
    const stopper = new AbortController();
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const hung = stoppable(hangs, stopper.signal, {}, () => started());
    await running;
    // Waits for the only worker of the group (or is queued on it), behind the hanging call.
    const fine = invoke(neighbour, { configured: { label: 'queued' } });
    // A call with a signal waiting behind the hanging one ends when its own signal aborts, while
    // the hanging call goes on.
    const queuedStopper = new AbortController();
    const queued = stoppable(alsoHangs, queuedStopper.signal);
    const queuedReason = new Error('stopped while waiting');
    queuedStopper.abort(queuedReason);
    await expect(queued).rejects.toBe(queuedReason);
    const reason = new Error('stopped on purpose');
    stopper.abort(reason);
    await expect(hung).rejects.toBe(reason);
    const result = await fine;
    expect(result.ok, result.error?.message).toBe(true);
    expect(emitted(result)).toMatchObject({ component: 'beside-cancelled', label: 'queued' });
    // An aborted signal sends nothing.
    await expect(stoppable(hangs, stopper.signal)).rejects.toBe(reason);
  });

  it('sends nothing to a worker it has stopped: a neighbour queued behind a call cancelled as it finished runs elsewhere', async () => {
    const sandbox = sandboxWith({ maxWorkersPerGroup: 1 });
    const neighbour = await openFile(sandbox, counterSource('beside-late-cancel'), 'beside-late-cancel');
    const quick = await openFile(
      sandbox,
      writeComponent('ends-soon', "console.log('started'); await new Promise((r) => setTimeout(r, 200));"),
      'ends-soon',
    );
    const stopper = new AbortController();
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const cancelled = stoppable(quick, stopper.signal, {}, () => started()).catch((error: unknown) => error);
    await running;
    const fine = invoke(neighbour, { configured: { label: 'queued' } });
    // The host's loop stalls while the call ends in its worker: its result waits in the pipe when
    // the call is cancelled, and the worker is stopped with the neighbour still to be sent.
    await new Promise<void>((resolve) =>
      setImmediate(() => {
        for (const until = Date.now() + 1000; Date.now() < until;);
        stopper.abort(new Error('stopped on purpose'));
        resolve();
      }),
    );
    await cancelled;
    const result = await fine;
    expect(result.error ?? null).toBeNull();
    expect(emitted(result)).toMatchObject({ component: 'beside-late-cancel', label: 'queued', n: 1 });
  });

  it('ends a call waiting behind another of the same handle when its signal aborts; a settled call leaves no listener', async () => {
    const sandbox = sandboxWith({ maxWorkersPerGroup: 2 });
    const file = path.join(sourcesDir, 'hangs-or-answers.mjs');
    writeFileSync(
      file,
      `export default { name: 'hangs-or-answers', version: '0.0.1', type: 'source',
        props: { hang: { type: 'boolean', optional: true } },
        async run() {
          console.log('started');
          if (this.hang) await new Promise(() => setInterval(() => undefined, 1000));
        } };\n`,
    );
    const handle = await openFile(sandbox, file, 'hangs-or-answers');
    // Calls that end by themselves take their abort listeners with them.
    const kept = new AbortController();
    for (let n = 0; n < 3; n += 1) expect((await stoppable(handle, kept.signal)).ok).toBe(true);
    expect(getEventListeners(kept.signal, 'abort')).toHaveLength(0);
    // A source's calls run one at a time per handle: the second waits for the first to end.
    const first = new AbortController();
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const hung = stoppable(handle, first.signal, { hang: true }, () => started());
    await running;
    const second = new AbortController();
    const queued = stoppable(handle, second.signal);
    const reason = new Error('stopped while waiting for the call before it');
    second.abort(reason);
    await expect(queued).rejects.toBe(reason);
    const firstReason = new Error('stopped on purpose');
    first.abort(firstReason);
    await expect(hung).rejects.toBe(firstReason);
    expect(getEventListeners(first.signal, 'abort')).toHaveLength(0);
    // The handle still serves calls after both.
    expect((await stoppable(handle, kept.signal)).ok).toBe(true);
    expect(getEventListeners(kept.signal, 'abort')).toHaveLength(0);
  });

  it('keeps groups (owners) in separate processes', async () => {
    const sandbox = sandboxWith({});
    const file = counterSource('owned');
    const [a, b] = await Promise.all([
      openFile(sandbox, file, 'component:a', 'owner-a'),
      openFile(sandbox, file, 'component:b', 'owner-b'),
    ]);
    const [ra, rb] = await Promise.all([
      invoke(a, { configured: { label: 'a' } }),
      invoke(b, { configured: { label: 'b' } }),
    ]);
    expect(emitted(ra)?.['worker']).not.toBe(emitted(rb)?.['worker']);
  });

  it("cannot read another owner's bundle, nor that of a component sharing its worker", async () => {
    const sandbox = sandboxWith({});
    const reader = await openFile(sandbox, path.join(FIXTURES, 'hostile/read-file.mjs'), 'reader', 'owner-a');
    const sameOwner = await sandbox.prepare(counterSource('same-owner'));
    const otherOwner = await sandbox.prepare(counterSource('other-owner'));
    await sandbox.open(sameOwner, { key: 'same', purpose: 'run', group: 'owner-a' });
    await sandbox.open(otherOwner, { key: 'other', purpose: 'run', group: 'owner-b' });
    for (const target of [sameOwner.bundlePath, otherOwner.bundlePath]) {
      const result = await invoke(reader, { configured: { path: target } });
      expect(result.error?.code, target).toBe('COMPONENT_ERROR');
      expect(result.error?.message, target).toMatch(/restricted|ENOENT|EACCES|ERR_ACCESS_DENIED|permission/i);
    }
  });

  it('replaces a worker that has loaded its share of components with a fresh one', async () => {
    const sandbox = sandboxWith({ maxWorkersPerGroup: 1, maxComponentsPerWorker: 3 });
    const pids: unknown[] = [];
    for (let i = 0; i < 4; i += 1) {
      const handle = await openFile(sandbox, counterSource(`retire-${i}`), `retire:${i}`);
      const result = await invoke(handle, { configured: { label: String(i) } });
      expect(result.ok, result.error?.message).toBe(true);
      pids.push(emitted(result)?.['worker']);
    }
    expect(new Set(pids.slice(0, 2)).size).toBe(1);
    expect(pids[3]).not.toBe(pids[0]);
  });
});

describe('concurrent invocations of one handle', () => {
  it('run side by side on two workers of the group when marked concurrent, one after the other otherwise', async () => {
    const sandbox = sandboxWith({ maxWorkersPerGroup: 2 });
    const file = writeComponent(
      'concurrent-sleeper',
      `globalThis.processMark ??= Math.random().toString(36).slice(2);
       const start = Date.now();
       await new Promise((resolve) => setTimeout(resolve, 300));
       this.$emit({ start, end: Date.now(), worker: globalThis.processMark });`,
    );
    const handle = await openFile(sandbox, file, 'concurrent-sleeper', 'concurrent-owner');
    const twice = async (concurrent: boolean) => {
      const request = { kind: 'run' as const, configured: {}, accounts: {}, state: { db: {}, dedupe: null } };
      const results = await Promise.all(
        [1, 2].map(() => handle.invoke({ ...request, timeoutMs: 10_000, ...(concurrent ? { concurrent } : {}) })),
      );
      const [first, second] = results.map(
        (result) => emitted(result) as { start: number; end: number; worker: string },
      );
      if (!first || !second) throw new Error('an invocation emitted nothing');
      return { first, second, overlapped: first.start < second.end && second.start < first.end };
    };
    // The first concurrent pair starts the group's second worker (the pool waits briefly for a busy one first).
    await twice(true);
    const serial = await twice(false);
    expect(serial.overlapped).toBe(false);
    const side = await twice(true);
    expect(side.overlapped).toBe(true);
    expect(side.first.worker).not.toBe(side.second.worker);
  });
});

describe('dedicated placement', () => {
  it('gives each component key its own process', async () => {
    const sandbox = sandboxWith({ placement: 'dedicated' });
    const file = counterSource('dedicated');
    const [a, b] = await Promise.all([openFile(sandbox, file, 'one'), openFile(sandbox, file, 'two')]);
    const [ra, rb] = await Promise.all([
      invoke(a, { configured: { label: 'a' } }),
      invoke(b, { configured: { label: 'b' } }),
    ]);
    expect(emitted(ra)?.['worker']).not.toBe(emitted(rb)?.['worker']);
  });
});
