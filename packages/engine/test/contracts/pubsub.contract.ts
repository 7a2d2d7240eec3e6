/**
 * The contract every PubSub implementation runs (src/pubsub/pubsub.ts lists the guarantees).
 * The factory gives two handles on one implementation: `a` publishes, `b` listens and waits. For
 * a networked implementation they are two clients, as two processes would hold; for the memory
 * one they are the same object. Ids are unique per test, so a shared service needs no cleanup.
 */
import { randomUUID } from 'node:crypto';
import { getEventListeners, setMaxListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EventRecord, HttpResponse, LogRecord, PubSub, SourceMessage, StopRequest } from '../../src/index.js';

export interface PubSubPeers {
  readonly a: PubSub;
  readonly b: PubSub;
  readonly close?: () => Promise<void>;
}

export type PubSubFactory = () => PubSubPeers | Promise<PubSubPeers>;

const event = (sourceId: string, n: number): SourceMessage => ({
  kind: 'event',
  sourceId,
  record: { id: `evt-${n}`, indexed_at_ms: n, event: { n }, metadata: {} } satisfies EventRecord,
});

const log = (sourceId: string, n: number): SourceMessage => ({
  kind: 'log',
  sourceId,
  record: { id: `log-${n}`, ts: n, level: 'info', message: `line ${n}`, invocation_id: null } satisfies LogRecord,
});

/**
 * How long a delivery may take: vi.waitFor's 1 s default is short for a networked implementation
 * on a loaded machine, where the wait ends as soon as the message arrives anyway.
 */
const DELIVERED = { timeout: 20_000, interval: 20 };

const response = (body: string): HttpResponse => ({ status: 201, headers: { 'x-reply': body }, body });

/** Whether the promise is still pending after the implementation had time to deliver. */
async function stillPending(promise: Promise<unknown>, ms = 50): Promise<boolean> {
  const pending = Symbol('pending');
  const timer = new Promise((resolve) => setTimeout(() => resolve(pending), ms));
  return (await Promise.race([promise.catch(() => undefined), timer])) === pending;
}

export function pubSubContract(name: string, factory: PubSubFactory): void {
  describe(`PubSub contract: ${name}`, () => {
    let peers: PubSubPeers | undefined;
    const open = async (): Promise<PubSubPeers> => (peers = await factory());
    const id = (prefix: string): string => `${prefix}_${randomUUID()}`;
    afterEach(async () => {
      await peers?.close?.();
      peers = undefined;
    });

    describe('source messages', () => {
      it('delivers a source’s events and logs in publish order', async () => {
        const { a, b } = await open();
        const source = id('dc');
        const received: SourceMessage[] = [];
        const unsubscribe = await b.subscribe(source, (message) => received.push(message));
        const sent = Array.from({ length: 40 }, (_, n) => (n % 3 === 0 ? log(source, n) : event(source, n)));
        for (const message of sent) a.publish(message);
        await vi.waitFor(() => expect(received).toHaveLength(sent.length), DELIVERED);
        expect(received).toEqual(sent);
        unsubscribe();
      });

      it('fans out to every subscriber of the source, and to no subscriber of another', async () => {
        const { a, b } = await open();
        const source = id('dc');
        const other = id('dc');
        const inboxes = [[], [], []] as SourceMessage[][];
        const unsubscribes = await Promise.all(
          inboxes.map((inbox, index) => (index === 2 ? a : b).subscribe(source, (message) => inbox.push(message))),
        );
        const elsewhere: SourceMessage[] = [];
        unsubscribes.push(await b.subscribe(other, (message) => elsewhere.push(message)));
        a.publish(event(source, 1));
        a.publish(event(source, 2));
        for (const inbox of inboxes)
          await vi.waitFor(() => expect(inbox).toEqual([event(source, 1), event(source, 2)]), DELIVERED);
        // A message to the other source, published last, arriving is proof the first two never went there.
        a.publish(event(other, 3));
        await vi.waitFor(() => expect(elsewhere).toEqual([event(other, 3)]), DELIVERED);
        for (const unsubscribe of unsubscribes) unsubscribe();
      });

      it('stops delivering once unsubscribed, and counts the same listener twice as two subscriptions', async () => {
        const { a, b } = await open();
        const source = id('dc');
        const before = b.stats().subscribers;
        const kept: SourceMessage[] = [];
        const dropped: SourceMessage[] = [];
        const listener = (message: SourceMessage): void => {
          dropped.push(message);
        };
        const first = await b.subscribe(source, listener);
        const second = await b.subscribe(source, listener);
        const keep = await b.subscribe(source, (message) => kept.push(message));
        expect(b.stats().subscribers).toBe(before + 3);
        a.publish(event(source, 1));
        await vi.waitFor(() => expect(dropped).toHaveLength(2), DELIVERED);
        first();
        second();
        second(); // again: nothing more happens
        expect(b.stats().subscribers).toBe(before + 1);
        a.publish(event(source, 2));
        await vi.waitFor(() => expect(kept).toHaveLength(2), DELIVERED);
        expect(dropped).toHaveLength(2);
        keep();
        expect(b.stats().subscribers).toBe(before);
      });

      it('keeps delivering to the others when a listener throws, and publish does not throw', async () => {
        const { a, b } = await open();
        const source = id('dc');
        const received: SourceMessage[] = [];
        const broken = await b.subscribe(source, () => {
          throw new Error('socket gone');
        });
        const healthy = await b.subscribe(source, (message) => received.push(message));
        expect(() => a.publish(event(source, 1))).not.toThrow();
        a.publish(event(source, 2));
        await vi.waitFor(() => expect(received).toEqual([event(source, 1), event(source, 2)]), DELIVERED);
        broken();
        healthy();
      });

      it('holds nothing after many subscribers came and went', async () => {
        const { a, b } = await open();
        const before = b.stats();
        const sources = Array.from({ length: 50 }, () => id('dc'));
        const unsubscribes = await Promise.all(sources.map((source) => b.subscribe(source, () => undefined)));
        expect(b.stats().subscribers).toBe(before.subscribers + 50);
        for (const source of sources) a.publish(event(source, 1));
        for (const unsubscribe of unsubscribes) unsubscribe();
        expect(b.stats()).toEqual(before);
      });

      it('delivers nothing to a subscriber once its instance closed', async () => {
        const { a, b } = await open();
        const [source, witness] = [id('dc'), id('dc')];
        const [received, seen] = [[], []] as SourceMessage[][];
        await b.subscribe(source, (message) => received.push(message));
        a.publish(event(source, 1));
        await vi.waitFor(() => expect(received).toEqual([event(source, 1)]), DELIVERED);
        await b.close();
        // With one instance `a` is `b`, closed too: publishing still must not throw.
        if (a !== b) await a.subscribe(witness, (message) => seen.push(message));
        expect(() => a.publish(event(source, 2))).not.toThrow();
        expect(() => a.publish(event(witness, 1))).not.toThrow();
        // A subscriber that stayed getting its message is proof the first went wherever it would go.
        if (a !== b) await vi.waitFor(() => expect(seen).toEqual([event(witness, 1)]), DELIVERED);
        else await new Promise((resolve) => setTimeout(resolve, 50));
        expect(received).toEqual([event(source, 1)]);
      });
    });

    describe('stop requests', () => {
      it('reaches the stop listeners of every peer, the publishing one included, with its reason', async () => {
        const { a, b } = await open();
        const [source, other] = [id('dc'), id('dc')];
        const [onA, onB] = [[], []] as StopRequest[][];
        const unsubscribes = [
          await a.subscribeStopRuns((request) => onA.push(request)),
          await b.subscribeStopRuns((request) => onB.push(request)),
        ];
        a.publishStopRuns({ sourceId: source, because: 'deleted' });
        b.publishStopRuns({ sourceId: other, because: 'updated' });
        const expected = [
          { sourceId: source, because: 'deleted' },
          { sourceId: other, because: 'updated' },
        ];
        const sorted = (inbox: StopRequest[]) => [...inbox].sort((x, y) => x.because.localeCompare(y.because));
        for (const inbox of [onA, onB]) await vi.waitFor(() => expect(sorted(inbox)).toEqual(expected), DELIVERED);
        for (const unsubscribe of unsubscribes) unsubscribe();
      });

      it('keeps delivering to the others when a listener throws, and publishing does not throw', async () => {
        const { a, b } = await open();
        const source = id('dc');
        const received: string[] = [];
        const broken = await b.subscribeStopRuns(() => {
          throw new Error('runner gone');
        });
        const healthy = await b.subscribeStopRuns((request) => received.push(request.sourceId));
        expect(() => a.publishStopRuns({ sourceId: source, because: 'deleted' })).not.toThrow();
        await vi.waitFor(() => expect(received).toEqual([source]), DELIVERED);
        broken();
        healthy();
      });

      it('delivers nothing to a listener once it unsubscribed, or once its instance closed', async () => {
        const { a, b } = await open();
        const [first, second] = [id('dc'), id('dc')];
        const [kept, dropped, closed] = [[], [], []] as string[][];
        const keep = await a.subscribeStopRuns((request) => kept.push(request.sourceId));
        const drop = await b.subscribeStopRuns((request) => dropped.push(request.sourceId));
        await b.subscribeStopRuns((request) => closed.push(request.sourceId));
        drop();
        drop(); // again: nothing more happens
        a.publishStopRuns({ sourceId: first, because: 'deleted' });
        // The listener that stayed getting it is proof it was delivered wherever it would go.
        await vi.waitFor(() => expect(kept).toEqual([first]), DELIVERED);
        expect(dropped).toEqual([]);
        expect(closed).toEqual([first]);
        await b.close();
        // With one instance `a` is `b`, closed too: publishing still must not throw.
        expect(() => a.publishStopRuns({ sourceId: second, because: 'deleted' })).not.toThrow();
        if (a !== b) await vi.waitFor(() => expect(kept).toEqual([first, second]), DELIVERED);
        else await new Promise((resolve) => setTimeout(resolve, 50));
        expect(closed).toEqual([first]);
        keep();
      });
    });

    describe('customResponse replies', () => {
      it('delivers a reply to the waiter of that invocation only', async () => {
        const { a, b } = await open();
        const invocation = id('inv');
        const neighbour = id('inv');
        const waiting = b.awaitReply(invocation);
        const other = b.awaitReply(neighbour);
        expect(b.stats().replyWaiters).toBeGreaterThanOrEqual(2);
        a.publishReply(invocation, response('mine'));
        await expect(waiting).resolves.toEqual(response('mine'));
        expect(await stillPending(other)).toBe(true);
        a.publishReply(neighbour, null);
        await expect(other).resolves.toBeNull();
        expect(b.stats().replyWaiters).toBe(0);
      });

      it('delivers a reply published before the wait began', async () => {
        const { a, b } = await open();
        const invocation = id('inv');
        a.publishReply(invocation, response('early'));
        // A networked implementation needs a moment to store it; the waiter arrives after that.
        await new Promise((resolve) => setTimeout(resolve, 20));
        await expect(b.awaitReply(invocation)).resolves.toEqual(response('early'));
        expect(b.stats().replyWaiters).toBe(0);
      });

      it('keeps only the first reply of an invocation', async () => {
        const { a, b } = await open();
        const early = id('inv');
        a.publishReply(early, response('first'));
        a.publishReply(early, response('second'));
        await new Promise((resolve) => setTimeout(resolve, 20));
        await expect(b.awaitReply(early)).resolves.toEqual(response('first'));

        const late = id('inv');
        const waiting = b.awaitReply(late);
        a.publishReply(late, response('first'));
        a.publishReply(late, null); // the runner answers again when the invocation commits
        await expect(waiting).resolves.toEqual(response('first'));
      });

      it('rejects with the abort reason when the wait is cancelled, and forgets the waiter', async () => {
        const { a, b } = await open();
        const invocation = id('inv');
        const controller = new AbortController();
        const waiting = b.awaitReply(invocation, controller.signal);
        expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
        const reason = new Error('deadline');
        controller.abort(reason);
        await expect(waiting).rejects.toBe(reason);
        expect(b.stats().replyWaiters).toBe(0);
        expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
        // The reply that comes after all goes nowhere, and breaks nothing.
        expect(() => a.publishReply(invocation, response('too late'))).not.toThrow();
      });

      it('rejects a wait cancelled by its id with the reason, and forgets the waiter', async () => {
        const { a, b } = await open();
        const invocation = id('inv');
        const neighbour = id('inv');
        const waiting = b.awaitReply(invocation);
        const other = b.awaitReply(neighbour);
        expect(b.stats().replyWaiters).toBe(2);
        const reason = new Error('deadline');
        b.cancelReplyWait(invocation, reason);
        await expect(waiting).rejects.toBe(reason);
        expect(b.stats().replyWaiters).toBe(1);
        // Only the wait for that id: another id's wait is untouched, an id nobody waits for is nothing.
        b.cancelReplyWait(id('inv'), reason);
        b.cancelReplyWait(invocation, new Error('twice'));
        a.publishReply(neighbour, response('kept'));
        await expect(other).resolves.toEqual(response('kept'));
        expect(b.stats().replyWaiters).toBe(0);
        expect(() => a.publishReply(invocation, response('too late'))).not.toThrow();
      });

      it('refuses to wait on a signal that is already aborted', async () => {
        const { b } = await open();
        const reason = new Error('client gone');
        await expect(b.awaitReply(id('inv'), AbortSignal.abort(reason))).rejects.toBe(reason);
        expect(b.stats().replyWaiters).toBe(0);
      });

      it('leaves no waiter and no abort listener behind, whether replies came or waits were cancelled', async () => {
        const { a, b } = await open();
        const controller = new AbortController(); // one long-lived signal shared by many waits
        setMaxListeners(0, controller.signal);
        const answered = Array.from({ length: 100 }, () => id('inv'));
        const waits = answered.map((invocation) => b.awaitReply(invocation, controller.signal));
        for (const invocation of answered) a.publishReply(invocation, null);
        await Promise.all(waits);
        expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
        const cancelled = Array.from({ length: 100 }, () => {
          const own = new AbortController();
          return { own, wait: b.awaitReply(id('inv'), own.signal).catch((error: unknown) => error) };
        });
        for (const { own } of cancelled) own.abort(new Error('gone'));
        await Promise.all(cancelled.map(({ wait }) => wait));
        expect(b.stats().replyWaiters).toBe(0);
      });
    });
  });
}
