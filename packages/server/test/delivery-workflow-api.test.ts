/**
 * The API the workflows engine calls after each step: `engine.deliveries.deliver(sends, context)`
 * returns the delivery records, refuses a bad destination with nothing stored, and a workflow's
 * `$.send.emit` reaches the webhook listeners subscribed to it once workflows register their kind.
 * Also: deleting a source takes its subscriptions with it.
 */
import { AppError } from '@tributary/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from './delivery-servers.js';
import { fixture, readRows, startHarness, waitFor, type Harness } from './server-harness.js';

let h: Harness;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const WORKFLOW = 'p_ordersflow';

beforeAll(async () => {
  receiver = await startReceiver([200]);
  h = await startHarness({
    allowPrivateUrls: true,
    delivery: { retry: { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 100 }, maxSleepMs: 100 },
  });
  // What the workflows engine does at start: its ids become emitters (and could be listeners).
  h.engine.subscriptions.registerEmitter('p_', { exists: (id) => Promise.resolve(id === WORKFLOW) });
});

afterAll(async () => {
  await h?.close({ remove: true });
  await receiver?.close();
});

describe('deliveries.deliver', () => {
  it("queues a step's sends and answers their records, tied to the run and the step", async () => {
    const records = await h.engine.deliveries.deliver(
      [{ kind: 'http', config: { method: 'PUT', url: `${receiver.url}/step`, data: 'plain text' } }],
      { owner: 'u_local', runId: 'run_1', stepName: 'notify' },
      // The wait ends at the first attempt; its limit only has to outlast a loaded machine.
      { waitMs: 20_000 },
    );
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      kind: 'http',
      run_id: 'run_1',
      step_name: 'notify',
      status: 'delivered',
      attempts: 1,
    });
    expect(receiver.requests.at(-1)).toMatchObject({ method: 'PUT', url: '/step', body: 'plain text' });
    expect((await h.engine.deliveries.listByRun('run_1')).map((record) => record.id)).toEqual([records[0]?.id]);
  });

  it('answers at once without waitMs: the records are pending and the worker delivers them', async () => {
    const [record] = await h.engine.deliveries.deliver(
      [{ kind: 'sse', config: { channel: 'steps', payload: { n: 1 } } }],
      { owner: 'u_local', runId: 'run_2', stepName: 'stream' },
    );
    expect(record?.status).toBe('pending');
    await waitFor(
      async () => (await h.engine.deliveries.get(record?.id ?? ''))?.status === 'delivered',
      'the sse delivery',
    );
  });

  it('refuses a bad destination among good ones, storing none of them', async () => {
    const before = readRows(h.dbFile, 'SELECT id FROM deliveries').length;
    const error = await h.engine.deliveries
      .deliver(
        [
          { kind: 'sse', config: { channel: 'ok', payload: 1 } },
          { kind: 'email', config: { subject: 'x' } },
        ],
        { owner: 'u_local', runId: 'run_3', stepName: 'bad' },
      )
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'DESTINATION_INVALID', details: { field: 'sends.1.kind' } });
    expect(readRows(h.dbFile, 'SELECT id FROM deliveries')).toHaveLength(before);
  });

  it("hands a workflow's $.send.emit to the listeners subscribed to the workflow, on its channel", async () => {
    const subscribed = await h.request(
      'POST',
      `/v1/subscriptions?emitter_id=${WORKFLOW}&listener_url=${encodeURIComponent(`${receiver.url}/listener`)}&event_name=shipments`,
    );
    expect(subscribed.status).toBe(200);
    const [emit, other] = await h.engine.deliveries.deliver(
      [
        { kind: 'emit', config: { raw_event: { order: 9 }, channel: 'shipments' } },
        { kind: 'emit', config: { raw_event: { order: 10 } } },
        { kind: 'emit', config: { raw_event: { order: 11 }, channel: 'shipments' } },
      ],
      { owner: 'u_local', runId: 'run_4', stepName: 'emit', emitterId: WORKFLOW },
      { waitMs: 20_000 },
    );
    expect(emit).toMatchObject({ status: 'delivered', target: WORKFLOW });
    expect(emit?.log[0]?.detail).toBe(`handed to 1 subscriber of ${WORKFLOW}`);
    expect(other?.log[0]?.detail).toBe(`handed to 0 subscribers of ${WORKFLOW}`);
    // Both emits on the channel arrive, however close together: each is its own event.
    const posted = await waitFor(async () => {
      const found = receiver.requests.filter((request) => request.url === '/listener');
      return found.length === 2 ? found : undefined;
    }, 'the listener to get both events');
    // Two deliveries, sent side by side by the delivery worker: they may arrive in either order.
    const bodies = posted.map((request) => JSON.parse(request.body) as { event: { order: number } });
    expect(bodies.sort((x, y) => x.event.order - y.event.order)).toEqual([
      expect.objectContaining({
        event: { order: 9 },
        metadata: { emitter_id: WORKFLOW, name: 'shipments', run_id: 'run_4' },
      }),
      expect.objectContaining({ event: { order: 11 } }),
    ]);
  });
});

describe('deleting a source', () => {
  it('removes the subscriptions it emits to and listens with', async () => {
    const deploy = async (name: string): Promise<string> =>
      (
        await h.request('POST', '/v1/sources', {
          body: { component_code: fixture('delivery/emitter.mjs'), name },
        })
      ).body.data.id as string;
    const [emitter, listener] = [await deploy('emitter-gone'), await deploy('listener-gone')];
    await h.request('POST', `/v1/subscriptions?emitter_id=${emitter}&listener_url=${encodeURIComponent(receiver.url)}`);
    await h.request('POST', `/v1/subscriptions?emitter_id=${WORKFLOW}&listener_id=${listener}`);
    const mine = async () =>
      (await h.request('GET', '/v1/subscriptions')).body.data.filter(
        (row: { emitter_id: string; listener_id: string | null }) =>
          row.emitter_id === emitter || row.listener_id === listener,
      );
    expect(await mine()).toHaveLength(2);
    expect((await h.request('DELETE', `/v1/sources/${emitter}`)).status).toBe(200);
    expect((await h.request('DELETE', `/v1/sources/${listener}`)).status).toBe(200);
    expect(await mine()).toEqual([]);
  });
});
