/** What triggers a source, from its echoed configured props (contract §9.2 echo rules). */
import { Cron } from 'croner';
import type { DeployedSourceT } from '../api/endpoints.js';

export interface HttpTrigger {
  readonly kind: 'http';
  readonly url: string;
}
export interface TimerTrigger {
  readonly kind: 'timer';
  readonly prop: string;
  readonly cron: string | null;
  readonly intervalSeconds: number | null;
}
export type Trigger = HttpTrigger | TimerTrigger;
export type TriggerKind = Trigger['kind'] | 'manual';

/**
 * Every trigger a source has: its endpoint (when it has an HTTP interface) first, then each timer
 * prop. A component may declare both, and each of them starts runs, so none may hide another.
 * An empty list means the source only runs on RUN NOW.
 */
export function triggersOf(source: DeployedSourceT): Trigger[] {
  const triggers: Trigger[] = source.endpoint_url ? [{ kind: 'http', url: source.endpoint_url }] : [];
  for (const [prop, value] of Object.entries(source.configured_props)) {
    if (value && typeof value === 'object' && 'interval_seconds' in value && 'cron' in value) {
      const timer = value as { cron: string | null; interval_seconds: number | null };
      triggers.push({ kind: 'timer', prop, cron: timer.cron, intervalSeconds: timer.interval_seconds });
    }
  }
  return triggers;
}

export function triggerKinds(source: DeployedSourceT): TriggerKind[] {
  const kinds = [...new Set(triggersOf(source).map((trigger) => trigger.kind))];
  return kinds.length > 0 ? kinds : ['manual'];
}

/** The next `count` fire times of a cron expression in UTC after `from`; null when it does not parse. */
export function cronRuns(expression: string, from: Date, count: number): Date[] | null {
  try {
    return new Cron(expression, { timezone: 'UTC', paused: true }).nextRuns(count, from);
  } catch {
    return null;
  }
}

/**
 * When the timer fires next, in ms. The server says when (`next_run_at`, epoch seconds); once that
 * moment has passed and the list has not been refetched yet, the schedule carries it forward:
 * cron in UTC, an interval in steps from the server's time.
 */
export function nextRun(trigger: TimerTrigger, nextRunAtSeconds: number | null, now: number): number | null {
  if (nextRunAtSeconds === null) return null;
  const scheduled = nextRunAtSeconds * 1000;
  if (scheduled > now) return scheduled;
  if (trigger.cron) return cronRuns(trigger.cron, new Date(now), 1)?.[0]?.getTime() ?? null;
  if (!trigger.intervalSeconds) return null;
  const every = trigger.intervalSeconds * 1000;
  return scheduled + Math.floor((now - scheduled) / every + 1) * every;
}

export function describeSchedule(trigger: Pick<TimerTrigger, 'cron' | 'intervalSeconds'>): string {
  if (trigger.cron) return `cron ${trigger.cron} (UTC)`;
  const seconds = trigger.intervalSeconds ?? 0;
  if (seconds % 3600 === 0) return `every ${seconds / 3600}h`;
  if (seconds % 60 === 0) return `every ${seconds / 60} min`;
  return `every ${seconds}s`;
}
