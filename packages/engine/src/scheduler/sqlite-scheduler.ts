import { settle } from '../store/settle.js';
import type { SqliteWrites } from '../store/sqlite-writes.js';
import { TimerScheduler, type TimerSchedulerOptions } from './timer-scheduler.js';

export interface SqliteSchedulerOptions extends Omit<TimerSchedulerOptions, 'queueTicks'> {
  readonly writes: SqliteWrites;
}

/**
 * The scheduler on the embedded SQLite file: queueing a tick and moving its next fire time happen
 * in one synchronous transaction. One process owns the file, so one scheduler checks it.
 */
export class SqliteScheduler extends TimerScheduler {
  constructor(options: SqliteSchedulerOptions) {
    const { writes, ...rest } = options;
    super({ ...rest, queueTicks: (ticks) => settle(() => writes.queueTicks(ticks)) });
  }
}
