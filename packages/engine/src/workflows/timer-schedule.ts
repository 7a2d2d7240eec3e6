import { AppError, type WorkflowSpecT } from '@tributary/contracts';
import { parseTimerValue, type TimerSchedule } from '@tributary/runtime';

/** The schedule of a timer trigger (checked by the schema and `parseTimerValue`), else null. */
export function scheduleOf(spec: WorkflowSpecT): TimerSchedule | null {
  const trigger = spec.trigger;
  if (trigger.type !== 'timer') return null;
  const parsed = parseTimerValue(
    'cron' in trigger
      ? { cron: trigger.cron, ...(trigger.timezone ? { timezone: trigger.timezone } : {}) }
      : { intervalSeconds: trigger.interval_seconds },
  );
  if (!parsed.ok) throw new AppError('VALIDATION_FAILED', `trigger: ${parsed.reason}`, { field: 'trigger' });
  return parsed.schedule;
}

/**
 * The schedule of a saved version's timer trigger, else null, as `scheduleOf` gave it at save time
 * (same normal form, so job schedulers compare equal) without checking it again: the version was
 * checked when it was saved.
 */
export function savedScheduleOf(spec: WorkflowSpecT): TimerSchedule | null {
  const trigger = spec.trigger;
  if (trigger.type !== 'timer') return null;
  return 'cron' in trigger
    ? { kind: 'cron', cron: trigger.cron.trim().split(/\s+/).join(' '), timezone: trigger.timezone ?? 'UTC' }
    : { kind: 'interval', intervalSeconds: trigger.interval_seconds };
}
