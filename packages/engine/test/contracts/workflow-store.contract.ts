/**
 * The `WorkflowStore` contract (src/workflows/workflow-store.ts), against the port and the
 * invocation queue it shares with sources. `makeBackend` gives a fresh, empty backend that can be
 * closed and opened again (a restart).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { packEvent } from '@tributary/sandbox';
import { runEvent } from '../../src/workflows/run-event.js';
import { resumePoint } from '../../src/workflows/resume-point.js';
import type { InvocationQueue } from '../../src/ports/invocation-queue.js';
import type { Checkpoint, NewRun, WorkflowRow, WorkflowStore } from '../../src/workflows/workflow-store.js';

export interface WorkflowBackend {
  readonly workflows: WorkflowStore;
  readonly queue: InvocationQueue;
  close(): Promise<void>;
}

export interface WorkflowBackendFactory {
  open(now: () => number): Promise<WorkflowBackend>;
  dispose(): Promise<void>;
}

const T0 = Date.UTC(2026, 0, 1);
const KEY = 'wflane:wf_1:0';

/** The workflow and version the contract saves first (other suites start from them too). */
export const workflow: WorkflowRow = {
  id: 'wf_1',
  name: 'one',
  active: true,
  version: 1,
  triggerType: 'manual',
  endpointId: null,
  sourceId: null,
  nextFireAt: null,
  runsDropped: 0,
  createdAt: T0,
  updatedAt: T0,
};

export const version = {
  workflowId: 'wf_1',
  version: 1,
  spec: { name: 'one', trigger: { type: 'manual' as const }, steps: [{ name: 'a', action: 'k' }] },
  steps: [
    { name: 'a', componentId: 'sc_1', props: {}, secretProps: [] },
    { name: 'b', componentId: 'sc_1', props: {}, secretProps: [] },
  ],
  createdAt: T0,
};

const run = (id: string, at = T0): NewRun => ({
  id,
  workflowId: 'wf_1',
  version: 1,
  trigger: 'manual',
  event: JSON.stringify({ id }),
  createdAt: at,
  queueKey: KEY,
});

const result = {
  props: {},
  returnValue: 1,
  exports: {},
  logs: [],
  sends: [],
  error: null,
  durationMs: 1,
  startedAt: T0,
};

function step(runId: string, index: number, queue: Checkpoint['queue'], status: 'running' | 'delayed' | 'succeeded') {
  return {
    runId,
    step: { index, name: index === 0 ? 'a' : 'b', status: 'succeeded' as const, result },
    skipped: [],
    run: {
      status,
      nextStep: index + 1,
      exit: null,
      error: null,
      resumeAt: queue.kind === 'delay' ? queue.until : null,
      finishedAt: status === 'succeeded' ? T0 : null,
    },
    queue,
  } satisfies Checkpoint;
}

export function workflowStoreContract(name: string, makeBackend: () => Promise<WorkflowBackendFactory>): void {
  describe(`WorkflowStore contract: ${name}`, () => {
    let factory: WorkflowBackendFactory;
    let backend: WorkflowBackend;
    let now = T0;
    const clock = () => now;

    beforeEach(async () => {
      now = T0;
      factory = await makeBackend();
      backend = await factory.open(clock);
      await backend.workflows.saveWorkflow(workflow, version);
    });
    afterEach(async () => {
      await backend.close();
      await factory.dispose();
    });

    const reopen = async () => {
      await backend.close();
      backend = await factory.open(clock);
    };

    it('stores a workflow with its version, durably', async () => {
      await reopen();
      expect(await backend.workflows.getWorkflow('wf_1')).toEqual(workflow);
      expect(await backend.workflows.getVersion('wf_1', 1)).toEqual(version);
      expect(await backend.workflows.getVersion('wf_1', 2)).toBeNull();
    });

    it('finds a workflow by endpoint and by id as last written: saves, deactivation, trims and deletes show at once', async () => {
      const http: WorkflowRow = { ...workflow, id: 'wf_http', triggerType: 'http', endpointId: 'ep_1' };
      const at = (n: number) => ({ ...version, workflowId: 'wf_http', version: n });
      expect(await backend.workflows.findByEndpoint('ep_1')).toBeNull();
      expect(await backend.workflows.getWorkflow('wf_http')).toBeNull();
      await backend.workflows.saveWorkflow(http, at(1));
      expect((await backend.workflows.findByEndpoint('ep_1'))?.version).toBe(1);
      await backend.workflows.saveWorkflow({ ...http, version: 2 }, at(2));
      expect((await backend.workflows.findByEndpoint('ep_1'))?.version).toBe(2);
      expect((await backend.workflows.getWorkflow('wf_http'))?.version).toBe(2);
      await backend.workflows.setNextFire('wf_http', T0 + 5);
      expect((await backend.workflows.getWorkflow('wf_http'))?.nextFireAt).toBe(T0 + 5);
      for (const id of ['wfr_t1', 'wfr_t2']) {
        await backend.workflows.createRun({ ...run(id), workflowId: 'wf_http', version: 2 });
        await backend.workflows.checkpoint(step(id, 0, { kind: 'remove' }, 'succeeded'));
      }
      expect(await backend.workflows.trimRuns('wf_http', 1)).toBe(1);
      expect((await backend.workflows.getWorkflow('wf_http'))?.runsDropped).toBe(1);
      await backend.workflows.setActive('wf_http', false, T0 + 1);
      expect(await backend.workflows.findByEndpoint('ep_1')).toBeNull();
      expect((await backend.workflows.getWorkflow('wf_http'))?.active).toBe(false);
      await backend.workflows.setActive('wf_http', true, T0 + 2);
      expect((await backend.workflows.findByEndpoint('ep_1'))?.id).toBe('wf_http');
      expect(await backend.workflows.deleteWorkflow('wf_http')).toBe(true);
      expect(await backend.workflows.findByEndpoint('ep_1')).toBeNull();
      expect(await backend.workflows.getWorkflow('wf_http')).toBeNull();
    });

    it('queues a run with its record, and the entry stays queued until a checkpoint removes it', async () => {
      await backend.workflows.createRun(run('wfr_1'));
      await reopen();
      expect((await backend.workflows.getRun('wfr_1'))?.status).toBe('queued');
      expect((await backend.queue.claim(KEY, 1)).map((entry) => entry.id)).toEqual(['wfr_1']);
      await backend.workflows.checkpoint(step('wfr_1', 0, { kind: 'keep' }, 'running'));
      await backend.queue.release(KEY);
      await reopen();
      // A crash after the first checkpoint: the run resumes at step 1, its entry still queued.
      const resumed = await backend.workflows.getRun('wfr_1');
      expect(resumed?.status).toBe('running');
      expect(resumed && resumePoint(resumed, await backend.workflows.stepsOf('wfr_1'))).toBe(1);
      expect((await backend.queue.claim(KEY, 1)).map((entry) => entry.id)).toEqual(['wfr_1']);
      await backend.workflows.checkpoint(step('wfr_1', 1, { kind: 'remove' }, 'succeeded'));
      await backend.queue.release(KEY);
      expect(await backend.queue.claim(KEY, 1)).toEqual([]);
      expect((await backend.workflows.stepsOf('wfr_1')).map((row) => [row.index, row.status])).toEqual([
        [0, 'succeeded'],
        [1, 'succeeded'],
      ]);
    });

    it('stores a run its creator steps at once as running, with its entry queued (decision 0020)', async () => {
      await backend.workflows.createRun({ ...run('wfr_1'), running: true });
      await reopen();
      // A crash before its first checkpoint: the entry is still there, and the run resumes at step 0.
      const stored = await backend.workflows.getRun('wfr_1');
      expect([stored?.status, stored?.nextStep]).toEqual(['running', 0]);
      expect((await backend.queue.claim(KEY, 1)).map((entry) => entry.id)).toEqual(['wfr_1']);
    });

    it("keeps how a run's event was packed, and gives it back whole (an HTTP event keeps its body once)", async () => {
      const body = { email: 'ada@example.com' };
      const text = JSON.stringify(body);
      const event = { method: 'POST', path: '/', bodyRaw: text, rawBody: text, body };
      const packed = packEvent(event);
      expect(packed.packing).toBe('json');
      await backend.workflows.createRun({
        ...run('wfr_packed'),
        event: JSON.stringify(packed.event),
        eventPacking: packed.packing,
      });
      await backend.workflows.createRun({ ...run('wfr_whole'), event: JSON.stringify(event) });
      await reopen();
      const stored = await backend.workflows.getRun('wfr_packed');
      expect(stored?.eventPacking).toBe('json');
      expect(stored?.event.length).toBeLessThan(JSON.stringify(event).length);
      expect(stored && runEvent(stored)).toEqual(event);
      const whole = await backend.workflows.getRun('wfr_whole');
      expect([whole?.eventPacking, whole && runEvent(whole)]).toEqual([null, event]);
    });

    it('holds a delayed run until its time, and cancels only a delayed run', async () => {
      await backend.workflows.createRun(run('wfr_1'));
      await backend.queue.claim(KEY, 1);
      await backend.workflows.checkpoint(step('wfr_1', 0, { kind: 'delay', until: T0 + 1000 }, 'delayed'));
      await backend.queue.release(KEY);
      expect(await backend.queue.claim(KEY, 1)).toEqual([]);
      expect(await backend.queue.nextRetryAt()).toBe(T0 + 1000);
      now = T0 + 1000;
      expect((await backend.queue.claim(KEY, 1)).map((entry) => entry.id)).toEqual(['wfr_1']);
      await backend.queue.release(KEY);
      expect(await backend.workflows.cancelDelayed('wfr_1', now)).toBe(true);
      expect(await backend.workflows.cancelDelayed('wfr_1', now)).toBe(false);
      expect(await backend.queue.claim(KEY, 1)).toEqual([]);
    });

    it('keeps the last N finished runs and counts the dropped ones', async () => {
      for (let i = 0; i < 4; i += 1) {
        await backend.workflows.createRun(run(`wfr_${i}`, T0 + i));
        await backend.workflows.checkpoint(step(`wfr_${i}`, 1, { kind: 'remove' }, 'succeeded'));
      }
      expect(await backend.workflows.trimRuns('wf_1', 2)).toBe(2);
      const page = await backend.workflows.listRuns('wf_1', { limit: 10 });
      expect(page.data.map((row) => row.id)).toEqual(['wfr_3', 'wfr_2']);
      expect((await backend.workflows.getWorkflow('wf_1'))?.runsDropped).toBe(2);
      // A dropped run's steps go with it; a kept run keeps its own.
      expect(await backend.workflows.stepsOf('wfr_0')).toEqual([]);
      expect((await backend.workflows.stepsOf('wfr_3')).map((row) => row.index)).toEqual([1]);
      // Nothing past the limit: nothing dropped, nothing counted.
      expect(await backend.workflows.trimRuns('wf_1', 2)).toBe(0);
      expect((await backend.workflows.getWorkflow('wf_1'))?.runsDropped).toBe(2);
    });

    it("answers a workflow's newest run, or null before its first", async () => {
      expect(await backend.workflows.lastRun('wf_1')).toBeNull();
      await backend.workflows.createRun(run('wfr_a', T0));
      await backend.workflows.createRun(run('wfr_b', T0 + 5));
      await backend.workflows.checkpoint(step('wfr_b', 1, { kind: 'remove' }, 'succeeded'));
      expect(await backend.workflows.lastRun('wf_1')).toEqual({ id: 'wfr_b', status: 'succeeded', createdAt: T0 + 5 });
    });

    it('lists the runs of one status, newest first, paged, with their count', async () => {
      for (let i = 0; i < 5; i += 1) {
        await backend.workflows.createRun(run(`wfr_${i}`, T0 + i));
        // Runs 0, 2 and 4 finish; 1 and 3 stay queued.
        if (i % 2 === 0) await backend.workflows.checkpoint(step(`wfr_${i}`, 1, { kind: 'remove' }, 'succeeded'));
      }
      const done = await backend.workflows.listRuns('wf_1', { limit: 2, status: 'succeeded' });
      expect([done.data.map((row) => row.id), done.total]).toEqual([['wfr_4', 'wfr_2'], 3]);
      const older = await backend.workflows.listRuns('wf_1', { limit: 2, status: 'succeeded', before: 'wfr_2' });
      expect(older.data.map((row) => row.id)).toEqual(['wfr_0']);
      const queued = await backend.workflows.listRuns('wf_1', { limit: 10, status: 'queued' });
      expect([queued.data.map((row) => row.id), queued.total]).toEqual([['wfr_3', 'wfr_1'], 2]);
      expect(await backend.workflows.listRuns('wf_1', { limit: 10, status: 'failed' })).toEqual({ data: [], total: 0 });
      expect((await backend.workflows.listRuns('wf_1', { limit: 10 })).total).toBe(5);
    });

    it('never drops a run past the limit that has work left', async () => {
      await backend.workflows.createRun(run('wfr_open', T0));
      await backend.workflows.checkpoint(step('wfr_open', 0, { kind: 'keep' }, 'running'));
      for (let i = 1; i < 4; i += 1) {
        await backend.workflows.createRun(run(`wfr_${i}`, T0 + i));
        await backend.workflows.checkpoint(step(`wfr_${i}`, 1, { kind: 'remove' }, 'succeeded'));
      }
      // Keeping 1: the two older finished runs go; the oldest, still running, stays with its step.
      expect(await backend.workflows.trimRuns('wf_1', 1)).toBe(2);
      const page = await backend.workflows.listRuns('wf_1', { limit: 10 });
      expect(page.data.map((row) => row.id)).toEqual(['wfr_3', 'wfr_open']);
      expect((await backend.workflows.stepsOf('wfr_open')).map((row) => row.index)).toEqual([0]);
    });

    it('fires a due timer tick once, however many checkers saw it due', async () => {
      await backend.workflows.saveWorkflow(
        { ...workflow, triggerType: 'timer', nextFireAt: T0 },
        { ...version, version: 2 },
      );
      expect((await backend.workflows.dueTimers(T0)).map((row) => row.id)).toEqual(['wf_1']);
      // Two checkers found the same tick due; the second comes after the first moved it on.
      await backend.workflows.createRun({ ...run('wfr_a'), trigger: 'timer' }, T0 + 60_000);
      await backend.workflows.createRun({ ...run('wfr_b'), trigger: 'timer' }, T0 + 60_000);
      expect((await backend.workflows.getWorkflow('wf_1'))?.nextFireAt).toBe(T0 + 60_000);
      expect(await backend.workflows.dueTimers(T0)).toEqual([]);
      expect((await backend.workflows.listRuns('wf_1', { limit: 10 })).data.map((row) => row.id)).toEqual(['wfr_a']);
      expect((await backend.queue.claim(KEY, 10)).map((entry) => entry.id)).toEqual(['wfr_a']);
    });

    it('lists the active timer workflows with their current version’s spec', async () => {
      const timerSpec = (seconds: number) => ({
        ...version.spec,
        trigger: { type: 'timer' as const, interval_seconds: seconds },
      });
      // wf_1 moves to version 3 (a timer of 30 s); version 2 (60 s) is the past.
      await backend.workflows.saveWorkflow(
        { ...workflow, triggerType: 'timer', nextFireAt: T0 },
        { ...version, version: 2, spec: timerSpec(60) },
      );
      await backend.workflows.saveWorkflow(
        { ...workflow, version: 3, triggerType: 'timer', nextFireAt: T0 },
        { ...version, version: 3, spec: timerSpec(30) },
      );
      const other = (id: string, active: boolean, triggerType: WorkflowRow['triggerType']) =>
        backend.workflows.saveWorkflow(
          { ...workflow, id, active, triggerType, nextFireAt: T0 },
          { ...version, workflowId: id, spec: triggerType === 'timer' ? timerSpec(5) : version.spec },
        );
      await other('wf_0', true, 'timer');
      await other('wf_2', false, 'timer');
      await other('wf_3', true, 'manual');
      expect(await backend.workflows.timerWorkflows()).toEqual([
        { id: 'wf_0', spec: timerSpec(5) },
        { id: 'wf_1', spec: timerSpec(30) },
      ]);
    });

    it('queues a job scheduler slot once by its fire time, and merges one due while a timer run is queued', async () => {
      await backend.workflows.saveWorkflow(
        { ...workflow, triggerType: 'timer', nextFireAt: T0 },
        { ...version, version: 2 },
      );
      const timerRun = (id: string): NewRun => ({ ...run(id), trigger: 'timer' });
      const slot = (at: number) => ({ firedAt: at, nextFireAt: at + 60_000 });
      expect(await backend.workflows.queueTimerRun(timerRun('wfr_a'), slot(T0))).toBe('queued');
      // The same slot from a second process (or a retried job): the fire time moved on already.
      expect(await backend.workflows.queueTimerRun(timerRun('wfr_b'), slot(T0))).toBe('skipped');
      // The next slot while wfr_a is still queued: only the fire time moves.
      expect(await backend.workflows.queueTimerRun(timerRun('wfr_c'), slot(T0 + 60_000))).toBe('merged');
      expect((await backend.workflows.getWorkflow('wf_1'))?.nextFireAt).toBe(T0 + 120_000);
      await backend.workflows.checkpoint(step('wfr_a', 1, { kind: 'remove' }, 'succeeded'));
      expect(await backend.workflows.queueTimerRun(timerRun('wfr_d'), slot(T0 + 120_000))).toBe('queued');
      expect((await backend.workflows.listRuns('wf_1', { limit: 10 })).data.map((row) => row.id)).toEqual([
        'wfr_d',
        'wfr_a',
      ]);
      expect((await backend.queue.claim(KEY, 10)).map((entry) => entry.id)).toEqual(['wfr_d']);
    });

    it('deletes a workflow with its runs and their queue entries', async () => {
      await backend.workflows.createRun(run('wfr_1'));
      expect(await backend.workflows.deleteWorkflow('wf_1')).toBe(true);
      expect(await backend.workflows.getRun('wfr_1')).toBeNull();
      expect(await backend.queue.claim(KEY, 1)).toEqual([]);
      expect(await backend.workflows.deleteWorkflow('wf_1')).toBe(false);
    });
  });
}
