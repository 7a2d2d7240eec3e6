/** Events per hour over the last 24 hours, as 24 bars; the total is the accessible name. */
export function hourlyCounts(times: readonly number[], now: number): number[] {
  const counts = Array.from({ length: 24 }, () => 0);
  for (const time of times) {
    const age = now - time;
    if (age < 0 || age >= 86_400_000) continue;
    const bucket = 23 - Math.floor(age / 3_600_000);
    counts[bucket] = (counts[bucket] ?? 0) + 1;
  }
  return counts;
}

export function EventsChart({ times, now }: { readonly times: readonly number[]; readonly now: number }) {
  const counts = hourlyCounts(times, now);
  const total = counts.reduce((sum, count) => sum + count, 0);
  const max = Math.max(1, ...counts);
  return (
    <svg
      className="sparkline"
      viewBox="0 0 96 24"
      width="96"
      height="24"
      role="img"
      aria-label={`${total} event${total === 1 ? '' : 's'} in the last 24 hours`}
    >
      <title>{`${total} in the last 24 hours`}</title>
      {counts.map((count, index) => {
        const height = count === 0 ? 1 : Math.max(2, (count / max) * 22);
        return (
          <rect
            key={index}
            x={index * 4}
            y={24 - height}
            width={3}
            height={height}
            className={count === 0 ? 'bar-empty' : 'bar'}
          />
        );
      })}
    </svg>
  );
}
