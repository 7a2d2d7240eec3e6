/**
 * The SubscriptionTable port's guarantees (packages/engine/src/subscriptions/subscription-table.ts),
 * run against every implementation: one subscription per emitter, listener and channel, matching
 * by channel with `dc_*`, cursors, and removal with a deleted source.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { SubscriptionRow } from '../../src/subscriptions/sql-subscriptions.js';
import type { SubscriptionTable } from '../../src/subscriptions/subscription-table.js';

export interface SubscriptionTableBackend {
  open(): Promise<{ readonly table: SubscriptionTable; close(): Promise<void> }>;
  dispose(): Promise<void>;
}

let seq = 0;
const row = (overrides: Partial<SubscriptionRow>): SubscriptionRow => ({
  id: `sub_${++seq}`,
  emitter_id: 'dc_a',
  listener_id: null,
  listener_url: 'https://hooks.example.com/a',
  event_name: '',
  secret_sealed: 'sealed',
  created_at: seq,
  ...overrides,
});

export function subscriptionTableContract(name: string, backend: () => Promise<SubscriptionTableBackend>): void {
  describe(`SubscriptionTable contract: ${name}`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });
    const open = async () => {
      const factory = await backend();
      cleanups.push(() => factory.dispose());
      const opened = await factory.open();
      cleanups.push(() => opened.close());
      return { factory, table: opened.table, close: () => opened.close() };
    };

    it('keeps one subscription per emitter, listener and channel, across a reopen', async () => {
      const { factory, table, close } = await open();
      const first = row({});
      await table.insert(first);
      await expect(table.insert(row({}))).rejects.toThrow();
      await table.insert(row({ event_name: 'audit' }));
      await table.insert(row({ listener_url: null, listener_id: 'dc_b' }));
      await close();
      const again = await factory.open();
      cleanups.push(() => again.close());
      expect(
        await again.table.find({ emitterId: 'dc_a', listener: 'https://hooks.example.com/a', eventName: '' }),
      ).toEqual(first);
      expect(await again.table.find({ emitterId: 'dc_a', listener: 'dc_b', eventName: '' })).toMatchObject({
        listener_id: 'dc_b',
      });
      expect((await again.table.list()).length).toBe(3);
    });

    it('matches an event by emitter and channel, dc_* included for a source', async () => {
      const { table } = await open();
      const onDefault = row({});
      const onAudit = row({ event_name: 'audit' });
      const everySource = row({ emitter_id: 'dc_*', listener_url: 'https://all.example.com' });
      const otherSource = row({ emitter_id: 'dc_other' });
      const workflow = row({ emitter_id: 'p_flow' });
      for (const subscription of [onDefault, onAudit, everySource, otherSource, workflow])
        await table.insert(subscription);
      expect((await table.matching('dc_a', '')).map((match) => match.id).sort()).toEqual(
        [onDefault.id, everySource.id].sort(),
      );
      expect((await table.matching('dc_a', 'audit')).map((match) => match.id)).toEqual([onAudit.id]);
      expect((await table.matching('p_flow', '')).map((match) => match.id)).toEqual([workflow.id]);
      expect(await table.anyFor('dc_zzz')).toBe(true); // dc_* covers every source
      expect(await table.anyFor('p_none')).toBe(false);
    });

    it('keeps cursors per emitter and drops a source with its subscriptions and cursor', async () => {
      const { table } = await open();
      expect(await table.cursor('dc_a')).toBeUndefined();
      await table.setCursor('dc_a', '');
      await table.setCursor('dc_a', '100-0');
      await table.setCursor('dc_b', '200-0');
      expect(await table.cursor('dc_a')).toBe('100-0');
      expect((await table.cursors()).length).toBe(2);
      await table.insert(row({}));
      await table.insert(row({ emitter_id: 'dc_c', listener_url: null, listener_id: 'dc_a' }));
      await table.insert(row({ emitter_id: 'dc_c' }));
      await table.removeFor('dc_a');
      expect((await table.list()).map((left) => [left.emitter_id, left.listener_id])).toEqual([['dc_c', null]]);
      expect(await table.cursor('dc_a')).toBeUndefined();
      expect(await table.cursor('dc_b')).toBe('200-0');
    });
  });
}
