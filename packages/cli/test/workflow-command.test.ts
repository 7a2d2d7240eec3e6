/**
 * `tributary workflow ...` with the real binary: `workflow run` on this machine (offline, no
 * server), and deploy/list/describe/run-now/runs/logs/delete against a real `tributary start`.
 * The local run prints the same JSON a server run answers.
 */
import path from 'node:path';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FIXTURES, tributary } from './cli-process.js';
import { ADMIN_KEY, remoteCli, startServer, type ServerProcess } from './server-process.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const FILE = path.join(FIXTURES, 'workflows/signup.workflow.json');
const EVENT = JSON.stringify({ body: { email: 'ada@example.com' } });
const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-workflow-cli-'));
const cli = remoteCli(path.join(scratch, 'config'));
let server: ServerProcess;

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await server.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** The parts of a run that do not depend on where and when it ran. */
function portable(run: Record<string, unknown>) {
  const steps = run['steps'] as Record<string, unknown>[];
  return {
    status: run['status'],
    event: run['event'],
    steps: steps.map((step) => ({
      name: step['name'],
      status: step['status'],
      props: step['props'],
      return_value: step['return_value'],
      exports: step['exports'],
      logs: (step['logs'] as { message: string }[]).map((line) => line.message),
    })),
  };
}

describe('tributary workflow', () => {
  it('runs a workflow file locally, offline, and prints the run', async () => {
    const broken = path.join(scratch, 'broken.workflow.yml');
    writeFileSync(broken, 'name: broken\nsteps: [unclosed\n');
    // Independent local runs: one process each, side by side.
    const [human, yaml, refused, bad] = await Promise.all([
      tributary(['workflow', 'run', FILE, '--event', EVENT], { env: { NO_COLOR: '1' } }),
      // The YAML file of the same workflow runs the same.
      tributary(['workflow', 'run', FILE.replace(/\.json$/, '.yaml'), '--event', EVENT], { env: { NO_COLOR: '1' } }),
      tributary(['workflow', 'run', broken]),
      tributary(['workflow', 'run', FILE, '--event', '{nope']),
    ]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^Run of signup: succeeded\n {2}answer: succeeded\n/);
    expect(human.stdout).toContain('  greet: succeeded');
    expect(human.stdout).toContain('    Hello, ada@example.com!\n    → 23\n');
    expect([yaml.code, yaml.stdout]).toEqual([0, human.stdout]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/^error VALIDATION_FAILED: .*broken\.workflow\.yml is not YAML: /);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error USAGE_ERROR: --event is not valid JSON: /);
  });

  it('deploys, lists, describes, runs and deletes on a server, with the same run JSON as the local run', async () => {
    const login = await cli(['login', '--api-url', server.base, '--api-key', ADMIN_KEY]);
    expect(login.code).toBe(0);
    const deployed = await cli(['workflow', 'deploy', FILE, '--json']);
    expect(deployed.code).toBe(0);
    const workflow = JSON.parse(deployed.stdout) as { id: string; version: number; endpoint_url: string };
    expect(workflow.version).toBe(1);
    const again = await cli(['workflow', 'deploy', FILE]);
    expect(again.stdout).toMatch(new RegExp(`^Deployed signup \\(${workflow.id}\\) version 2\\nEndpoint: http`));
    const [listed, described] = await Promise.all([
      cli(['workflow', 'list']),
      cli(['workflow', 'describe', workflow.id]),
    ]);
    expect(listed.stdout).toMatch(new RegExp(`${workflow.id}\\s+signup\\s+2\\s+yes\\s+http\\s+3`));
    expect(described.stdout).toContain('  greet: code step {"name":"{{ steps.trigger.event.body.email }}"}');

    const started = await cli(['workflow', 'run-now', workflow.id, '--event', EVENT, '--json']);
    const runId = (JSON.parse(started.stdout) as { run_id: string }).run_id;
    // The local run of the same file goes while the server's run is polled.
    const localRun = tributary(['workflow', 'run', FILE, '--event', EVENT, '--json']);
    let remote: Record<string, unknown> = {};
    for (let i = 0; i < 300; i += 1) {
      const logs = await cli(['workflow', 'logs', runId, '--json']);
      remote = JSON.parse(logs.stdout) as Record<string, unknown>;
      if (remote['status'] === 'succeeded') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const local = await localRun;
    expect(portable(JSON.parse(local.stdout) as Record<string, unknown>)).toEqual(portable(remote));

    const runs = await cli(['workflow', 'runs', workflow.id]);
    expect(runs.stdout).toMatch(new RegExp(`${runId}\\s+succeeded\\s+2\\s+manual`));
    const deleted = await cli(['workflow', 'delete', workflow.id]);
    expect(deleted.stdout.trim()).toBe(`Deleted workflow ${workflow.id}`);
    const gone = await cli(['workflow', 'describe', workflow.id]);
    expect([gone.code, gone.stderr.trim()]).toEqual([1, `error NOT_FOUND: no workflow "${workflow.id}"`]);
  });
});
