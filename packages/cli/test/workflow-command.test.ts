/**
 * `tributary workflow ...` with the real binary: `workflow run` on this machine (offline, no
 * server), and deploy/export/list/describe/run-now/runs/logs/delete against a real `tributary start`.
 * The local run prints the same JSON a server run answers.
 */
import path from 'node:path';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { FIXTURES, tributary } from './cli-process.js';
import { ADMIN_KEY, remoteCli, startServer, type ServerProcess } from './server-process.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const FILE = path.join(FIXTURES, 'workflows/signup.workflow.json');
const EVENT = JSON.stringify({ body: { email: 'ada@example.com' } });
const STEP = 'export default defineComponent({ async run() { return 1; } });';
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

/** A workflow file in the scratch folder: its path. */
function workflowFile(name: string, trigger: string, steps: Record<string, unknown>[]): string {
  const file = path.join(scratch, `${name}.workflow.json`);
  writeFileSync(file, JSON.stringify({ name, trigger: { type: trigger }, steps }));
  return file;
}

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
    // Its trigger waits for $.respond(): what the endpoint's caller would have been answered.
    expect(human.stdout).toContain('\n  response 201: {"email":"ada@example.com"}\n');
    expect([yaml.code, yaml.stdout]).toEqual([0, human.stdout]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/^error VALIDATION_FAILED: .*broken\.workflow\.yml is not YAML: /);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error USAGE_ERROR: --event is not valid JSON: /);
  });

  it('delivers nothing from a local run: each send is named as the delivery a server would make', async () => {
    const file = workflowFile('sends', 'manual', [
      {
        name: 'ship',
        file: path.join(FIXTURES, 'delivery/send-http.mjs'),
        props: { url: 'https://example.com/hooks/shipped' },
      },
    ]);
    const [human, json] = await Promise.all([
      tributary(['workflow', 'run', file], { env: { NO_COLOR: '1' } }),
      tributary(['workflow', 'run', file, '--json']),
    ]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(
      '  delivery http https://example.com/hooks/shipped from ship: not sent (a local run delivers nothing)\n',
    );
    const run = JSON.parse(json.stdout) as { deliveries: unknown[]; steps: { sends: { config: unknown }[] }[] };
    // No delivery was queued, so none was attempted: a server would have tried the URL at once.
    expect(run.deliveries).toEqual([]);
    expect(run.steps[0]?.sends.map((send) => send.config)).toEqual([
      {
        method: 'POST',
        url: 'https://example.com/hooks/shipped',
        headers: { 'X-Api-Key': 'not-shown-in-the-report' },
        data: { order: 42, status: 'shipped' },
      },
    ]);
  });

  it("prints a failed step's error once, with its stack's frames, and exits non-zero", async () => {
    const file = workflowFile('fails', 'manual', [
      { name: 'broken', file: path.join(FIXTURES, 'workflows/throw-step.mjs') },
    ]);
    const run = await tributary(['workflow', 'run', file], { env: { NO_COLOR: '1' } });
    expect(run.code).not.toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines.slice(0, 3)).toEqual([
      'Run of fails: failed',
      '  broken: failed',
      '    error COMPONENT_ERROR: the step broke',
    ]);
    // A manual trigger answers no HTTP caller: no response line.
    expect(run.stdout).not.toContain('response');
    // The runtime's error line for live logs is the same error: it is not printed again.
    expect(run.stdout.match(/the step broke/g)).toHaveLength(1);
    // The first frame is the step's own line 4, where it throws.
    expect(lines[3]).toMatch(/^ {6}at .*component\.mjs:4:\d+\)$/);
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
    const [listed, described, byName] = await Promise.all([
      cli(['workflow', 'list']),
      cli(['workflow', 'describe', workflow.id]),
      // The name deploy went by names the workflow everywhere else too.
      cli(['workflow', 'describe', 'signup']),
    ]);
    expect(listed.stdout).toMatch(new RegExp(`${workflow.id}\\s+signup\\s+2\\s+yes\\s+http\\s+3`));
    expect(described.stdout).toContain('  greet: code step {"name":"{{ steps.trigger.event.body.email }}"}');
    expect([byName.code, byName.stdout]).toEqual([0, described.stdout]);

    const started = await cli(['workflow', 'run-now', 'signup', '--event', EVENT, '--json']);
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

    const [runs, runsByName] = await Promise.all([
      cli(['workflow', 'runs', workflow.id]),
      cli(['workflow', 'runs', 'signup']),
    ]);
    expect(runs.stdout).toMatch(new RegExp(`${runId}\\s+succeeded\\s+2\\s+manual`));
    expect((await cli(['workflow', 'list'])).stdout).toMatch(
      new RegExp(`${workflow.id}\\s+signup\\s+2\\s+yes\\s+http\\s+3\\s+succeeded (just now|\\d+ seconds? ago)`),
    );
    expect(runsByName.stdout).toBe(runs.stdout);
    const [succeeded, failed, bogus] = await Promise.all([
      cli(['workflow', 'runs', 'signup', '--status', 'succeeded']),
      cli(['workflow', 'runs', 'signup', '--status', 'failed']),
      cli(['workflow', 'runs', 'signup', '--status', 'bogus']),
    ]);
    expect(succeeded.stdout).toBe(runs.stdout);
    expect([failed.code, failed.stdout]).toEqual([0, 'No failed runs.\n']);
    expect(bogus.code).toBe(1);
    expect(bogus.stderr).toMatch(/^error VALIDATION_FAILED: .*status/);
    const deleted = await cli(['workflow', 'delete', 'signup']);
    expect(deleted.stdout.trim()).toBe(`Deleted workflow ${workflow.id}`);
    const [gone, goneByName] = await Promise.all([
      cli(['workflow', 'describe', workflow.id]),
      cli(['workflow', 'describe', 'signup']),
    ]);
    expect([gone.code, gone.stderr.trim()]).toEqual([
      1,
      `error NOT_FOUND: no workflow with id or name "${workflow.id}"`,
    ]);
    expect([goneByName.code, goneByName.stderr.trim()]).toEqual([
      1,
      'error NOT_FOUND: no workflow with id or name "signup"',
    ]);
  });

  it('exports a workflow as a file that runs and deploys as the same workflow', async () => {
    expect((await cli(['login', '--api-url', server.base, '--api-key', ADMIN_KEY])).code).toBe(0);
    const deployed = JSON.parse((await cli(['workflow', 'deploy', FILE, '--json'])).stdout) as { id: string };
    expect((await cli(['workflow', 'deactivate', 'signup'])).code).toBe(0);
    const file = path.join(scratch, 'exported.workflow.yaml');
    const written = await cli(['workflow', 'export', 'signup', '-o', file]);
    expect([written.code, written.stdout]).toEqual([0, `Wrote signup (${deployed.id}) version 1 to ${file}\n`]);
    const text = readFileSync(file, 'utf8');
    // Steps read from files come back inline, as literal blocks; an inactive workflow says so.
    expect(text).toMatch(/^name: signup\nactive: false\n/);
    expect(text).toContain('    code: |\n      // A code step that answers the HTTP trigger');
    const [stdout, json, refused] = await Promise.all([
      cli(['workflow', 'export', deployed.id]),
      cli(['workflow', 'export', 'signup', '--json']),
      cli(['workflow', 'export', 'signup', '-o', file]),
    ]);
    expect(stdout.stdout).toBe(text);
    expect(JSON.parse(json.stdout)).toEqual(parseYaml(text));
    expect([refused.code, refused.stderr]).toEqual([
      1,
      `error NAME_CONFLICT: ${file} already exists; --force replaces it\n`,
    ]);
    // The exported file runs locally as the original does, and deploys as a new version of the same workflow.
    const [original, exported] = await Promise.all([
      tributary(['workflow', 'run', FILE, '--event', EVENT], { env: { NO_COLOR: '1' } }),
      tributary(['workflow', 'run', file, '--event', EVENT], { env: { NO_COLOR: '1' } }),
    ]);
    expect([exported.code, exported.stdout]).toEqual([0, original.stdout]);
    const again = JSON.parse((await cli(['workflow', 'deploy', file, '--json'])).stdout) as {
      id: string;
      version: number;
      active: boolean;
    };
    expect(again).toMatchObject({ id: deployed.id, version: 2, active: false });
    expect((await cli(['workflow', 'delete', 'signup'])).code).toBe(0);
  });

  it('deactivates and activates a workflow, cancels a delayed run and replays it', async () => {
    expect((await cli(['login', '--api-url', server.base, '--api-key', ADMIN_KEY])).code).toBe(0);
    const wait = 'export default defineComponent({ async run({ $ }) { $.flow.delay(600000); return 1; } });';
    const file = workflowFile('waits', 'http', [
      { name: 'wait', code: wait },
      { name: 'after', code: STEP },
    ]);
    const deployed = JSON.parse((await cli(['workflow', 'deploy', file, '--json'])).stdout) as {
      id: string;
      endpoint_url: string;
    };
    const off = await cli(['workflow', 'deactivate', 'waits']);
    expect([off.code, off.stdout]).toEqual([0, `waits (${deployed.id}) is inactive: its trigger starts no runs\n`]);
    // An inactive workflow's endpoint starts nothing.
    expect((await fetch(deployed.endpoint_url, { method: 'POST', body: '{}' })).status).toBe(404);
    expect((await cli(['workflow', 'list'])).stdout).toMatch(new RegExp(`${deployed.id}\\s+waits\\s+1\\s+no\\s+http`));
    const on = await cli(['workflow', 'activate', deployed.id]);
    expect([on.code, on.stdout]).toEqual([0, `waits (${deployed.id}) is active\n`]);

    const runId = (
      JSON.parse((await cli(['workflow', 'run-now', 'waits', '--event', EVENT, '--json'])).stdout) as { run_id: string }
    ).run_id;
    // Polled over REST: a CLI process per poll would only slow the test down.
    const runOf = async (id: string) => {
      const answer = await fetch(`${server.base}/v1/workflow-runs/${id}`, {
        headers: { authorization: `Bearer ${ADMIN_KEY}` },
      });
      return ((await answer.json()) as { data: { status: string; event: unknown } }).data;
    };
    const statusOf = async (id: string, wanted: string): Promise<string> => {
      let status = '';
      for (let i = 0; i < 300 && status !== wanted; i += 1) {
        status = (await runOf(id)).status;
        if (status !== wanted) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return status;
    };
    expect(await statusOf(runId, 'delayed')).toBe('delayed');
    const cancelled = await cli(['workflow', 'cancel', runId]);
    expect([cancelled.code, cancelled.stdout]).toEqual([0, `Run ${runId}: cancelled\n`]);
    const again = await cli(['workflow', 'cancel', runId]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^error WORKFLOW_RUN_NOT_DELAYED: /);

    const replayed = await cli(['workflow', 'replay', runId]);
    const replay = /^Started run (wfr_\S+), a replay of (\S+) with its event\n$/.exec(replayed.stdout);
    expect([replayed.code, replay?.[2]]).toEqual([0, runId]);
    const replayId = replay?.[1] ?? '';
    expect(await statusOf(replayId, 'delayed')).toBe('delayed');
    const replayRun = await runOf(replayId);
    expect(replayRun.event).toEqual(JSON.parse(EVENT));
    expect((await cli(['workflow', 'cancel', replayId])).code).toBe(0);
  });

  it('refuses a name that several workflows share, listing their ids, and changes nothing', async () => {
    // Through the API two workflows may share a name (deploy would have saved a new version instead).
    const twin = async (): Promise<string> => {
      const answer = await fetch(`${server.base}/v1/workflows`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'twin', trigger: { type: 'http' }, steps: [{ name: 'one', code: STEP }] }),
      });
      expect(answer.status).toBe(201);
      return ((await answer.json()) as { data: { id: string } }).data.id;
    };
    const ids = [await twin(), await twin()].sort();
    // The REST API resolves the name itself and refuses it the same way.
    const byName = await fetch(`${server.base}/v1/workflows/twin`, {
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    expect(byName.status).toBe(409);
    expect(await byName.json()).toMatchObject({ error: { code: 'NAME_CONFLICT', details: { matches: ids } } });
    const refused = await cli(['workflow', 'delete', 'twin']);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(`error NAME_CONFLICT: "twin" names 2 workflows: ${ids.join(', ')}; use the id`);
    const json = await cli(['workflow', 'describe', 'twin', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: false,
      error: { code: 'NAME_CONFLICT', details: { matches: ids } },
    });
    // Deploying a file of that name cannot tell which one to update either.
    const file = path.join(scratch, 'twin.workflow.yaml');
    writeFileSync(file, `name: twin\ntrigger: { type: http }\nsteps:\n  - name: one\n    code: "${STEP}"\n`);
    const deploy = await cli(['workflow', 'deploy', file]);
    expect([deploy.code, deploy.stderr.trim()]).toEqual([
      1,
      `error NAME_CONFLICT: "twin" names 2 workflows: ${ids.join(', ')}; delete all but one (tributary workflow delete <id>) or rename this one`,
    ]);
    const listed = await cli(['workflow', 'list', '--json']);
    const twins = (JSON.parse(listed.stdout) as { id: string; name: string; version: number }[]).filter(
      (item) => item.name === 'twin',
    );
    expect(twins.map((item) => [item.id, item.version]).sort()).toEqual(ids.map((id) => [id, 1]));
  });
});
