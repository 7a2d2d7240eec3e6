/**
 * Names given through the API (sources, connected accounts, API keys, apps) are text a person
 * reads: a NUL byte, another control character or a lone UTF-16 surrogate is refused with
 * VALIDATION_FAILED naming the field, and nothing is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, snapshot, startHarness, type Harness } from './server-harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.close({ remove: true });
});

const BAD_NAMES = ['nul\u0000byte', 'lone \ud800 high', 'lone \udfff low', 'bell\u0007', 'line\nbreak'];

async function accountCount(): Promise<number> {
  const listed = await h.request('GET', '/v1/accounts?limit=100');
  return listed.body.data.length as number;
}

function expectRefused(
  response: { status: number; body: { error: { code: string; message: string; details: { field?: string } } } },
  field: string,
  name: string,
): void {
  expect(response.status, JSON.stringify(name)).toBe(400);
  expect(response.body.error.code).toBe('VALIDATION_FAILED');
  expect(response.body.error.details.field).toBe(field);
  expect(response.body.error.message).toContain(field);
}

describe('names with NUL bytes, control characters or lone surrogates', () => {
  it('are refused for sources on deploy and on update, and nothing changes', async () => {
    const deployed = await h.request('POST', '/v1/sources', {
      body: { component_code: fixture('f02-counter.mjs'), name: 'good name' },
    });
    expect(deployed.status).toBe(200);
    const id = deployed.body.data.id as string;
    const before = await snapshot(h);
    for (const name of BAD_NAMES) {
      expectRefused(
        await h.request('POST', '/v1/sources', { body: { component_code: fixture('f02-counter.mjs'), name } }),
        'body.name',
        name,
      );
      expectRefused(await h.request('PUT', `/v1/sources/${id}`, { body: { name } }), 'body.name', name);
    }
    expect(await snapshot(h)).toEqual(before);
    expect((await h.request('GET', `/v1/sources/${id}`)).body.data.name).toBe('good name');
  });

  it('are refused for connected accounts and API keys, and nothing is stored', async () => {
    const before = await snapshot(h);
    const accounts = await accountCount();
    for (const name of BAD_NAMES) {
      expectRefused(
        await h.request('POST', '/v1/accounts', {
          body: { app: 'github', name, fields: { oauth_access_token: 'gh-token' } },
        }),
        'body.name',
        name,
      );
      expectRefused(await h.request('POST', '/v1/api_keys', { body: { name } }), 'body.name', name);
    }
    expect(await accountCount()).toBe(accounts);
    expect(await snapshot(h)).toEqual(before);
  });

  it('still accepts ordinary Unicode names, astral characters included', async () => {
    const created = await h.request('POST', '/v1/api_keys', { body: { name: 'clé 🔑 — ключ' } });
    expect(created.status).toBe(201);
    expect(created.body.data.name).toBe('clé 🔑 — ключ');
  });
});
