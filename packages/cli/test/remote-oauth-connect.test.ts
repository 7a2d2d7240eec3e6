/**
 * `tributary accounts connect` against a real `tributary start` and an OAuth 2 / OpenID provider on
 * loopback (oauth2-mock-server): the command prints the sign-in URL and waits; the test is the
 * browser. A refused sign-in and an app without OAuth settings end the command with exit 1 and the
 * error code, and create no account.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OAuth2Server } from 'oauth2-mock-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followOAuthSignIn, mockIdpServerEnv } from '../../../tools/test-support/oauth-sign-in.js';
import { ADMIN_KEY, CliProcess, remoteCli, startServer, type ServerProcess } from './server-process.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-oauth-cli-'));
const configHome = path.join(scratch, 'config');
const cli = remoteCli(configHome);
const cliEnv = { XDG_CONFIG_HOME: configHome, TRIBUTARY_API_URL: '', TRIBUTARY_API_KEY: '', NO_COLOR: '1' };
let provider: OAuth2Server;
let server: ServerProcess;

beforeAll(async () => {
  provider = new OAuth2Server();
  await provider.issuer.keys.generate('RS256');
  await provider.start(0, '127.0.0.1');
  const issuer = provider.issuer.url ?? '';
  const oauth = {
    authorize_url: `${issuer}/authorize`,
    token_url: `${issuer}/token`,
    userinfo_url: `${issuer}/userinfo`,
  };
  server = await startServer(mockIdpServerEnv(scratch, oauth, { id: 'cli-client', secret: 'cli-secret' }));
  const login = await cli(['login', '--api-url', server.base, '--api-key', ADMIN_KEY]);
  expect(login.code, login.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await provider?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

async function printedUrl(command: CliProcess): Promise<string> {
  await command.waitForStderr(/\/v1\/oauth\/start\?\S+/);
  return /(http:\/\/\S+\/v1\/oauth\/start\?\S+)/.exec(command.stderr.join(''))?.[1] ?? '';
}

async function accountCount(): Promise<number> {
  const listed = await server.api<{ page_info: { total_count: number } }>('GET', '/v1/accounts?limit=100');
  return listed.body.page_info.total_count;
}

describe('tributary accounts connect', () => {
  it('prints the URL, waits for the sign-in, and reports the stored account', async () => {
    const command = new CliProcess(['accounts', 'connect', 'mockidp', '--no-browser'], cliEnv);
    const url = await printedUrl(command);
    expect(url.startsWith(`${server.base}/v1/oauth/start?`)).toBe(true);
    expect(await followOAuthSignIn(url)).toBe(200);
    expect(await command.exited).toBe(0);
    const line = command.lines.find((text) => text.startsWith('Connected account apn_')) ?? '';
    const id = /apn_\w+/.exec(line)?.[0] ?? '';
    const account = await server.api<{ data: Record<string, unknown> }>('GET', `/v1/accounts/${id}`);
    expect(account.body.data).toMatchObject({ app: 'mockidp', status: 'ok', oauth: { uid: 'johndoe' } });
    const listed = await cli(['accounts', 'list', '--app', 'mockidp']);
    expect(listed.stdout).toMatch(new RegExp(`${id}\\s+mockidp\\s+.*\\s+ok\\s`));
  });

  it('exits 1 with OAUTH_ACCESS_DENIED when the provider sends the user back with an error', async () => {
    provider.service.once('beforeAuthorizeRedirect', (redirect: { url: URL }) => {
      redirect.url.searchParams.delete('code');
      redirect.url.searchParams.set('error', 'access_denied');
    });
    const before = await accountCount();
    const command = new CliProcess(['accounts', 'connect', 'mockidp', '--no-browser'], cliEnv);
    expect(await followOAuthSignIn(await printedUrl(command))).toBe(400);
    expect(await command.exited).toBe(1);
    expect(command.stderr.join('')).toContain('OAUTH_ACCESS_DENIED');
    expect(await accountCount()).toBe(before);
  });

  it('exits 1 with OAUTH_NOT_CONFIGURED for an app that does not sign in through OAuth', async () => {
    const result = await cli(['accounts', 'connect', 'acme', '--no-browser']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('OAUTH_NOT_CONFIGURED');
  });

  it('sets an OAuth client and prints the redirect URI to register', async () => {
    const result = await cli([
      'accounts',
      'oauth-client',
      'github',
      '--client-id',
      'Iv1.abc',
      '--client-secret',
      's3cret',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Register this redirect URI at the provider: ${server.base}/v1/oauth/callback`);
    expect(result.stdout).not.toContain('s3cret');
  });
});
