/**
 * `tributary status` against a real `tributary start` (docs/operations.md): version, readiness,
 * queue, pool and recent failures linked to their source's logs or workflow run; and the start
 * command's metrics settings.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES } from './cli-process.js';
import { ADMIN_KEY, remoteCli, startServer, type ServerProcess } from './server-process.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-status-cli-'));
const cli = remoteCli(path.join(scratch, 'config'));
let server: ServerProcess;

beforeAll(async () => {
  server = await startServer({ TRIBUTARY_SOURCE_TIMEOUT_MS: '1000', TRIBUTARY_METRICS_PUBLIC: 'true' });
}, 60_000);

afterAll(async () => {
  await server.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe('tributary status', () => {
  it('shows version, readiness, queue, pool and recent failures with a link to their source or run', async () => {
    const connection = ['--api-url', server.base, '--api-key', ADMIN_KEY];
    const quiet = await cli(['status', ...connection]);
    expect(quiet.code).toBe(0);
    expect(quiet.stdout).toMatch(new RegExp(`^Tributary \\S+ at ${server.base}: ready, up \\d+s \\(sqlite\\)\\n`));
    expect(quiet.stdout).toContain('Queue: 0 source invocations, 0 workflow runs, 0 deliveries\n');
    expect(quiet.stdout).toContain('Recent failures: none\n');

    const deployed = await server.api<{ data: { id: string; endpoint_url: string } }>('POST', '/v1/sources', {
      component_code: readFileSync(path.join(FIXTURES, 'server/stuck-run.mjs'), 'utf8'),
      name: 'stuck one',
    });
    expect(deployed.status).toBe(200);
    const endpoint = new URL(deployed.body.data.endpoint_url);
    const sent = await fetch(`${server.base}${endpoint.pathname}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ stuck: true }),
    });
    expect(sent.status).toBe(200);

    let json: { recent_failures: { source_id: string; code: string }[]; pool: { workers: number } } | undefined;
    for (let attempt = 0; attempt < 100 && !json?.recent_failures.length; attempt += 1) {
      const result = await cli(['status', '--json', ...connection]);
      expect(result.code).toBe(0);
      json = JSON.parse(result.stdout) as typeof json;
      if (!json?.recent_failures.length) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(json?.recent_failures[0]).toMatchObject({ source_id: deployed.body.data.id, code: 'TIMEOUT' });
    expect(json?.pool.workers).toBeGreaterThanOrEqual(1);

    const workflow = await server.api<{ data: { id: string } }>('POST', '/v1/workflows', {
      name: 'breaks',
      trigger: { type: 'manual' },
      steps: [{ name: 'boom', code: "export default defineComponent({ async run() { throw new Error('no'); } });" }],
    });
    const run = await server.api<{ data: { run_id: string } }>(
      'POST',
      `/v1/workflows/${workflow.body.data.id}/run`,
      {},
    );
    let text = await cli(['status', ...connection]);
    for (let attempt = 0; attempt < 100 && !text.stdout.includes('workflow breaks'); attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      text = await cli(['status', ...connection]);
    }
    expect(text.stdout).toMatch(/Pool: \d+ workers?, \d+ busy, \d+ MB\n/);
    // Newest first: the workflow run, linked to its inspector, then the source, linked to its logs.
    expect(text.stdout).toMatch(
      new RegExp(
        [
          'Recent failures:',
          '\\s*WHEN\\s+WHAT\\s+CODE\\s+SEE\\s*',
          `.*workflow breaks, step boom\\s+COMPONENT_ERROR\\s+${server.base}/workflows/${workflow.body.data.id}/runs/${run.body.data.run_id}`,
          `.*source stuck one\\s+TIMEOUT\\s+${server.base}/sources/${deployed.body.data.id}/logs`,
        ].join('\\n'),
      ),
    );
  });

  it('serves /metrics without a key when TRIBUTARY_METRICS_PUBLIC is set, and /readyz', async () => {
    const metrics = await fetch(`${server.base}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/^tributary_queue_depth\{kind="source"\} \d+$/m);
    const ready = await fetch(`${server.base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
  });

  it('fails with exit code 2 when the server cannot be reached', async () => {
    const result = await cli(['status', '--api-url', 'http://127.0.0.1:9', '--api-key', ADMIN_KEY]);
    expect(result.code).toBe(2);
  });
});
