// Baseline of the timer-drift benchmark: N plain setTimeout timers in a bare node process, forked by
// server-timer-drift.mjs. Timer i first fires at t0 + offset_i (its phase, 0 ≤ offset < interval)
// and then re-arms the way
// the engine's scheduler does for interval timers: next = max(now, scheduled) + interval. Each
// tick notes Date.now() (the "run" start) against its scheduled time, like the benchmark source.
// Messages: parent → { type: 'start', offsetsMs, intervalMs, observeMs }; child → { type: 'report', ticks }.
import process from 'node:process';
import { setTimeout } from 'node:timers';

process.on('message', (message) => {
  if (message?.type !== 'start') return;
  const { offsetsMs, intervalMs, observeMs } = message;
  const t0 = Date.now();
  const end = t0 + observeMs;
  const ticks = [];
  const emitted = [];
  const arm = (index, scheduled) => {
    setTimeout(
      () => {
        const at = Date.now();
        // What the source's run does: build and keep a small event.
        emitted.push({ timestamp: Math.floor(scheduled / 1000), at });
        ticks.push({ index, scheduled, at });
        const next = Math.max(at, scheduled) + intervalMs;
        if (next <= end) arm(index, next);
      },
      Math.max(0, scheduled - Date.now()),
    );
  };
  offsetsMs.forEach((offset, index) => arm(index, t0 + offset));
  setTimeout(() => {
    process.send({ type: 'report', t0, end, ticks, emitted: emitted.length });
    setTimeout(() => process.exit(0), 100);
  }, observeMs + 1000);
});
process.on('disconnect', () => process.exit(0));
process.send({ type: 'ready' });
