/**
 * The Redis settings of `tributary start`: how they are read, and what an operator sees when the
 * Redis cannot be used. No Redis needed: the unreachable one is a port nothing listens on.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../tools/test-support/tributary-server.js';
import { loadServerConfig } from '../src/start/server-config.js';
import { tributary } from './cli-process.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-redis-config-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('tributary start: Redis settings', () => {
  it('keeps everything in the process unless a Redis URL is given, by flag or variable', () => {
    expect(loadServerConfig({}, {})).toMatchObject({ redisUrl: null, redisPrefix: 'tributary:' });
    // An empty variable (a compose file's `TRIBUTARY_REDIS_URL=`) means "not set".
    expect(loadServerConfig({}, { TRIBUTARY_REDIS_URL: '' }).redisUrl).toBeNull();
    const fromEnv = loadServerConfig(
      {},
      { TRIBUTARY_REDIS_URL: 'redis://10.0.0.5:6379/2', TRIBUTARY_REDIS_PREFIX: 'staging:' },
    );
    expect(fromEnv).toMatchObject({ redisUrl: 'redis://10.0.0.5:6379/2', redisPrefix: 'staging:' });
    const flagWins = loadServerConfig(
      { redisUrl: 'rediss://cache.internal:6380' },
      { TRIBUTARY_REDIS_URL: 'redis://10.0.0.5:6379' },
    );
    expect(flagWins.redisUrl).toBe('rediss://cache.internal:6380');
  });

  it('refuses a URL that is not redis:// or rediss://, and an empty prefix, naming both', () => {
    expect(() => loadServerConfig({ redisUrl: 'http://127.0.0.1:6379' }, { TRIBUTARY_REDIS_PREFIX: '' })).toThrowError(
      /redisUrl: must be a redis:\/\/ or rediss:\/\/ URL; redisPrefix: /,
    );
  });

  it('stops with one line naming the unreachable Redis (not its password), exit code 2, creating nothing', async () => {
    const port = await freePort();
    const dataDir = path.join(scratch, 'data');
    const result = await tributary([
      'start',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--redis-url',
      `redis://tributary:s3cret-pw@127.0.0.1:${port}`,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      `error REDIS_UNREACHABLE: cannot reach Redis at redis://tributary:***@127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`,
    ]);
    expect(result.stdout + result.stderr).not.toContain('s3cret-pw');
    expect(result.stdout).not.toContain('Admin API key');
    expect(existsSync(dataDir)).toBe(false);
  });

  it('refuses a role other than all without PostgreSQL and Redis, naming both, exit code 2, creating nothing', async () => {
    expect(loadServerConfig({}, {}).role).toBe('all');
    expect(
      loadServerConfig(
        {},
        { TRIBUTARY_ROLE: 'api', TRIBUTARY_DATABASE_URL: 'postgres://db/t', TRIBUTARY_REDIS_URL: 'redis://r:6379' },
      ).role,
    ).toBe('api');
    const dataDir = path.join(scratch, 'role');
    const result = await tributary(['start', '--role', 'worker', '--data-dir', dataDir]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      'error USAGE_ERROR: invalid configuration: databaseUrl: --role worker shares the work with other processes: it needs TRIBUTARY_DATABASE_URL (only --role all runs alone); redisUrl: --role worker shares the work with other processes: it needs TRIBUTARY_REDIS_URL (only --role all runs alone)',
    ]);
    expect(existsSync(dataDir)).toBe(false);
    const unknown = await tributary(['start', '--role', 'everything', '--data-dir', dataDir]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('role: Invalid option: expected one of "all"|"api"|"worker"|"scheduler"');
  });
});
