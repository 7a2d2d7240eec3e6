import { AppError } from '@tributary/contracts';

/** Logs, events, exports and return value of one invocation together (contract §10: 6 MB). */
export const MAX_INVOCATION_PAYLOAD_BYTES = 6 * 1024 * 1024;

/**
 * Counts what one invocation produces so that a log flood or a huge emit ends the invocation with
 * PAYLOAD_TOO_LARGE instead of exhausting memory or the host. Once over, it stays over.
 */
export class PayloadBudget {
  private used = 0;
  private error: AppError | null = null;

  constructor(private readonly limitBytes: number = MAX_INVOCATION_PAYLOAD_BYTES) {}

  /** Adds `bytes`; throws PAYLOAD_TOO_LARGE (into the author's code) when the total passes the limit. */
  charge(bytes: number, what: string): void {
    if (this.error) throw this.error;
    this.used += bytes;
    if (this.used > this.limitBytes) {
      const megabytes = Math.round((this.limitBytes / (1024 * 1024)) * 10) / 10;
      this.error = new AppError(
        'PAYLOAD_TOO_LARGE',
        `Function Payload Limit Exceeded: the logs, events and exports of one invocation may total ${megabytes} MB; ${what} went over it`,
      );
      throw this.error;
    }
  }

  get exceeded(): AppError | null {
    return this.error;
  }

  get usedBytes(): number {
    return this.used;
  }
}
