/**
 * tools/hardening-probe.mjs at a small seed, against a `tributary start` of its own: canaries get
 * through while four sources hang, the log flood ends as documented, the emit flood commits, SIGTERM
 * exits 0 with a run hanging far past the grace, and a kill -9 loop loses no acknowledged event.
 * The full run and its figures: docs/hardening.md.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  probeEmitFlood,
  probeKillLoop,
  probeLogFlood,
  probeShutdown,
  probeStarvation,
  startOwnServer,
} from '../../../tools/hardening-probe-lib.mjs';

let own: Awaited<ReturnType<typeof startOwnServer>>;

beforeAll(async () => {
  own = await startOwnServer({ TRIBUTARY_SHUTDOWN_GRACE_MS: '1000' });
}, 120_000);

afterAll(async () => {
  await own?.stop();
});

describe('hardening probe (small seed)', () => {
  it('starvation: every canary event runs while four sources hang', async () => {
    const result = await probeStarvation(own.server, { hangs: 4, hangMs: 15_000, canaries: 8, everyMs: 200 });
    expect(result.delivered).toBe(8);
    // Not a speed figure: a canary that waited for the hangs to end would take their 15 s.
    expect(result.maxMs).toBeLessThan(15_000);
  }, 120_000);

  it('log flood: 5 MB of lines succeeds, past 6 MB is PAYLOAD_TOO_LARGE with the earlier lines kept', async () => {
    const result = await probeLogFlood(own.server);
    expect(result.underLimit).toMatchObject({ code: 'OK', lastLine: 'line 00000000262143' });
    expect(result.overLimit.code).toBe('PAYLOAD_TOO_LARGE');
    expect(result.overLimit.lastLine).toMatch(/^line \d{14}$/);
  }, 240_000);

  it('emit flood: the run commits and the event-loop delay is read from /metrics', async () => {
    const result = await probeEmitFlood(own.server, { emits: 5000 });
    expect(result.emits).toBe(5000);
    expect(typeof result.eventLoopLagMaxMs).toBe('number');
  }, 240_000);

  it('shutdown: SIGTERM with a run hanging past the grace exits 0', async () => {
    const result = await probeShutdown(own.node, own.server);
    expect(result.exitCode).toBe(0);
  }, 120_000);

  it('kill -9 loop: no acknowledged event is lost', async () => {
    const result = await probeKillLoop({ events: 100, kills: 1, timers: 1 });
    expect(result).toMatchObject({ kills: 1, lost: 0, ranTwice: 0, outOfOrder: 0 });
    expect(result.acknowledged).toBeGreaterThanOrEqual(100);
  }, 240_000);
});
