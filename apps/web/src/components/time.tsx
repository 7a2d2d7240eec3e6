import { useEffect, useState } from 'react';

/** Re-renders every `ms` so relative times and countdowns stay true. */
export function useNow(ms = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

export function formatRelative(ms: number, now: number): string {
  const seconds = Math.round((now - ms) / 1000);
  const future = seconds < 0;
  const abs = Math.abs(seconds);
  const text =
    abs < 5
      ? 'just now'
      : abs < 60
        ? `${abs}s`
        : abs < 3600
          ? `${Math.floor(abs / 60)}m`
          : abs < 86_400
            ? `${Math.floor(abs / 3600)}h`
            : `${Math.floor(abs / 86_400)}d`;
  if (text === 'just now') return text;
  return future ? `in ${text}` : `${text} ago`;
}

export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const d = Math.floor(total / 86_400);
  // A weekly cron would read "153h 6m"; past two days, days and hours say it at a glance.
  if (d >= 2) return `${d}d ${Math.floor((total % 86_400) / 3600)}h`;
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return h > 0 ? `${h}h ${m}m` : m > 0 ? `${m}m ${s}s` : `${s}s`;
}

export function RelativeTime({ ms }: { readonly ms: number }) {
  const now = useNow(5000);
  const date = new Date(ms);
  return (
    <time dateTime={date.toISOString()} title={date.toLocaleString()}>
      {formatRelative(ms, now)}
    </time>
  );
}
