/**
 * Updating a source whose run is still going: the update waits for the run a while
 * (`sourceUpdateWaitMs`), then stops it as a delete would (nothing of it committed, no attempt, no
 * dead letter) instead of waiting for its deadline, and the stopped invocation runs again with the
 * update applied; its customResponse caller gets the answer of that run. A run that ends within the
 * wait is not stopped.
 */
import { afterAll, describe, expect, it } from 'vitest';
import {
  deployFixture,
  postEvent as send,
  countSourceRows,
  sourceEvents,
  startHarness,
  waitFor,
  type Harness,
} from './server-harness.js';

/** What the fixture emits: how long its run hung, and the request's `seq`. */
type Hung = { hungMs: number; seq: number };

const harnesses: Harness[] = [];

afterAll(async () => {
  for (const harness of harnesses) await harness.close({ remove: true });
});

describe('PUT /v1/sources/:id while its run hangs', () => {
  it('stops the run after the wait and runs its invocation again with the new props', async () => {
    // The hanging run would last a minute and its deadline is two away: far past this test's timeout.
    const harness = await startHarness({ sourceTimeoutMs: 120_000, sourceUpdateWaitMs: 300 });
    harnesses.push(harness);
    const source = await deployFixture(harness, 'server/hang-until-updated.mjs', 'hanging');
    const answer = send(source.url, { seq: 1 });
    await waitFor(async () => harness.engine.runner.progress().running === 1, 'the run to be running');

    const updated = await harness.request('PUT', `/v1/sources/${source.id}`, {
      body: { configured_props: { hangMs: 0 } },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data.configured_props).toMatchObject({ hangMs: 0 });
    expect(
      harness.logLines.some((line) =>
        line.includes(`the run of ${source.id} in flight was stopped: the source is being updated`),
      ),
    ).toBe(true);

    // The caller waited on: its answer is the run again's, with the update's props.
    const answered = await answer;
    expect(answered.status).toBe(200);
    expect(await answered.json()).toEqual({ hungMs: 0, seq: 1 });
    // The stopped run committed nothing; its invocation ran again, once.
    await waitFor(
      async () => (await sourceEvents<Hung>(harness, source.id)).length === 1,
      'the event of the run again',
    );
    expect(await sourceEvents<Hung>(harness, source.id)).toEqual([{ hungMs: 0, seq: 1 }]);
    await waitFor(async () => countSourceRows(harness, 'invocations', source.id) === 0, 'the queue to empty');
    expect(countSourceRows(harness, 'dead_letters', source.id)).toBe(0);
  });

  it('waits for a run that ends within the wait, and stops nothing', async () => {
    const harness = await startHarness({ sourceUpdateWaitMs: 10_000 });
    harnesses.push(harness);
    const source = await deployFixture(harness, 'server/hang-until-updated.mjs', 'short');
    expect(
      (await harness.request('PUT', `/v1/sources/${source.id}`, { body: { configured_props: { hangMs: 700 } } }))
        .status,
    ).toBe(200);
    const answer = send(source.url, { seq: 1 });
    await waitFor(async () => harness.engine.runner.progress().running === 1, 'the run to be running');

    const renamed = await harness.request('PUT', `/v1/sources/${source.id}`, { body: { name: 'renamed' } });
    expect(renamed.status).toBe(200);
    expect(await (await answer).json()).toEqual({ hungMs: 700, seq: 1 });
    // The run finished before the update took the source: its event, with the props it ran with.
    expect(await sourceEvents<Hung>(harness, source.id)).toEqual([{ hungMs: 700, seq: 1 }]);
    expect(harness.logLines.some((line) => line.includes('in flight was stopped'))).toBe(false);
  });
});
