/**
 * Whether an emitter has subscribers is kept in memory on SQLite between writes of the
 * subscriptions (every commit asks). A source whose commits found no subscriber, subscribed to
 * afterwards, must hand its next event over: a run that got the earlier answer from memory fails
 * the test. Real server, real SQLite file, a real webhook receiver on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from './delivery-servers.js';
import { fixture, queueIdle, startHarness, waitFor, type Harness } from './server-harness.js';

let h: Harness;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  receiver = await startReceiver([200]);
  h = await startHarness({ allowPrivateUrls: true, delivery: { maxSleepMs: 100 } });
});

afterAll(async () => {
  await h?.close({ remove: true });
  await receiver?.close();
});

describe('subscribers kept in memory between commits', () => {
  it('hands a source its first subscriber at the next commit after subscribing', async () => {
    const deployed = await h.request('POST', '/v1/sources', {
      body: { component_code: fixture('delivery/emitter.mjs'), name: 'late subscriber' },
    });
    expect(deployed.status, deployed.text).toBe(200);
    const source = deployed.body.data as { id: string; configured_props: { http: { endpoint_url: string } } };
    const post = async (order: number): Promise<void> => {
      const response = await fetch(`${h.base}${h.endpoint(source.configured_props.http.endpoint_url)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ order }),
      });
      expect(response.status).toBe(200);
      await queueIdle(h, source.id);
      // The hand-off follows the commit: done, it has asked whether the source has subscribers.
      await h.engine.subscriptions.drain();
    };
    await post(1);
    await post(2);
    expect(receiver.requests).toHaveLength(0);

    const created = await h.request(
      'POST',
      `/v1/subscriptions?${new URLSearchParams({ emitter_id: source.id, listener_url: `${receiver.url}/late` }).toString()}`,
    );
    expect(created.status, created.text).toBe(200);
    await post(3);
    const delivered = await waitFor(
      async () => (receiver.requests.length > 0 ? receiver.requests : undefined),
      'the event committed after subscribing to reach the listener',
    );
    expect(delivered.map((request) => (JSON.parse(request.body) as { event: { order: number } }).event.order)).toEqual([
      3,
    ]);
  });
});
