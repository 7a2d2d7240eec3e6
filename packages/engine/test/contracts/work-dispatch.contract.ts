/**
 * The `WorkDispatch` contract (src/ports/work-dispatch.ts): two handles on one backend stand for
 * two processes; every implementation runs these tests against the port only.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { WorkDispatch } from '../../src/ports/work-dispatch.js';

export interface DispatchPeers {
  readonly a: WorkDispatch;
  readonly b: WorkDispatch;
  close(): Promise<void>;
}

/** Resolves once `test` holds, checking every 20 ms; rejects after `timeoutMs`. */
async function until(test: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export function workDispatchContract(name: string, open: () => Promise<DispatchPeers>): void {
  describe(`WorkDispatch contract: ${name}`, () => {
    let peers: DispatchPeers | undefined;
    afterEach(async () => {
      await peers?.close();
      peers = undefined;
    });

    it('hands each announced source to one listening process, whichever announced it', async () => {
      peers = await open();
      const got: { readonly by: string; readonly sourceId: string }[] = [];
      await peers.a.listen((ids) => got.push(...ids.map((sourceId) => ({ by: 'a', sourceId }))));
      await peers.b.listen((ids) => got.push(...ids.map((sourceId) => ({ by: 'b', sourceId }))));
      const sources = Array.from({ length: 20 }, (_, index) => `dc_dispatch_${index}`);
      for (const [index, sourceId] of sources.entries()) (index % 2 === 0 ? peers.a : peers.b).announce([sourceId]);
      await until(() => got.length >= sources.length, 'every wake-up');
      // A moment for a second delivery of any of them to arrive, had there been one.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(got.map((entry) => entry.sourceId).sort()).toEqual([...sources].sort());
    });

    it('keeps a wake-up announced while nobody listens for the first listener', async () => {
      peers = await open();
      peers.a.announce(['dc_waiting']);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const got: string[] = [];
      await peers.b.listen((ids) => got.push(...ids));
      await until(() => got.length === 1, 'the kept wake-up');
      expect(got).toEqual(['dc_waiting']);
    });

    it('delivers a delayed wake-up no sooner than its delay', async () => {
      peers = await open();
      const got: number[] = [];
      await peers.b.listen(() => got.push(Date.now()));
      const announcedAt = Date.now();
      peers.a.announce(['dc_later'], 500);
      await until(() => got.length === 1, 'the delayed wake-up');
      expect(got[0]! - announcedAt).toBeGreaterThanOrEqual(500);
    });
  });
}
