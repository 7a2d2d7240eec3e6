/**
 * The times of a run's log lines: "started" is when the invocation started, "finished" is that
 * plus its duration (never in the future), and the lines in between sit between them, in order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from './ingress-harness.js';
import { fixture, startHarness, type Harness } from './server-harness.js';

interface LogLine {
  readonly ts: number;
  readonly message: string;
  readonly invocation_id: string;
}

let h: Harness;
let sourceId: string;

beforeAll(async () => {
  h = await startHarness();
  const deployed = await h.request('POST', '/v1/sources', {
    body: { component_code: fixture('server/slow-quiet.mjs') },
  });
  expect(deployed.status).toBe(200);
  sourceId = deployed.body.data.id as string;
});

afterAll(async () => {
  await h?.close({ remove: true });
});

/** Runs the source and returns the log lines of that run, oldest first, and when it was asked for. */
async function runAndRead(event: unknown): Promise<{ lines: LogLine[]; askedAt: number; readAt: number }> {
  const askedAt = Date.now();
  const run = await h.request('POST', `/v1/sources/${sourceId}/run`, { body: { event } });
  expect(run.status).toBe(202);
  const invocationId = run.body.data.invocation_id as string;
  const lines = await waitFor(async () => {
    const listed = await h.request('GET', `/v1/sources/${sourceId}/logs?limit=100`);
    const mine = (listed.body.data as LogLine[]).filter((line) => line.invocation_id === invocationId);
    return mine.some((line) => line.message.includes('finished')) ? mine.reverse() : undefined;
  }, 'the finished marker');
  return { lines, askedAt, readAt: Date.now() };
}

describe('log line times of a run', () => {
  it('a run that logs nothing: started at its start, finished at start + duration, not later than now', async () => {
    const { lines, askedAt, readAt } = await runAndRead({});
    expect(lines.map((line) => line.message)).toEqual([
      '--- run started',
      expect.stringMatching(/^--- run finished in \d+ ms$/),
    ]);
    const [started, finished] = lines as [LogLine, LogLine];
    const duration = Number(/in (\d+) ms/.exec(finished.message)?.[1]);
    expect(duration).toBeGreaterThanOrEqual(290);
    expect(started.ts).toBeGreaterThanOrEqual(askedAt);
    expect(finished.ts - started.ts).toBe(duration);
    expect(finished.ts).toBeLessThanOrEqual(readAt);
  });

  it('a run with a line half way: the line sits between the markers, in order', async () => {
    const { lines, askedAt, readAt } = await runAndRead({ log: true });
    expect(lines.map((line) => line.message)).toEqual([
      '--- run started',
      'half way',
      expect.stringMatching(/^--- run finished in \d+ ms$/),
    ]);
    const [started, middle, finished] = lines as [LogLine, LogLine, LogLine];
    expect(started.ts).toBeGreaterThanOrEqual(askedAt);
    expect(middle.ts - started.ts).toBeGreaterThanOrEqual(140);
    expect(finished.ts - middle.ts).toBeGreaterThanOrEqual(140);
    expect(finished.ts).toBeLessThanOrEqual(readAt);
  });
});
