// Several real `tributary start` processes for the benchmarks that need them (reliability, scale):
// a process that can be killed and started again on its own port and data directory, a fresh
// PostgreSQL database and Redis key prefix with their clean-up, and a small REST client.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import process from 'node:process';
import { createInterface } from 'node:readline';
import { clearTimeout, setTimeout } from 'node:timers';
import { Buffer } from 'node:buffer';
import { URL } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { CLI_BIN, REPO_DIR } from './server-lib.mjs';

export const KEY = 'trb_reliability_admin_key_0123456789';
const PG_SERVER = process.env.TRIBUTARY_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.TRIBUTARY_TEST_REDIS_URL || 'redis://127.0.0.1:6379';

/** One HTTP request; resolves { status, body } or rejects on a connection failure. */
export function call(base, method, route, body) {
  const payload = body === undefined ? null : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      new URL(route, base),
      {
        method,
        agent: false,
        timeout: 30_000,
        headers: {
          authorization: `Bearer ${KEY}`,
          ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON: kept as text
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(payload ?? undefined);
  });
}

/** A `tributary start` on a fixed port and data directory that can be killed and started again. */
export class Node {
  constructor(name, port, dataDir, env, role = 'all') {
    this.name = name;
    this.role = role;
    this.port = port;
    this.base = `http://127.0.0.1:${port}`;
    this.dataDir = dataDir;
    this.env = env;
    this.child = undefined;
    this.up = false;
    this.lines = [];
  }

  async start() {
    const child = spawn(process.execPath, [CLI_BIN, 'start', '--role', this.role], {
      cwd: REPO_DIR,
      env: {
        ...process.env,
        NO_COLOR: '1',
        TRIBUTARY_PORT: String(this.port),
        TRIBUTARY_HOST: '127.0.0.1',
        TRIBUTARY_ADMIN_KEY: KEY,
        TRIBUTARY_DATA_DIR: this.dataDir,
        TRIBUTARY_LOG_LEVEL: 'warn',
        TRIBUTARY_ENDPOINT_RATE_PER_S: '0',
        ...this.env,
      },
    });
    this.child = child;
    const lines = [];
    this.lines = lines;
    createInterface({ input: child.stderr }).on('line', (line) => lines.push(line));
    await new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${this.name} printed no ready line:\n${lines.join('\n')}`)),
        120_000,
      );
      createInterface({ input: child.stdout }).on('line', (line) => {
        lines.push(line);
        if (line.includes(' ready: API ') || line.includes(` ready (role ${this.role})`)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.on('exit', () => {
        clearTimeout(timer);
        reject(new Error(`${this.name} exited before it was ready:\n${lines.join('\n')}`));
      });
    });
    this.up = true;
  }

  async kill() {
    this.up = false;
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  async stop() {
    this.up = false;
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(killer);
  }
}

/**
 * A fresh PostgreSQL database and Redis prefix: resolves with the processes' environment and a
 * clean-up that drops the database and deletes the keys.
 */
export async function sharedBackends(label) {
  const name = `tributary_${label}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_SERVER });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(PG_SERVER);
  url.pathname = `/${name}`;
  const prefix = `tributary-${label}-${randomBytes(5).toString('hex')}:`;
  const cleanup = async () => {
    const client = new pg.Client({ connectionString: PG_SERVER });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.end();
    const redis = new Redis(REDIS_URL);
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
    await redis.quit();
  };
  return {
    databaseUrl: url.toString(),
    env: { TRIBUTARY_DATABASE_URL: url.toString(), TRIBUTARY_REDIS_URL: REDIS_URL, TRIBUTARY_REDIS_PREFIX: prefix },
    cleanup,
  };
}
