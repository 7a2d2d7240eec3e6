import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '@tributary/contracts';
import type { StopReason } from '../invocations/stop-reason.js';
import type { InvocationQueue } from '../ports/invocation-queue.js';

/** What taking a source's queue claim for an update found (SourceClaims.take). */
export type ClaimTaken =
  /** Taken: no process starts a run of the source until it is released. */
  | 'held'
  /** This process's runner holds it: its run waits for the lock the update holds. */
  | 'local'
  /** A run in another process holds it. */
  | 'busy';

/** The source's claim in the invocation queue, as an update takes it (InvocationQueue.hold). */
export interface SourceClaims {
  take(sourceId: string): Promise<ClaimTaken>;
  release(sourceId: string): Promise<void>;
}

/**
 * Source claims on the invocation queue. A run of this process may hold the claim while it waits
 * for the update's lock, so the runner is asked first, and again when `hold` lost (the runner may
 * have claimed in between): only a claim held by no run here is another process's.
 */
export function queueClaims(input: {
  readonly queue: Pick<InvocationQueue, 'hold' | 'release'>;
  readonly runsHere: (sourceId: string) => boolean;
}): SourceClaims {
  return {
    take: async (sourceId) => {
      if (input.runsHere(sourceId)) return 'local';
      if (await input.queue.hold(sourceId)) return 'held';
      return input.runsHere(sourceId) ? 'local' : 'busy';
    },
    release: (sourceId) => input.queue.release(sourceId),
  };
}

/** How long an update waits for a run elsewhere to stop, once asked, before it gives up. */
export const STOPPED_ELSEWHERE_MS = 10_000;
/** How often the claim is tried again while a run elsewhere holds it. */
const CLAIM_RETRY_MS = 25;

/**
 * Takes a source's queue claim for an update, under the update's lock. The lock keeps this
 * process's runs out; a run in another process (PostgreSQL, several processes) holds the claim
 * instead, which the update waits for up to `waitMs`, then asks to stop (`stopEverywhere`, heard
 * by other processes through Redis) and waits up to STOPPED_ELSEWHERE_MS more. Holding the claim,
 * the update knows no run of the old code commits after it or starts while it applies. Throws
 * SOURCE_BUSY, having changed nothing, when the run elsewhere neither ended nor stopped.
 */
export async function claimForUpdate(input: {
  readonly sourceId: string;
  readonly claims: SourceClaims;
  readonly waitMs: number;
  readonly stopEverywhere: ((sourceId: string, because: StopReason) => void) | undefined;
}): Promise<{ readonly held: boolean; readonly askedToStop: boolean }> {
  const started = performance.now();
  let askedToStop = false;
  for (;;) {
    const taken = await input.claims.take(input.sourceId);
    switch (taken) {
      case 'held':
        return { held: true, askedToStop };
      case 'local':
        return { held: false, askedToStop };
      case 'busy':
        break;
      default:
        taken satisfies never;
    }
    const waited = performance.now() - started;
    if (!askedToStop && waited >= input.waitMs) {
      input.stopEverywhere?.(input.sourceId, 'updated');
      askedToStop = true;
    }
    if (waited >= input.waitMs + STOPPED_ELSEWHERE_MS) {
      throw new AppError(
        'SOURCE_BUSY',
        `source ${input.sourceId} is running in another process, which did not stop its run for the update within ${Math.round(waited / 1000)} s (stop requests reach other processes through Redis, TRIBUTARY_REDIS_URL); nothing was changed: try again once the run has ended`,
      );
    }
    await sleep(CLAIM_RETRY_MS);
  }
}
