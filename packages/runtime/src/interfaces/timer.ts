import { errorMessage } from '@tributary/contracts/errors';
import { Cron } from 'croner';
import type { PropSpec } from '../types.js';
import { isPlainObject } from '../util/json.js';

/** A validated timer schedule: a fixed interval, or a 5-field cron expression. */
export type TimerSchedule =
  | { readonly kind: 'interval'; readonly intervalSeconds: number }
  | { readonly kind: 'cron'; readonly cron: string; readonly timezone: string };

export const MIN_TIMER_INTERVAL_SECONDS = 15;
export const DEFAULT_TIMER_INTERVAL_SECONDS = 3600;

export type ParsedTimer =
  { readonly ok: true; readonly schedule: TimerSchedule } | { readonly ok: false; readonly reason: string };

/**
 * Reads a timer value as authors and users write it: `{ intervalSeconds }` or `{ cron, timezone? }`
 * (contract §2.7). Intervals under 15 s and cron expressions that are not 5 fields are refused.
 */
export function parseTimerValue(value: unknown): ParsedTimer {
  if (!isPlainObject(value)) return { ok: false, reason: 'must be { intervalSeconds } or { cron }' };
  const interval = value['intervalSeconds'] ?? value['interval_seconds'];
  const cron = value['cron'];
  if (interval !== undefined && interval !== null && cron !== undefined && cron !== null) {
    return { ok: false, reason: 'give either intervalSeconds or cron, not both' };
  }
  if (interval !== undefined && interval !== null) {
    if (typeof interval !== 'number' || !Number.isInteger(interval)) {
      return {
        ok: false,
        reason: `intervalSeconds must be a whole number of seconds, got ${JSON.stringify(interval)}`,
      };
    }
    if (interval < MIN_TIMER_INTERVAL_SECONDS) {
      return { ok: false, reason: `intervalSeconds must be at least ${MIN_TIMER_INTERVAL_SECONDS}, got ${interval}` };
    }
    return { ok: true, schedule: { kind: 'interval', intervalSeconds: interval } };
  }
  if (typeof cron === 'string') {
    const fields = cron.trim().split(/\s+/);
    if (fields.length !== 5) {
      return {
        ok: false,
        reason: `cron must have 5 fields (minute hour day-of-month month day-of-week), got ${fields.length} in "${cron}"`,
      };
    }
    const timezone = value['timezone'] ?? 'UTC';
    if (typeof timezone !== 'string' || !isTimeZone(timezone)) {
      return { ok: false, reason: `timezone ${JSON.stringify(timezone)} is not a known IANA time zone` };
    }
    try {
      // A valid expression can still name a date that never comes (February 31st).
      if (new Cron(cron, { paused: true, timezone }).nextRun() === null) {
        return { ok: false, reason: `cron "${cron}" never fires` };
      }
    } catch (error) {
      return {
        ok: false,
        reason: `cron "${cron}" is invalid: ${errorMessage(error)}`,
      };
    }
    return { ok: true, schedule: { kind: 'cron', cron: fields.join(' '), timezone } };
  }
  return { ok: false, reason: 'must be { intervalSeconds } or { cron }' };
}

/** The schedule a timer prop declares: its `default`, legacy fields on the prop, or hourly. */
export function declaredTimerValue(spec: PropSpec): unknown {
  if (spec.default !== undefined) return spec.default;
  const { intervalSeconds, cron } = spec.raw;
  if (intervalSeconds !== undefined) return { intervalSeconds };
  if (cron !== undefined) return { cron };
  return { intervalSeconds: DEFAULT_TIMER_INTERVAL_SECONDS };
}

/** How the API echoes a timer's configured value (contract §2.7). */
export function describeTimer(schedule: TimerSchedule): { cron: string | null; interval_seconds: number | null } {
  switch (schedule.kind) {
    case 'interval':
      return { cron: null, interval_seconds: schedule.intervalSeconds };
    case 'cron':
      return { cron: schedule.cron, interval_seconds: null };
  }
}

/** Next fire time strictly after `afterMs`, in epoch milliseconds. */
export function nextTimerFire(schedule: TimerSchedule, afterMs: number): number {
  switch (schedule.kind) {
    case 'interval':
      return afterMs + schedule.intervalSeconds * 1000;
    case 'cron': {
      const next = new Cron(schedule.cron, { paused: true, timezone: schedule.timezone }).nextRun(new Date(afterMs));
      if (!next) throw new Error(`cron "${schedule.cron}" never fires again`);
      return next.getTime();
    }
  }
}

/** The event a timer-triggered `run` receives (contract §3.5). */
export function timerEvent(schedule: TimerSchedule, atMs: number): Record<string, unknown> {
  const timestamp = Math.floor(atMs / 1000);
  switch (schedule.kind) {
    case 'interval':
      return { timestamp, interval_seconds: schedule.intervalSeconds };
    case 'cron':
      return { timestamp, cron: schedule.cron };
  }
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
