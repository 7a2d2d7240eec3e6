import { describe, expect, it } from 'vitest';
import {
  declaredTimerValue,
  DEFAULT_TIMER_INTERVAL_SECONDS,
  describeTimer,
  MIN_TIMER_INTERVAL_SECONDS,
  nextTimerFire,
  parseTimerValue,
  timerEvent,
  type PropSpec,
  type TimerSchedule,
} from '@tributary/runtime';

function schedule(value: unknown): TimerSchedule {
  const parsed = parseTimerValue(value);
  if (!parsed.ok) throw new Error(`expected a valid timer, got: ${parsed.reason}`);
  return parsed.schedule;
}

function reason(value: unknown): string {
  const parsed = parseTimerValue(value);
  if (parsed.ok) throw new Error(`expected ${JSON.stringify(value)} to be refused`);
  return parsed.reason;
}

const at = (iso: string): number => Date.parse(iso);

describe('parseTimerValue', () => {
  it('accepts an interval of 15 s and refuses 14 s', () => {
    expect(MIN_TIMER_INTERVAL_SECONDS).toBe(15);
    expect(schedule({ intervalSeconds: 15 })).toEqual({ kind: 'interval', intervalSeconds: 15 });
    expect(reason({ intervalSeconds: 14 })).toContain('at least 15');
    expect(reason({ intervalSeconds: 5 })).toContain('at least 15');
  });

  it('accepts the snake_case interval the API echoes', () => {
    expect(schedule({ interval_seconds: 60 })).toEqual({ kind: 'interval', intervalSeconds: 60 });
  });

  it('refuses non-integer intervals', () => {
    expect(reason({ intervalSeconds: 15.5 })).toContain('whole number');
    expect(reason({ intervalSeconds: '60' })).toContain('whole number');
  });

  it('accepts a 5-field cron in UTC by default, normalising whitespace', () => {
    expect(schedule({ cron: '*/5 * * * *' })).toEqual({ kind: 'cron', cron: '*/5 * * * *', timezone: 'UTC' });
    expect(schedule({ cron: '  0   9 * * 1-5 ' })).toEqual({ kind: 'cron', cron: '0 9 * * 1-5', timezone: 'UTC' });
  });

  it('refuses a 6-field (seconds) cron and other field counts', () => {
    expect(reason({ cron: '* * * * * *' })).toContain('5 fields');
    expect(reason({ cron: '* * * *' })).toContain('5 fields');
    expect(reason({ cron: '@hourly' })).toContain('5 fields');
  });

  it.each(['61 * * * *', '* * * * 8', 'a b c d e'])('refuses the invalid cron %s', (cron) => {
    expect(reason({ cron })).toContain('is invalid');
  });

  it('refuses a cron expression that never fires', () => {
    const parsed = parseTimerValue({ cron: '0 0 31 2 *' });
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toBe('cron "0 0 31 2 *" never fires');
  });

  it('accepts a known timezone and refuses an unknown one', () => {
    expect(schedule({ cron: '0 9 * * *', timezone: 'Europe/Oslo' })).toEqual({
      kind: 'cron',
      cron: '0 9 * * *',
      timezone: 'Europe/Oslo',
    });
    expect(reason({ cron: '0 9 * * *', timezone: 'Mars/Olympus_Mons' })).toContain('time zone');
  });

  it('refuses both interval and cron together, and shapes that are neither', () => {
    expect(reason({ intervalSeconds: 60, cron: '* * * * *' })).toContain('not both');
    expect(reason({})).toContain('intervalSeconds');
    expect(reason(60)).toContain('intervalSeconds');
    expect(reason({ cron: 5 })).toContain('intervalSeconds');
  });
});

describe('declaredTimerValue', () => {
  const spec = (raw: Record<string, unknown>, fields: Partial<PropSpec> = {}): PropSpec => ({
    name: 'timer',
    type: '$.interface.timer',
    raw: { type: '$.interface.timer', ...raw },
    ...fields,
  });

  it('uses the default, then legacy fields on the prop, then hourly', () => {
    expect(declaredTimerValue(spec({}, { default: { cron: '0 * * * *' } }))).toEqual({ cron: '0 * * * *' });
    expect(declaredTimerValue(spec({ intervalSeconds: 120 }))).toEqual({ intervalSeconds: 120 });
    expect(declaredTimerValue(spec({ cron: '0 0 * * *' }))).toEqual({ cron: '0 0 * * *' });
    expect(DEFAULT_TIMER_INTERVAL_SECONDS).toBe(3600);
    expect(declaredTimerValue(spec({}))).toEqual({ intervalSeconds: 3600 });
  });
});

describe('describeTimer', () => {
  it('echoes the configured value in snake_case with nulls', () => {
    expect(describeTimer(schedule({ intervalSeconds: 60 }))).toEqual({ cron: null, interval_seconds: 60 });
    expect(describeTimer(schedule({ cron: '*/5 * * * *' }))).toEqual({ cron: '*/5 * * * *', interval_seconds: null });
  });
});

describe('nextTimerFire', () => {
  it('adds the interval for interval schedules', () => {
    const from = at('2024-03-10T12:00:00.000Z');
    expect(nextTimerFire(schedule({ intervalSeconds: 60 }), from)).toBe(from + 60_000);
  });

  it('finds the next cron time strictly after the given instant, in UTC', () => {
    const every5 = schedule({ cron: '*/5 * * * *' });
    expect(new Date(nextTimerFire(every5, at('2024-03-10T12:01:00.000Z'))).toISOString()).toBe(
      '2024-03-10T12:05:00.000Z',
    );
    expect(new Date(nextTimerFire(every5, at('2024-03-10T12:05:00.000Z'))).toISOString()).toBe(
      '2024-03-10T12:10:00.000Z',
    );
    expect(new Date(nextTimerFire(every5, at('2024-03-10T23:59:30.000Z'))).toISOString()).toBe(
      '2024-03-11T00:00:00.000Z',
    );
    const daily = schedule({ cron: '30 6 * * *' });
    expect(new Date(nextTimerFire(daily, at('2024-03-10T07:00:00.000Z'))).toISOString()).toBe(
      '2024-03-11T06:30:00.000Z',
    );
  });

  it('evaluates cron in the given timezone', () => {
    const ny = schedule({ cron: '0 9 * * *', timezone: 'America/New_York' });
    // 09:00 EDT is 13:00 UTC in July.
    expect(new Date(nextTimerFire(ny, at('2024-07-01T00:00:00.000Z'))).toISOString()).toBe('2024-07-01T13:00:00.000Z');
  });
});

describe('timerEvent', () => {
  it('gives epoch seconds and interval_seconds for intervals', () => {
    expect(timerEvent(schedule({ intervalSeconds: 60 }), 1_700_000_000_999)).toEqual({
      timestamp: 1_700_000_000,
      interval_seconds: 60,
    });
  });

  it('gives epoch seconds and the cron expression for cron schedules', () => {
    const event = timerEvent(schedule({ cron: '*/5 * * * *' }), at('2024-03-10T12:05:00.000Z'));
    expect(event).toEqual({ timestamp: at('2024-03-10T12:05:00.000Z') / 1000, cron: '*/5 * * * *' });
    expect(event).not.toHaveProperty('interval_seconds');
  });
});
