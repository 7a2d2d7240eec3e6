/**
 * The log of `tributary start` (docs/operations.md#logs): one pino log for Fastify and the engine,
 * JSON lines when stderr is not a terminal, lines about an invocation carrying its source and
 * invocation ids, pretty lines on request, and never an API key or an endpoint id in any line.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, REPO } from './cli-process.js';
import { ADMIN_KEY, startServer, type ServerProcess } from './server-process.js';

/** better-sqlite3 (a dependency of the engine), to make the server's commits fail for a while. */
const openSqlite = (() => {
  const require = createRequire(path.join(REPO, 'packages/engine/package.json'));
  const Database = require('better-sqlite3') as new (file: string) => {
    prepare(sql: string): { run(): unknown };
    close(): void;
  };
  return (file: string) => new Database(file);
})();

interface Line {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

const servers: ServerProcess[] = [];

afterAll(async () => {
  for (const server of servers) await server.stop();
});

async function until<T>(check: () => T | undefined, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('tributary start logs', () => {
  let server: ServerProcess;

  beforeAll(async () => {
    server = await startServer({ TRIBUTARY_LOG_LEVEL: 'debug', TRIBUTARY_SOURCE_TIMEOUT_MS: '1000' });
    servers.push(server);
  }, 60_000);

  /** Every line the server wrote except the ready line (stdout), parsed: each must be JSON. */
  const logLines = (): Line[] =>
    server.lines.filter((line) => !/ ready: API /.test(line)).map((line) => JSON.parse(line) as Line);

  it('writes JSON lines, with source and invocation ids on the lines about an invocation', async () => {
    const deployed = await server.api<{ data: { id: string; endpoint_url: string } }>('POST', '/v1/sources', {
      component_code: readFileSync(path.join(FIXTURES, 'server/stuck-run.mjs'), 'utf8'),
      name: 'logged',
    });
    expect(deployed.status).toBe(200);
    const sourceId = deployed.body.data.id;
    const endpointPath = new URL(deployed.body.data.endpoint_url).pathname;
    const endpointId = endpointPath.split('/')[2] ?? '';
    const send = (body: unknown, suffix = '') =>
      fetch(`${server.base}${endpointPath}${suffix}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((response) => response.status);
    // A run that succeeds, one that hits its deadline, keys in queries and headers, bad keys.
    expect(await send({ stuck: false }, `/hook?token=${ADMIN_KEY}`)).toBe(200);
    expect(await send({ stuck: true })).toBe(200);
    const sse = new AbortController();
    expect(
      (await fetch(`${server.base}/sources/${sourceId}/sse?token=${ADMIN_KEY}`, { signal: sse.signal })).status,
    ).toBe(200);
    sse.abort();
    expect(
      (await fetch(`${server.base}/v1/users/me/sources`, { headers: { authorization: `Bearer ${ADMIN_KEY}x` } }))
        .status,
    ).toBe(401);
    expect((await fetch(`${server.base}/e/${endpointId}zz?token=${ADMIN_KEY}`)).status).toBe(404);

    const finished = await until(() => {
      const lines = logLines().filter((line) => line.msg === 'invocation finished');
      return lines.length >= 2 ? lines : undefined;
    }, 'both invocations to finish');
    expect(finished.map((line) => line.outcome).sort()).toEqual(['success', 'timeout']);
    for (const line of finished) {
      expect(line).toMatchObject({ level: 20, source_id: sourceId, invocation_id: expect.stringMatching(/^inv_/) });
      expect(line.ms).toEqual(expect.any(Number));
    }
    // Fastify's request lines go through the same log.
    expect(logLines().some((line) => line.msg === 'request' && line.route === '/e/:endpointId/*')).toBe(true);

    // A platform failure (commits refused by the database) is a warning with the same ids.
    const sqlite = openSqlite(path.join(server.scratch ?? '', 'data', 'tributary.db'));
    sqlite
      .prepare("CREATE TRIGGER refuse_logs BEFORE INSERT ON logs BEGIN SELECT RAISE(ABORT, 'disk full'); END")
      .run();
    try {
      expect(await send({ stuck: false })).toBe(200);
      const failure = await until(
        () => logLines().find((line) => / failed in the platform: disk full/.test(line.msg)),
        'the platform failure line',
      );
      expect(failure).toMatchObject({ level: 40, source_id: sourceId, invocation_id: expect.stringMatching(/^inv_/) });
    } finally {
      sqlite.prepare('DROP TRIGGER refuse_logs').run();
      sqlite.close();
    }

    const everything = server.lines.join('\n');
    expect(everything).not.toContain(ADMIN_KEY);
    expect(everything).not.toContain(endpointId);
  });

  it('writes pretty lines when TRIBUTARY_LOG_FORMAT=pretty (the default on a terminal)', async () => {
    const pretty = await startServer({ TRIBUTARY_LOG_FORMAT: 'pretty' });
    servers.push(pretty);
    const listening = await until(
      () => pretty.lines.find((line) => line.includes('Server listening')),
      'the listening line',
    );
    expect(listening).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: Server listening at http:\/\/127\.0\.0\.1:\d+$/);
  });
});
