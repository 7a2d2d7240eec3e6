/**
 * The lifecycle module through real fixture components in the real sandbox: which hooks run in
 * what order, from which state, what a failure rolls back and what the outcome says to store.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  deploySource,
  removeSource,
  updateSource,
  type InvocationState,
  type LifecycleOutcome,
  type RunHook,
} from '@tributary/runtime';
import { Sandbox, type ComponentHandle } from '@tributary/sandbox';
import { afterAll, describe, expect, it } from 'vitest';

const FIXTURES = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../../fixtures/components/lifecycle',
);
const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-lifecycle-test-'));
// Its own folder: workers run as another user when the tests run as root, and must get through it.
const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-lifecycle-cache-'));
const sandbox = new Sandbox({ cacheDir, memoryMb: 128, graceMs: 500 });
afterAll(async () => {
  await sandbox.close();
  rmSync(scratch, { recursive: true, force: true });
  rmSync(cacheDir, { recursive: true, force: true });
});

/** One version of a fixture's code with its configured props: what the tests' RunHook runs. */
interface Code {
  readonly handle: ComponentHandle;
  readonly configured: Record<string, unknown>;
}

const EMPTY: InvocationState = { db: {}, dedupe: null };

const runHook: RunHook<Code> = (code, hook, state) =>
  code.handle.invoke({
    kind: hook,
    configured: code.configured,
    accounts: {},
    state,
    endpointUrl: 'http://127.0.0.1:4100/e/lifecycle',
    timeoutMs: 5_000,
  });

/** A fixture, with `VERSION = "1"` replaced by the version asked for (a new file: new code). */
async function load(name: string, configured: Record<string, unknown> = {}, version = '1'): Promise<Code> {
  const text = readFileSync(path.join(FIXTURES, name), 'utf8');
  const file = path.join(scratch, `${version}-${name}`);
  writeFileSync(file, text.replace('const VERSION = "1";', `const VERSION = "${version}";`));
  const prepared = await sandbox.prepare(file);
  const handle = await sandbox.open(prepared, { key: file, purpose: 'run' });
  return { handle, configured };
}

const hooksRan = (outcome: LifecycleOutcome): string[] => outcome.ran.map((result) => result.kind);

function committed(outcome: LifecycleOutcome): InvocationState {
  if (outcome.kind === 'refused') throw new Error(`refused: ${outcome.failure.error.message}`);
  return outcome.commit.state;
}

describe('deploy', () => {
  it('runs deploy, then activate from the state deploy left, and commits both', async () => {
    const code = await load('hook-order.mjs');
    const outcome = await deploySource({ code, state: EMPTY, runHook });
    expect(outcome.kind).toBe('applied');
    expect(hooksRan(outcome)).toEqual(['deploy', 'activate']);
    expect(committed(outcome).db).toEqual({ order: ['deploy v1', 'activate v1'], registration: 'v1#2' });
    if (outcome.kind === 'applied')
      expect(outcome.commit.results.map((result) => result.kind)).toEqual(['deploy', 'activate']);
  });

  it.each(['deploy', 'activate'])(
    'a failing %s runs deactivate to clean up and is refused with HOOK_FAILED',
    async (hook) => {
      const code = await load('refuse-hook.mjs', { refuse: hook });
      const outcome = await deploySource({ code, state: EMPTY, runHook });
      expect(outcome.kind).toBe('refused');
      expect(hooksRan(outcome)).toEqual(
        hook === 'deploy' ? ['deploy', 'deactivate'] : ['deploy', 'activate', 'deactivate'],
      );
      // The clean-up sees what the failed hook wrote (a registration to undo).
      expect(outcome.ran.at(-1)?.state.db['order']).toEqual(
        hook === 'deploy' ? ['deploy', 'deactivate'] : ['deploy', 'activate', 'deactivate'],
      );
      if (outcome.kind !== 'refused') return;
      expect(outcome.failure.hook).toBe(hook);
      expect(outcome.failure.error.code).toBe('HOOK_FAILED');
      expect(outcome.failure.error.message).toBe(`the ${hook} hook failed: COMPONENT_ERROR: ${hook} refused`);
      expect(outcome.failure.error.details).toMatchObject({ hook, cause_code: 'COMPONENT_ERROR' });
    },
  );

  it('a clean-up deactivate that fails too changes nothing: the deploy is still refused, naming the first hook', async () => {
    const code = await load('refuse-hook.mjs', { refuse: 'activate' });
    const failingCleanup: RunHook<Code> = (c, hook, state) =>
      hook === 'deactivate'
        ? runHook({ ...c, configured: { refuse: 'deactivate' } }, hook, state)
        : runHook(c, hook, state);
    const outcome = await deploySource({ code, state: EMPTY, runHook: failingCleanup });
    expect(outcome.kind === 'refused' && outcome.failure.hook).toBe('activate');
    expect(outcome.ran.map((result) => result.ok)).toEqual([true, false, false]);
  });
});

describe('update', () => {
  it('runs deactivate of the old code, then activate of the new, each from the state the previous hook left', async () => {
    const v1 = await load('hook-order.mjs');
    const v2 = await load('hook-order.mjs', {}, '2');
    const deployed = committed(await deploySource({ code: v1, state: EMPTY, runHook }));
    const outcome = await updateSource({
      current: v1,
      next: v2,
      wasActive: true,
      wantsActive: true,
      state: deployed,
      runHook,
    });
    expect(outcome.kind).toBe('applied');
    expect(hooksRan(outcome)).toEqual(['deactivate', 'activate']);
    expect(committed(outcome).db).toEqual({
      order: ['deploy v1', 'activate v1', 'deactivate v1', 'activate v2'],
      registration: 'v2#4',
    });
  });

  it('an inactive source runs no hook unless activated, then activate only; deactivating runs deactivate only', async () => {
    const v1 = await load('hook-order.mjs');
    const idle = await updateSource({
      current: v1,
      next: v1,
      wasActive: false,
      wantsActive: false,
      state: EMPTY,
      runHook,
    });
    expect(hooksRan(idle)).toEqual([]);
    expect(idle.kind).toBe('applied');
    const on = await updateSource({
      current: v1,
      next: v1,
      wasActive: false,
      wantsActive: true,
      state: EMPTY,
      runHook,
    });
    expect(hooksRan(on)).toEqual(['activate']);
    const off = await updateSource({
      current: v1,
      next: v1,
      wasActive: true,
      wantsActive: false,
      state: committed(on),
      runHook,
    });
    expect(hooksRan(off)).toEqual(['deactivate']);
    expect(committed(off).db).toEqual({ order: ['activate v1', 'deactivate v1'], registration: null });
  });

  it('a failing deactivate refuses the update before the new code runs', async () => {
    const old = await load('refuse-hook.mjs', { refuse: 'deactivate' });
    const next = await load('hook-order.mjs');
    const outcome = await updateSource({
      current: old,
      next,
      wasActive: true,
      wantsActive: true,
      state: EMPTY,
      runHook,
    });
    expect(outcome.kind).toBe('refused');
    expect(hooksRan(outcome)).toEqual(['deactivate']);
    expect(outcome.kind === 'refused' && outcome.failure.hook).toBe('deactivate');
  });

  it('a failing activate of the new code rolls back: the old activate runs again and its state is what to store', async () => {
    const v1 = await load('refuse-activate.mjs', { refuseVersion: '2' });
    const v2 = await load('refuse-activate.mjs', { refuseVersion: '2' }, '2');
    const deployed = committed(await deploySource({ code: v1, state: EMPTY, runHook }));
    const outcome = await updateSource({
      current: v1,
      next: v2,
      wasActive: true,
      wantsActive: true,
      state: deployed,
      runHook,
    });
    expect(outcome.kind).toBe('rolled-back');
    expect(outcome.ran.map((result) => `${result.kind} ${result.ok ? 'ok' : 'failed'}`)).toEqual([
      'deactivate ok',
      'activate failed',
      'activate ok',
    ]);
    expect(outcome.ran.map((result) => result.logs.map((entry) => entry.message).join())).toEqual([
      'deactivate v1',
      expect.stringContaining('activate v2'),
      'activate v1',
    ]);
    if (outcome.kind !== 'rolled-back') return;
    expect(outcome.reactivated).toBe(true);
    expect(outcome.failure.hook).toBe('activate');
    expect(outcome.failure.error.message).toContain('activate of version 2 refused');
    // The failed activate's writes are not carried on; the re-activation's are, with a fresh registration.
    expect(outcome.commit.state.db).toEqual({
      order: ['deploy v1', 'activate v1', 'deactivate v1', 'activate v1'],
      registration: 'v1#4',
    });
  });

  it('a failing activate of an inactive source being activated is refused, with nothing to roll back', async () => {
    const code = await load('refuse-hook.mjs', { refuse: 'activate' });
    const outcome = await updateSource({
      current: code,
      next: code,
      wasActive: false,
      wantsActive: true,
      state: EMPTY,
      runHook,
    });
    expect(outcome.kind).toBe('refused');
    expect(hooksRan(outcome)).toEqual(['activate']);
  });
});

describe('delete', () => {
  it('runs deactivate of an active source, nothing for an inactive one', async () => {
    const code = await load('hook-order.mjs');
    const active = await removeSource({ code, wasActive: true, state: EMPTY, force: false, runHook });
    expect(active.kind).toBe('applied');
    expect(hooksRan(active)).toEqual(['deactivate']);
    const inactive = await removeSource({ code, wasActive: false, state: EMPTY, force: false, runHook });
    expect(hooksRan(inactive)).toEqual([]);
  });

  it('a failing deactivate refuses the delete unless forced', async () => {
    const code = await load('refuse-hook.mjs', { refuse: 'deactivate' });
    const kept = await removeSource({ code, wasActive: true, state: EMPTY, force: false, runHook });
    expect(kept.kind === 'refused' && kept.failure.hook).toBe('deactivate');
    const forced = await removeSource({ code, wasActive: true, state: EMPTY, force: true, runHook });
    expect(forced.kind).toBe('applied');
    expect(hooksRan(forced)).toEqual(['deactivate']);
  });
});
