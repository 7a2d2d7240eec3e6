/**
 * Durable workflow runs with the real binary: `tributary start` is killed with SIGKILL while a
 * run is inside its second step, and while another run waits on $.flow.delay; after a restart on
 * the same data dir each run resumes at its first unfinished step. A loopback HTTP server counts
 * how often each step really ran: a checkpointed step never runs again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../tools/test-support/tributary-server.js';
import { REPO, waitFor } from './ingress-harness.js';
import type { AnyJson } from './server-harness.js';

const BIN = path.join(REPO, 'packages/cli/bin/tributary.js');
const KEY = 'trb_workflow_durability_admin_key_0123456789';
const PING = readFileSync(path.join(REPO, 'fixtures/components/workflows/ping-step.mjs'), 'utf8');
// The kill must come while the run waits: the fixture's 1.5 s delay could end (and the next step
// ping) before step "two" of the other run starts on a loaded machine, so this one waits 10 s.
const DELAY = "export default defineComponent({ async run({ $ }) { $.flow.delay(10_000); return 'waited'; } });";

interface Life {
  readonly child: ChildProcess;
  readonly base: string;
  readonly exited: Promise<NodeJS.Signals | null>;
}

async function start(dataDir: string, cacheDir: string): Promise<Life> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'start', '--port', String(port), '--data-dir', dataDir], {
    cwd: REPO,
    env: { ...process.env, TRIBUTARY_ADMIN_KEY: KEY, TRIBUTARY_CACHE_DIR: cacheDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.once('exit', (_code, signal) => resolve(signal)),
  );
  const stderr: string[] = [];
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready: ${stderr.join('')}`)), 60_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (/ ready: API /.test(line)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', () => reject(new Error(`exited before ready: ${stderr.join('')}`)));
  });
  return { child, base: `http://127.0.0.1:${port}`, exited };
}

async function api<T = AnyJson>(life: Life, method: string, url: string, body?: unknown): Promise<T> {
  const response = await fetch(`${life.base}${url}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${url}: ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

describe('workflow runs across kill -9 (real binary)', () => {
  let dataDir: string;
  let cacheDir: string;
  let counter: Server;
  let counterUrl: string;
  const hits = new Map<string, number>();
  const lives: Life[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-wf-durability-data-'));
    cacheDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-wf-durability-cache-'));
    counter = createServer((request, response) => {
      hits.set(request.url ?? '', (hits.get(request.url ?? '') ?? 0) + 1);
      response.end('ok');
    });
    await new Promise<void>((resolve) => counter.listen(0, '127.0.0.1', resolve));
    counterUrl = `http://127.0.0.1:${(counter.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    for (const life of lives) {
      if (life.child.exitCode === null && life.child.signalCode === null) life.child.kill('SIGKILL');
      await life.exited;
    }
    counter.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(cacheDir, { recursive: true, force: true });
  });

  it(
    'resumes each run at its first unfinished step and never reruns a finished one',
    { timeout: 240_000 },
    async () => {
      const first = await start(dataDir, cacheDir);
      lives.push(first);
      const ping = (name: string, waitMs?: number) => ({
        name,
        code: PING,
        props: { url: `${counterUrl}/${name}`, ...(waitMs ? { waitMs } : {}) },
      });
      const steps = await api(first, 'POST', '/v1/workflows', {
        name: 'three pings',
        trigger: { type: 'manual' },
        steps: [ping('one'), ping('two', 8000), ping('three')],
      });
      const delayed = await api(first, 'POST', '/v1/workflows', {
        name: 'delay then ping',
        trigger: { type: 'manual' },
        steps: [{ name: 'wait', code: DELAY }, ping('after')],
      });
      const run = (await api(first, 'POST', `/v1/workflows/${steps.data.id}/run`, { event: { n: 1 } })).data.run_id;
      const waiting = (await api(first, 'POST', `/v1/workflows/${delayed.data.id}/run`, {})).data.run_id;
      // Kill while step "two" is running (it pinged, then waits) and the other run is delayed.
      await waitFor(() => ((hits.get('/two') ?? 0) >= 1 ? true : undefined), 'step two to start', 60_000, 20);
      await waitFor(
        async () =>
          (await api(first, 'GET', `/v1/workflow-runs/${waiting}`)).data.status === 'delayed' ? true : undefined,
        'the delayed run',
        60_000,
        20,
      );
      first.child.kill('SIGKILL');
      expect(await first.exited).toBe('SIGKILL');
      expect(hits.get('/after')).toBeUndefined();

      const second = await start(dataDir, cacheDir);
      lives.push(second);
      const done = async (id: string) =>
        waitFor(
          async () => {
            const data = (await api(second, 'GET', `/v1/workflow-runs/${id}`)).data;
            return ['succeeded', 'failed'].includes(data.status) ? data : undefined;
          },
          `run ${id} to finish`,
          90_000,
          100,
        );
      const resumed = await done(run);
      expect(resumed.status).toBe('succeeded');
      expect(resumed.steps.map((step: { status: string }) => step.status)).toEqual([
        'succeeded',
        'succeeded',
        'succeeded',
      ]);
      const afterDelay = await done(waiting);
      expect(afterDelay.status).toBe('succeeded');
      // "one" finished before the kill: never again. "two" was unfinished: it ran again. "three" once.
      expect(Object.fromEntries(hits)).toEqual({ '/one': 1, '/two': 2, '/three': 1, '/after': 1 });
      second.child.kill('SIGTERM');
      await second.exited;
    },
  );
});
