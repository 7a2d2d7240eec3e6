import { setImmediate as nextTurn } from 'node:timers/promises';

/** Items (events, log lines) handled on the server's thread before it yields to the event loop. */
export const ITEMS_PER_TURN = 1000;

/**
 * Bounds the work one run's results cost the server's thread in one turn of the event loop (issue
 * 14: one run's 100,000 emits held it for over a second): a loop over many items calls `spent()`
 * per item and awaits `pause()` when it says so, so requests, acknowledgements and other runs go
 * between every `ITEMS_PER_TURN` items. A loop of a few items never yields.
 */
export class TurnBudget {
  private left: number;

  constructor(private readonly perTurn = ITEMS_PER_TURN) {
    this.left = perTurn;
  }

  /** Counts one item; true when the turn's budget is spent and the caller should `pause()`. */
  spent(): boolean {
    this.left -= 1;
    return this.left <= 0;
  }

  /** Yields to the event loop (timers, I/O, other requests) and starts a fresh budget. */
  async pause(): Promise<void> {
    this.left = this.perTurn;
    await nextTurn();
  }
}
