import { timerEvent } from '@tributary/runtime';
import type { WantedTimer } from '../redis/bullmq-timer-jobs.js';
import { slotMove } from '../scheduler/scheduled-tick.js';
import { MERGED, SKIPPED, type SlotOutcome, type TimerTargets } from '../scheduler/timer-targets.js';
import { newRun } from './new-run.js';
import { savedScheduleOf } from './timer-schedule.js';
import type { WorkflowStore } from './workflow-store.js';

export interface WorkflowTimerTargetsOptions {
  readonly store: WorkflowStore;
  readonly now: () => number;
  /** The runner: a run was queued under this key. */
  readonly notify: (queueKey: string) => void;
}

/**
 * Timer workflows on job schedulers (`wftimer:<workflow id>`), the BullMQ counterpart of
 * `WorkflowTimers`' polling: the active timer workflows' current schedules, and a fired slot
 * queued as a run in the transaction that moves the workflow's `next_fire_at`, once however many
 * processes take the job, merged while the previous timer run is still queued or running.
 */
export class WorkflowTimerTargets implements TimerTargets {
  constructor(private readonly options: WorkflowTimerTargetsOptions) {}

  async wanted(): Promise<WantedTimer[]> {
    // One query for every timer workflow with its version: a sync costs the same with 5 or 500.
    return (await this.options.store.timerWorkflows()).flatMap(({ id, spec }) => {
      const schedule = savedScheduleOf(spec);
      return schedule ? [{ id, schedule }] : [];
    });
  }

  async fire(id: string, scheduledAt: number): Promise<SlotOutcome> {
    const row = await this.options.store.getWorkflow(id);
    if (!row?.active || row.nextFireAt === null) return SKIPPED;
    const version = await this.options.store.getVersion(row.id, row.version);
    const schedule = version ? savedScheduleOf(version.spec) : null;
    if (!version || !schedule) return SKIPPED;
    const move = slotMove(schedule, row.nextFireAt, scheduledAt);
    if (!move) return SKIPPED;
    const run = newRun({
      workflowId: row.id,
      version: row.version,
      trigger: 'timer',
      event: timerEvent(schedule, scheduledAt),
      concurrency: version.spec.settings?.concurrency,
      now: this.options.now(),
    });
    const outcome = await this.options.store.queueTimerRun(run, move);
    switch (outcome) {
      case 'queued':
        this.options.notify(run.queueKey);
        return { kind: 'queued', dueAt: Math.min(move.firedAt, scheduledAt) };
      case 'merged':
        return MERGED;
      case 'skipped':
        return SKIPPED;
      default:
        return outcome satisfies never;
    }
  }
}
