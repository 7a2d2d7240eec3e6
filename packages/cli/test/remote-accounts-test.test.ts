/**
 * `tributary accounts test <id>` against a real `tributary start`: the app's "who am I" request
 * (an API on loopback that accepts one key) answers 2xx → exit 0; a refused key → exit 1 with the
 * error code, and the key never printed.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, remoteCli, startServer, type ServerProcess } from './server-process.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-accounts-test-cli-'));
const configHome = path.join(scratch, 'config');
const cli = remoteCli(configHome);
let api: Server;
let server: ServerProcess;
let accepted = 'key-good';

beforeAll(async () => {
  api = createServer((request, response) => {
    response.writeHead(request.headers['x-api-key'] === accepted ? 200 : 401).end('{}');
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  const appsFile = path.join(scratch, 'apps.json');
  writeFileSync(
    appsFile,
    JSON.stringify({
      apps: [
        {
          slug: 'keyapi',
          name: 'Key API',
          auth_type: 'keys',
          fields: [{ name: 'api_key', label: 'API key', secret: true }],
          test_request: {
            method: 'GET',
            url: `http://127.0.0.1:${(api.address() as { port: number }).port}/whoami`,
            headers: { 'X-Api-Key': '{{api_key}}' },
          },
        },
      ],
    }),
  );
  server = await startServer({ TRIBUTARY_APPS_FILE: appsFile });
  const login = await cli(['login', '--api-url', server.base, '--api-key', ADMIN_KEY]);
  expect(login.code, login.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  api?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('tributary accounts test', () => {
  it('exits 0 when the test request answers, 1 with the error code when it refuses the key', async () => {
    const created = await server.api<{ data: { id: string } }>('POST', '/v1/accounts', {
      app: 'keyapi',
      fields: { api_key: 'key-good' },
    });
    const id = created.body.data.id;
    const ok = await cli(['accounts', 'test', id]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain(`Account ${id} works: the keyapi test request answered HTTP 200`);
    accepted = 'key-other';
    const refused = await cli(['accounts', 'test', id]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('error ACCOUNT_TEST_FAILED');
    expect(refused.stderr).toContain('answered HTTP 401');
    expect(refused.stdout + refused.stderr).not.toContain('key-good');
    const json = await cli(['accounts', 'test', id, '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ account: id, status: 'error', http_status: 401 });
  });
});
