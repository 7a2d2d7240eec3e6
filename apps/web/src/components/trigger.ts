/** What triggers a source, from its echoed configured props (contract §9.2 echo rules). */
import { Cron } from 'croner';
import type { DeployedSourceT } from '../api/endpoints.js';

export type Trigger =
  | { readonly kind: 'http'; readonly url: string }
  | {
      readonly kind: 'timer';
      readonly prop: string;
      readonly cron: string | null;
      readonly intervalSeconds: number | null;
    }
  | { readonly kind: 'none' };

export function triggerOf(source: DeployedSourceT): Trigger {
  for (const [prop, value] of Object.entries(source.configured_props)) {
    if (value && typeof value === 'object' && 'interval_seconds' in value && 'cron' in value) {
      const timer = value as { cron: string | null; interval_seconds: number | null };
      return { kind: 'timer', prop, cron: timer.cron, intervalSeconds: timer.interval_seconds };
    }
  }
  if (source.endpoint_url) return { kind: 'http', url: source.endpoint_url };
  return { kind: 'none' };
}

/**
 * When the timer fires next, in ms. The server says when (`next_run_at`, epoch seconds); once that
 * moment has passed and the list has not been refetched yet, the schedule carries it forward:
 * cron in UTC, an interval in steps from the server's time.
 */
export function nextRun(
  trigger: Extract<Trigger, { kind: 'timer' }>,
  nextRunAtSeconds: number | null,
  now: number,
): number | null {
  if (nextRunAtSeconds === null) return null;
  const scheduled = nextRunAtSeconds * 1000;
  if (scheduled > now) return scheduled;
  if (trigger.cron) {
    try {
      return new Cron(trigger.cron, { timezone: 'UTC', paused: true }).nextRun(new Date(now))?.getTime() ?? null;
    } catch {
      return null;
    }
  }
  if (!trigger.intervalSeconds) return null;
  const every = trigger.intervalSeconds * 1000;
  return scheduled + Math.floor((now - scheduled) / every + 1) * every;
}

export function describeSchedule(trigger: Extract<Trigger, { kind: 'timer' }>): string {
  if (trigger.cron) return `cron ${trigger.cron} (UTC)`;
  const seconds = trigger.intervalSeconds ?? 0;
  if (seconds % 3600 === 0) return `every ${seconds / 3600}h`;
  if (seconds % 60 === 0) return `every ${seconds / 60} min`;
  return `every ${seconds}s`;
}
