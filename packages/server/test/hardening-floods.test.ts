/**
 * Issue 14, "Log flood" and "100,000 emits": one run's many emits commit on SQLite and on
 * PostgreSQL (where one insert of every emitted row went past the 65,535 parameters of a statement
 * and the commit failed), keeping the bin's last 100; about 5 MB of short log lines succeeds, and
 * more ends as PAYLOAD_TOO_LARGE with the lines before the limit kept, never OUT_OF_MEMORY.
 * (The event-loop delay of the 100,000 emits is measured in bench/hardening-emit-flood.mjs.)
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../tools/test-support/postgres.js';
import { fixture, logMessages, startHarness, waitFor, type Harness } from './server-harness.js';

const harnesses: Harness[] = [];
const databases: TestDatabase[] = [];

afterAll(async () => {
  for (const harness of harnesses) await harness.close({ remove: true });
  for (const database of databases) await database.drop();
});

async function deploy(harness: Harness, file: string): Promise<{ id: string; url: string }> {
  const deployed = await harness.request('POST', '/v1/sources', { body: { component_code: fixture(file) } });
  expect(deployed.status).toBe(200);
  return {
    id: deployed.body.data.id as string,
    url: `${harness.base}${harness.endpoint(deployed.body.data.endpoint_url as string)}`,
  };
}

async function send(url: string, body: unknown): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
}

/** Waits for the run's end marker in the source's logs, and returns the logs. */
async function finishedLogs(harness: Harness, sourceId: string): Promise<string[]> {
  return waitFor(
    async () => {
      const messages = await logMessages(harness, sourceId);
      return messages.some((message) => /^--- run (finished|failed)/.test(message)) ? messages : undefined;
    },
    'the run to finish',
    120_000,
  );
}

async function emitsCommit(harness: Harness): Promise<void> {
  const source = await deploy(harness, 'server/emit-flood.mjs');
  await send(source.url, { count: 20_000 });
  const messages = await finishedLogs(harness, source.id);
  expect(messages.at(-1)).toMatch(/^--- run finished in \d+ ms$/);
  const page = await harness.request('GET', `/v1/sources/${source.id}/event_summaries?limit=100`);
  expect(page.body.data).toHaveLength(100);
  // Newest first: the bin holds the run's last 100 events.
  expect(page.body.data[0].metadata.summary).toBe('event 19999');
  expect(page.body.data[99].metadata.summary).toBe('event 19900');
}

describe('one run emitting 20,000 events', () => {
  it('commits on SQLite, keeping the last 100 in the bin', async () => {
    const harness = await startHarness();
    harnesses.push(harness);
    await emitsCommit(harness);
  }, 180_000);

  it('commits on PostgreSQL, keeping the last 100 in the bin', async () => {
    const database = await createTestDatabase();
    databases.push(database);
    const harness = await startHarness({ databaseUrl: database.url });
    harnesses.push(harness);
    await emitsCommit(harness);
  }, 180_000);
});

describe('a source writing a flood of short log lines', () => {
  it('about 5 MB of lines succeeds and its event is stored', async () => {
    const harness = await startHarness({ sourceTimeoutMs: 120_000 });
    harnesses.push(harness);
    const source = await deploy(harness, 'server/log-flood.mjs');
    await send(source.url, { lines: 262_144 });
    const messages = await finishedLogs(harness, source.id);
    expect(messages.at(-1)).toMatch(/^--- run finished in \d+ ms$/);
    expect(messages.at(-2)).toBe(`line ${String(262_143).padStart(14, '0')}`);
    const page = await harness.request('GET', `/v1/sources/${source.id}/event_summaries`);
    expect(page.body.data.map((event: { metadata: { summary: string } }) => event.metadata.summary)).toEqual([
      'logged 262144 lines',
    ]);
  }, 180_000);

  it('past 6 MB ends as PAYLOAD_TOO_LARGE, keeping the lines before the limit', async () => {
    const harness = await startHarness({ sourceTimeoutMs: 120_000 });
    harnesses.push(harness);
    const source = await deploy(harness, 'server/log-flood.mjs');
    await send(source.url, { lines: 400_000 });
    const messages = await finishedLogs(harness, source.id);
    expect(messages.at(-1)).toMatch(/^--- run failed in \d+ ms: PAYLOAD_TOO_LARGE$/);
    expect(messages.join('\n')).not.toContain('OUT_OF_MEMORY');
    // The last lines written before the limit are kept (the log keeps a source's last 100 entries).
    const lines = messages.filter((message) => message.startsWith('line '));
    expect(lines.length).toBeGreaterThan(90);
    const last = Number(lines.at(-1)?.slice(5));
    expect(last).toBe(Math.floor((6 * 1024 * 1024 - 'first line'.length) / 19) - 1);
    // Nothing after the limit ran: the run's event was never emitted.
    const page = await harness.request('GET', `/v1/sources/${source.id}/event_summaries`);
    expect(page.body.data).toEqual([]);
  }, 180_000);
});
