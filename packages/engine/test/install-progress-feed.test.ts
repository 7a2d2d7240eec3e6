/**
 * The install feed carries a request's scope through its async work, and lets go of the storage
 * when the last request inside it ends (Node 20 taxes every promise while one is enabled): requests
 * that overlap keep their own scopes to the end, and what comes after carries none.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { InstallProgress } from '@tributary/sandbox';
import { describe, expect, it } from 'vitest';
import { InstallProgressFeed, type InstallScope } from '../src/index.js';

const progress = (name: string): InstallProgress =>
  ({ phase: 'start', packages: [name] }) as unknown as InstallProgress;

describe('InstallProgressFeed', () => {
  it('keeps each overlapping request its own scope until it ends, and none after the last', async () => {
    const feed = new InstallProgressFeed();
    const seen: { packages: unknown; scope: InstallScope | null }[] = [];
    feed.subscribe((item, scope) =>
      seen.push({ packages: (item as unknown as { packages: unknown }).packages, scope }),
    );
    const first = { progressId: 'p1', caller: 'key-a' };
    const second = { progressId: 'p2', caller: 'key-b' };
    let endSecond: () => void = () => undefined;
    const secondDone = new Promise<void>((resolve) => (endSecond = resolve));
    const running = feed.within(second, async () => {
      await secondDone;
      feed.publish(progress('after-first-ended'));
    });
    await feed.within(first, async () => {
      await delay(1);
      feed.publish(progress('in-first'));
    });
    endSecond();
    await running;
    feed.publish(progress('outside'));
    await feed.within(first, async () => {
      await delay(1);
      feed.publish(progress('first-again'));
    });
    expect(seen).toEqual([
      { packages: ['in-first'], scope: first },
      { packages: ['after-first-ended'], scope: second },
      { packages: ['outside'], scope: null },
      { packages: ['first-again'], scope: first },
    ]);
  });

  // Node 20 tags each new promise with the storage's store while it is enabled; after the last
  // request, promises made a turn later carry nothing (the hook on every promise is gone).
  it('leaves no hook on the promises made after the last request', async () => {
    const feed = new InstallProgressFeed();
    const tags = (): number => Object.getOwnPropertySymbols(Promise.resolve().then(() => undefined)).length;
    const before = tags();
    await feed.within({ progressId: null, caller: 'key-a' }, async () => {
      await delay(1);
      expect(tags()).toBeGreaterThan(before);
    });
    await delay(5);
    expect(tags()).toBe(before);
  });

  it('lets go of the scope when the work throws', async () => {
    const feed = new InstallProgressFeed();
    const scopes: (InstallScope | null)[] = [];
    feed.subscribe((_item, scope) => scopes.push(scope));
    await expect(
      feed.within({ progressId: null, caller: 'key-a' }, () => Promise.reject(new Error('refused'))),
    ).rejects.toThrow('refused');
    feed.publish(progress('later'));
    expect(scopes).toEqual([null]);
  });
});
