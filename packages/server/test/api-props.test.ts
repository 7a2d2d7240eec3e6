/**
 * Configured props over the REST API: validated and coerced with the runtime's rules, secrets
 * encrypted at rest and shown as "[REDACTED]", 64 KB per value, props persisting across updates
 * (added ones get their default, removed ones are dropped), and timer props.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, openSqlite, readRows, snapshot, startHarness, waitFor, type Harness } from './server-harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.close({ remove: true });
});

/** F14's props on a source; run emits what `this` holds (the secret only reversed and measured). */
const INPUTS = `
export default {
  key: "t-inputs", name: "Inputs Source", version: "0.0.1", type: "source",
  props: {
    db: "$.service.db",
    note: { type: "alert", alertType: "info", content: "Fixture only." },
    greeting: { type: "string", label: "Greeting", optional: true, default: "hi" },
    apiKey: { type: "string", label: "API key", secret: true },
    repeat: { type: "integer", min: 1, max: 5, optional: true, default: 2 },
    loud: { type: "boolean", optional: true },
    colors: { type: "string[]", options: ["red", "green"], optional: true },
    size: { type: "string", options: [{ label: "Small", value: "s" }, { label: "Large", value: "l" }] },
    meta: { type: "object", optional: true },
    blob: { type: "string", optional: true },
  },
  async run() {
    this.$emit({
      greeting: this.greeting, repeat: this.repeat, repeatType: typeof this.repeat, loud: this.loud ?? null,
      colors: this.colors ?? null, size: this.size, meta: this.meta ?? null, blobLength: (this.blob ?? "").length,
      keyLength: this.apiKey.length, keyReversed: this.apiKey.split("").reverse().join(""), hasNote: "note" in this,
    });
  },
};
`;

async function runAndRead(sourceId: string): Promise<Record<string, unknown>> {
  const before = (await h.request('GET', `/v1/sources/${sourceId}/event_summaries?limit=1`)).body.page_info
    .total_count as number;
  const run = await h.request('POST', `/v1/sources/${sourceId}/run`, { body: {} });
  expect(run.status).toBe(202);
  return waitFor(async () => {
    const response = await h.request('GET', `/v1/sources/${sourceId}/event_summaries?limit=1&expand=event`);
    return response.body.page_info.total_count > before
      ? (response.body.data[0].event as Record<string, unknown>)
      : undefined;
  }, 'the run to emit');
}

const reversed = (text: string): string => text.split('').reverse().join('');

describe('validation and coercion', () => {
  it('refuses bad values with PROP_INVALID, PROP_REQUIRED, PROP_UNKNOWN and creates no source', async () => {
    const before = await snapshot(h);
    const cases: [Record<string, unknown>, string, string][] = [
      [{ apiKey: 'k', size: 'l', repeat: 9 }, 'PROP_INVALID', 'repeat'],
      [{ apiKey: 'k', size: 'l', repeat: 'three' }, 'PROP_INVALID', 'repeat'],
      [{ apiKey: 'k', size: 'm' }, 'PROP_INVALID', 'size'],
      [{ apiKey: 'k', size: 'l', loud: 'maybe' }, 'PROP_INVALID', 'loud'],
      [{ apiKey: 'k', size: 'l', colors: ['blue'] }, 'PROP_INVALID', 'colors'],
      [{ apiKey: 'k', size: 'l', meta: 'not an object' }, 'PROP_INVALID', 'meta'],
      [{ apiKey: 42, size: 'l' }, 'PROP_INVALID', 'apiKey'],
      [{ size: 'l' }, 'PROP_REQUIRED', 'apiKey'],
      [{ apiKey: 'k' }, 'PROP_REQUIRED', 'size'],
      [{ apiKey: 'k', size: 'l', nope: 1 }, 'PROP_UNKNOWN', 'nope'],
    ];
    for (const [configured, code, prop] of cases) {
      const response = await h.request('POST', '/v1/sources', {
        body: { component_code: INPUTS, configured_props: configured },
      });
      expect(response.status, JSON.stringify(configured)).toBe(400);
      expect(response.body.error, JSON.stringify(configured)).toMatchObject({ code, details: { prop } });
      expect(response.body.error.message).toContain(prop);
    }
    expect(await snapshot(h)).toEqual(before);
  });

  it('reports every invalid prop at once, each with its code and message, and creates no source', async () => {
    const before = await snapshot(h);
    const response = await h.request('POST', '/v1/sources', {
      body: { component_code: INPUTS, configured_props: { repeat: 9, loud: 'maybe', nope: 1 } },
    });
    expect(response.status).toBe(400);
    const { error } = response.body;
    // The first failure stays in `code` and `details.prop` for clients that read one.
    expect(error).toMatchObject({ code: 'PROP_UNKNOWN', details: { prop: 'nope' } });
    expect(error.details.errors).toEqual([
      { prop: 'nope', code: 'PROP_UNKNOWN', message: expect.stringContaining('unknown prop "nope"') },
      { prop: 'apiKey', code: 'PROP_REQUIRED', message: 'prop "apiKey" is required (string)' },
      { prop: 'repeat', code: 'PROP_INVALID', message: 'prop "repeat" must be <= 5, got 9' },
      { prop: 'loud', code: 'PROP_INVALID', message: expect.stringContaining('prop "loud"') },
      { prop: 'size', code: 'PROP_REQUIRED', message: 'prop "size" is required (string)' },
    ]);
    expect(error.message).toMatch(/^5 props are not valid: unknown prop "nope".*; prop "size" is required \(string\)$/);
    // An update is checked the same way, and changes nothing.
    const deployed = await h.request('POST', '/v1/sources', {
      body: { component_code: INPUTS, configured_props: { apiKey: 'k', size: 'l' } },
    });
    expect(deployed.status).toBe(200);
    const afterDeploy = await snapshot(h);
    const update = await h.request('PUT', `/v1/sources/${deployed.body.data.id as string}`, {
      body: { configured_props: { repeat: 0, size: 'm' } },
    });
    expect(update.status).toBe(400);
    expect(update.body.error.details.errors.map((entry: { prop: string }) => entry.prop)).toEqual(['repeat', 'size']);
    expect(await snapshot(h)).toEqual(afterDeploy);
    expect(before).not.toEqual(afterDeploy);
  });

  it('coerces values the way the runtime does and fills defaults (run sees the coerced values)', async () => {
    const deployed = await h.request('POST', '/v1/sources', {
      body: {
        component_code: INPUTS,
        configured_props: { apiKey: 'k', size: 'l', repeat: '3', loud: 'true', colors: 'red', meta: '{"a":1}' },
      },
    });
    expect(deployed.status).toBe(200);
    const event = await runAndRead(deployed.body.data.id);
    expect(event).toMatchObject({
      greeting: 'hi',
      repeat: 3,
      repeatType: 'number',
      loud: true,
      colors: ['red'],
      size: 'l',
      meta: { a: 1 },
      keyLength: 1,
      hasNote: false,
    });
  });
});

describe('secret props', () => {
  it('are encrypted at rest (not in the SQLite files), shown as [REDACTED], and reach run in clear', async () => {
    const secret = `sk_live_${randomUUID().replaceAll('-', '')}`;
    const deployed = await h.request('POST', '/v1/sources', {
      body: { component_code: INPUTS, configured_props: { apiKey: secret, size: 's' }, name: 'secretive' },
    });
    expect(deployed.status).toBe(200);
    const id = deployed.body.data.id as string;
    expect(deployed.body.data.configured_props).toEqual({ apiKey: '[REDACTED]', size: 's' });
    expect(deployed.text).not.toContain(secret);
    const read = await h.request('GET', `/v1/sources/${id}`);
    expect(read.body.data.configured_props.apiKey).toBe('[REDACTED]');
    expect(read.text).not.toContain(secret);
    expect((await h.request('GET', '/v1/users/me/sources?limit=100')).text).not.toContain(secret);

    const event = await runAndRead(id);
    expect(event).toMatchObject({ keyLength: secret.length, keyReversed: reversed(secret) });

    // Round-tripping "[REDACTED]" (what the API showed) keeps the secret; a new value replaces it.
    const same = await h.request('PUT', `/v1/sources/${id}`, {
      body: { configured_props: { apiKey: '[REDACTED]', size: 'l' } },
    });
    expect(same.status).toBe(200);
    expect(same.body.data.configured_props).toEqual({ apiKey: '[REDACTED]', size: 'l' });
    expect(await runAndRead(id)).toMatchObject({ keyReversed: reversed(secret), size: 'l' });

    // At rest: the stored value is sealed; no SQLite file (db, WAL, shared memory) holds the plaintext.
    const files = readdirSync(h.dataDir).filter((name) => name.startsWith('tributary.db'));
    expect(files).toContain('tributary.db');
    const sqlite = openSqlite(h.dbFile);
    try {
      const row = sqlite.prepare('SELECT configured_props FROM sources WHERE id = ?').get(id) as {
        configured_props: string;
      };
      const stored = JSON.parse(row.configured_props) as Record<string, unknown>;
      expect(stored['size']).toBe('l');
      expect(stored['apiKey']).toEqual({ $sealed: expect.stringMatching(/^v2:[0-9a-f]{16}:/) });
      expect(row.configured_props).not.toContain(secret);
      sqlite.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      sqlite.close();
    }
    for (const name of readdirSync(h.dataDir).filter((file) => file.startsWith('tributary.db'))) {
      const bytes = readFileSync(path.join(h.dataDir, name));
      expect(bytes.includes(Buffer.from(secret, 'utf8')), name).toBe(false);
    }

    const rotated = `sk_live_${randomUUID().replaceAll('-', '')}`;
    const replaced = await h.request('PUT', `/v1/sources/${id}`, { body: { configured_props: { apiKey: rotated } } });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data.configured_props.apiKey).toBe('[REDACTED]');
    expect(await runAndRead(id)).toMatchObject({ keyReversed: reversed(rotated) });
    for (const name of readdirSync(h.dataDir).filter((file) => file.startsWith('tributary.db'))) {
      const bytes = readFileSync(path.join(h.dataDir, name));
      expect(bytes.includes(Buffer.from(rotated, 'utf8')), name).toBe(false);
    }
  });
});

describe('the 64 KB limit per prop value', () => {
  it('refuses a value over 64 KB with PROP_TOO_LARGE on deploy and on update, and changes nothing', async () => {
    const big = 'x'.repeat(64 * 1024 + 1);
    const before = await snapshot(h);
    const deploy = await h.request('POST', '/v1/sources', {
      body: { component_code: INPUTS, configured_props: { apiKey: 'k', size: 's', blob: big } },
    });
    expect(deploy.status).toBe(400);
    expect(deploy.body.error).toMatchObject({ code: 'PROP_TOO_LARGE', details: { prop: 'blob' } });
    const bigObject = await h.request('POST', '/v1/sources', {
      body: {
        component_code: INPUTS,
        configured_props: {
          apiKey: 'k',
          size: 's',
          meta: { list: Array.from({ length: 9000 }, (_, i) => `item-${i}`) },
        },
      },
    });
    expect(bigObject.status).toBe(400);
    expect(bigObject.body.error).toMatchObject({ code: 'PROP_TOO_LARGE', details: { prop: 'meta' } });
    expect(await snapshot(h)).toEqual(before);

    // Just under the limit is fine (the JSON string with its quotes stays within 64 KB).
    const fits = await h.request('POST', '/v1/sources', {
      body: { component_code: INPUTS, configured_props: { apiKey: 'k', size: 's', blob: 'y'.repeat(64 * 1024 - 2) } },
    });
    expect(fits.status).toBe(200);
    const id = fits.body.data.id as string;
    const stored = await snapshot(h);
    const update = await h.request('PUT', `/v1/sources/${id}`, { body: { configured_props: { blob: big } } });
    expect(update.status).toBe(400);
    expect(update.body.error.code).toBe('PROP_TOO_LARGE');
    expect(await snapshot(h)).toEqual(stored);
    expect(await runAndRead(id)).toMatchObject({ blobLength: 64 * 1024 - 2 });
  });
});

describe('props across updates', () => {
  const V1 = `export default { key: "t-evolve", name: "Evolve", version: "0.0.1", type: "source",
    props: { a: { type: "string" }, b: { type: "integer", optional: true } },
    async run() { this.$emit({ a: this.a, b: this.b ?? null, c: this.c ?? null }); } };`;
  const V2 = `export default { key: "t-evolve", name: "Evolve", version: "0.0.2", type: "source",
    props: { a: { type: "string" }, c: { type: "integer", default: 7 } },
    async run() { this.$emit({ a: this.a, b: this.b ?? null, c: this.c }); } };`;
  const V3 = `export default { key: "t-evolve", name: "Evolve", version: "0.0.3", type: "source",
    props: { a: { type: "string" }, d: { type: "string" } },
    async run() { this.$emit({ a: this.a, d: this.d }); } };`;

  it('keeps configured values, merges updates over them, gives added props their default and drops removed ones', async () => {
    const deployed = await h.request('POST', '/v1/sources', {
      body: { component_code: V1, configured_props: { a: 'x', b: 3 } },
    });
    expect(deployed.status).toBe(200);
    const id = deployed.body.data.id as string;

    const merged = await h.request('PUT', `/v1/sources/${id}`, { body: { configured_props: { b: 4 } } });
    expect(merged.status).toBe(200);
    expect(merged.body.data.configured_props).toEqual({ a: 'x', b: 4 });

    // v2 drops b and adds c (default 7): the update succeeds and b is gone.
    const evolved = await h.request('PUT', `/v1/sources/${id}`, { body: { component_code: V2 } });
    expect(evolved.status).toBe(200);
    expect(evolved.body.data.configured_props).toEqual({ a: 'x' });
    expect(await runAndRead(id)).toEqual({ a: 'x', b: null, c: 7 });

    // v3 adds a required prop without a default: refused unless given, and nothing changes.
    const before = await snapshot(h);
    const missing = await h.request('PUT', `/v1/sources/${id}`, { body: { component_code: V3 } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'PROP_REQUIRED', details: { prop: 'd' } });
    expect(await snapshot(h)).toEqual(before);
    const given = await h.request('PUT', `/v1/sources/${id}`, {
      body: { component_code: V3, configured_props: { d: 'dee' } },
    });
    expect(given.status).toBe(200);
    expect(given.body.data.configured_props).toEqual({ a: 'x', d: 'dee' });
    expect(await runAndRead(id)).toEqual({ a: 'x', d: 'dee' });

    // A prop the code never declared is still refused on update.
    const unknown = await h.request('PUT', `/v1/sources/${id}`, { body: { configured_props: { zzz: 1 } } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'PROP_UNKNOWN', details: { prop: 'zzz' } });
  });
});

describe('timer props (F03)', () => {
  it('echoes { cron, interval_seconds }, refuses intervals under 15 s, and runs with the timer event', async () => {
    const code = fixture('f03-tick.mjs');
    const defaulted = await h.request('POST', '/v1/sources', { body: { component_code: code } });
    expect(defaulted.status).toBe(200);
    expect(defaulted.body.data.configured_props).toEqual({ timer: { cron: null, interval_seconds: 60 } });
    expect(defaulted.body.data.endpoint_url).toBeNull();

    const deployed = await h.request('POST', '/v1/sources', {
      body: { component_code: code, configured_props: { timer: { intervalSeconds: 15 } } },
    });
    expect(deployed.status).toBe(200);
    expect(deployed.body.data.configured_props).toEqual({ timer: { cron: null, interval_seconds: 15 } });
    const id = deployed.body.data.id as string;

    const before = await snapshot(h);
    const tooOften = await h.request('POST', '/v1/sources', {
      body: { component_code: code, configured_props: { timer: { intervalSeconds: 5 } } },
    });
    expect(tooOften.status).toBe(400);
    expect(tooOften.body.error).toMatchObject({ code: 'PROP_INVALID', details: { prop: 'timer' } });
    const updateTooOften = await h.request('PUT', `/v1/sources/${id}`, {
      body: { configured_props: { timer: { intervalSeconds: 5 } } },
    });
    expect(updateTooOften.status).toBe(400);
    expect(updateTooOften.body.error.code).toBe('PROP_INVALID');
    const cronTooOften = await h.request('POST', '/v1/sources', {
      body: { component_code: code, configured_props: { timer: { cron: '* * * * * *' } } },
    });
    expect(cronTooOften.status).toBe(400);
    expect(cronTooOften.body.error.code).toBe('PROP_INVALID');
    expect(await snapshot(h)).toEqual(before);

    // RUN NOW without an event gives run a timer event of the configured schedule.
    const event = await runAndRead(id);
    expect(event['every']).toBe(15);
    expect(Math.abs((event['at'] as number) - Date.now() / 1000)).toBeLessThan(60);

    const cron = await h.request('PUT', `/v1/sources/${id}`, {
      body: { configured_props: { timer: { cron: '*/5 * * * *' } } },
    });
    expect(cron.status).toBe(200);
    expect(cron.body.data.configured_props).toEqual({ timer: { cron: '*/5 * * * *', interval_seconds: null } });

    // The next fire time follows the schedule and is cleared while inactive.
    const nextFire = async () =>
      readRows<{ next_fire_at: number | null }>(h.dbFile, 'SELECT next_fire_at FROM sources WHERE id = ?', id)[0]
        ?.next_fire_at;
    expect(await nextFire()).toBeGreaterThan(Date.now());
    // The API shows it as next_run_at (epoch seconds): the next five-minute mark.
    const shown = (await h.request('GET', `/v1/sources/${id}`)).body.data.next_run_at as number;
    expect(shown).toBe(Math.floor(((await nextFire()) ?? 0) / 1000));
    expect(shown % 300).toBe(0);
    const paused = await h.request('PUT', `/v1/sources/${id}`, { body: { active: false } });
    expect(paused.status).toBe(200);
    expect(paused.body.data.next_run_at).toBeNull();
    expect(await nextFire()).toBeNull();
    expect((await h.request('PUT', `/v1/sources/${id}`, { body: { active: true } })).status).toBe(200);
    expect(await nextFire()).toBeGreaterThan(Date.now());
  });
});
