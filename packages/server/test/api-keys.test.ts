/**
 * API keys management over the REST API (issue 6's Settings screen): create (the key shown once),
 * list (never the key), revoke (the key gets 401 from then on), and the last active key kept.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './server-harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.close({ remove: true });
});

describe('API keys', () => {
  it('creates a key shown once, lists it without the key, and revokes it (then 401)', async () => {
    const created = await h.request('POST', '/v1/api_keys', { body: { name: 'ci' } });
    expect(created.status).toBe(201);
    const key = created.body.data.key as string;
    expect(key).toMatch(/^trb_[0-9A-Za-z]{48}$/);
    expect(created.body.data).toEqual({
      id: expect.stringMatching(/^key_/),
      name: 'ci',
      prefix: key.slice(0, 8),
      created_at: expect.any(Number),
      last_used_at: null,
      revoked_at: null,
      key,
    });

    const used = await h.request('GET', '/v1/users/me', { key });
    expect(used.status).toBe(200);
    const listed = await h.request('GET', '/v1/api_keys');
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain(key);
    const entry = listed.body.data.find((row: { id: string }) => row.id === created.body.data.id);
    expect(entry).toEqual({
      id: created.body.data.id,
      name: 'ci',
      prefix: key.slice(0, 8),
      created_at: created.body.data.created_at,
      last_used_at: expect.any(Number),
      revoked_at: null,
    });
    expect(listed.body.page_info.total_count).toBe(2);

    const revoked = await h.request('DELETE', `/v1/api_keys/${created.body.data.id as string}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({});
    const refused = await h.request('GET', '/v1/users/me', { key });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('UNAUTHORIZED');
    const after = await h.request('GET', '/v1/api_keys');
    expect(after.body.data.find((row: { id: string }) => row.id === created.body.data.id).revoked_at).toEqual(
      expect.any(Number),
    );
    // Revoking again is harmless.
    expect((await h.request('DELETE', `/v1/api_keys/${created.body.data.id as string}`)).status).toBe(200);
  });

  it('refuses to revoke the last active key, an unknown key, and bad bodies', async () => {
    const keys = await h.request('GET', '/v1/api_keys');
    const active = keys.body.data.filter((row: { revoked_at: number | null }) => row.revoked_at === null);
    expect(active).toHaveLength(1);
    const last = await h.request('DELETE', `/v1/api_keys/${active[0].id as string}`);
    expect(last.status).toBe(400);
    expect(last.body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining('last active API key'),
    });
    expect((await h.request('GET', '/v1/users/me')).status).toBe(200);
    const unknown = await h.request('DELETE', '/v1/api_keys/key_nope');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
    for (const body of [{}, { name: '' }, { name: 3 }, { name: 'x', scope: 'all' }]) {
      const response = await h.request('POST', '/v1/api_keys', { body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_FAILED');
    }
    expect((await h.request('GET', '/v1/api_keys')).body.data).toEqual(keys.body.data);
    expect((await h.request('GET', '/v1/api_keys', { key: null })).status).toBe(401);
  });
});
