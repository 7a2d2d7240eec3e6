/**
 * /v1/workflows and /v1/workflow-runs over real HTTP on loopback, with the HTTP trigger at /e/...
 * answered by $.respond() from a step, on a real engine (SQLite file, sandbox workers).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fixture, startHarness, waitFor, type AnyJson, type Harness } from './server-harness.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

let harness: Harness;
const wf = (name: string): string => fixture(`workflows/${name}`);

beforeAll(async () => {
  harness = await startHarness();
  const published = await harness.request('PUT', '/v1/components/wf-greet', {
    body: { component_code: wf('greet-action.mjs') },
  });
  if (published.status >= 300) throw new Error(`publish failed: ${published.text}`);
});

afterAll(async () => {
  await harness.close({ remove: true });
});

async function finishedRun(runId: string): Promise<AnyJson> {
  return waitFor(
    async () => {
      const { body } = await harness.request('GET', `/v1/workflow-runs/${runId}`);
      return ['succeeded', 'exited', 'failed', 'cancelled'].includes(body?.data?.status) ? body.data : undefined;
    },
    `run ${runId} to finish`,
    60_000,
  );
}

describe('/v1/workflows', () => {
  it('creates, runs now with an event, lists runs, replays, updates and deletes', async () => {
    const created = await harness.request('POST', '/v1/workflows', {
      body: {
        name: 'greet',
        trigger: { type: 'manual' },
        steps: [{ name: 'greet', action: 'wf-greet', props: { name: '{{ steps.trigger.event.who }}' } }],
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    expect(created.body.data).toMatchObject({ name: 'greet', active: true, version: 1, endpoint_url: null });
    const started = await harness.request('POST', `/v1/workflows/${id}/run`, { body: { event: { who: 'Grace' } } });
    expect(started.status).toBe(202);
    const run = await finishedRun(started.body.data.run_id);
    expect(run).toMatchObject({
      workflow_id: id,
      version: 1,
      trigger: 'manual',
      status: 'succeeded',
      event: { who: 'Grace' },
    });
    expect(run.steps[0]).toMatchObject({ name: 'greet', return_value: 13, exports: { greeting: 'Hello, Grace!' } });

    const runs = await harness.request('GET', `/v1/workflows/${id}/runs?limit=5`);
    expect(runs.body).toMatchObject({ page_info: { total_count: 1, count: 1 }, runs_dropped: 0 });
    const replay = await harness.request('POST', `/v1/workflow-runs/${run.id}/replay`);
    expect(replay.status).toBe(202);
    expect(await finishedRun(replay.body.data.run_id)).toMatchObject({ trigger: 'replay', event: { who: 'Grace' } });
    const cancel = await harness.request('POST', `/v1/workflow-runs/${run.id}/cancel`);
    expect(cancel.status).toBe(409);
    expect(cancel.body.error.code).toBe('WORKFLOW_RUN_NOT_DELAYED');

    const updated = await harness.request('PUT', `/v1/workflows/${id}`, {
      body: {
        name: 'greet v2',
        trigger: { type: 'manual' },
        steps: [{ name: 'greet', action: 'wf-greet', props: { name: 'x' } }],
      },
    });
    expect(updated.body.data).toMatchObject({ name: 'greet v2', version: 2 });
    expect((await harness.request('POST', `/v1/workflows/${id}/deactivate`)).body.data.active).toBe(false);
    expect((await harness.request('GET', '/v1/workflows')).body.data.map((item: AnyJson) => item.id)).toContain(id);
    expect((await harness.request('DELETE', `/v1/workflows/${id}`)).status).toBe(204);
    expect((await harness.request('GET', `/v1/workflows/${id}`)).status).toBe(404);
  });

  it("takes a workflow's name wherever it takes its id, and refuses a name two workflows share", async () => {
    const spec = (name: string, who: string) => ({
      name,
      trigger: { type: 'manual' },
      steps: [{ name: 'greet', action: 'wf-greet', props: { name: who } }],
    });
    const created = await harness.request('POST', '/v1/workflows', { body: spec('by name', 'Ada') });
    const id = created.body.data.id as string;
    expect((await harness.request('GET', '/v1/workflows/by%20name')).body.data).toMatchObject({ id, version: 1 });
    const started = await harness.request('POST', '/v1/workflows/by%20name/run', { body: { event: null } });
    expect(started.status).toBe(202);
    expect(await finishedRun(started.body.data.run_id)).toMatchObject({ workflow_id: id, status: 'succeeded' });
    const runs = await harness.request('GET', '/v1/workflows/by%20name/runs');
    expect(runs.body.data.map((run: AnyJson) => run.id)).toEqual([started.body.data.run_id]);
    const tested = await harness.request('POST', '/v1/workflows/by%20name/steps/greet/test', { body: {} });
    expect(tested.body.data).toMatchObject({ name: 'greet', status: 'succeeded' });
    expect((await harness.request('POST', '/v1/workflows/by%20name/deactivate')).body.data).toMatchObject({
      id,
      active: false,
    });
    const saved = await harness.request('PUT', '/v1/workflows/by%20name', { body: spec('by name', 'Grace') });
    expect(saved.body.data).toMatchObject({ id, version: 2 });

    // A second workflow of the same name: the name no longer says which, so nothing changes.
    const twin = (await harness.request('POST', '/v1/workflows', { body: spec('by name', 'Linus') })).body.data
      .id as string;
    const ids = [id, twin].sort();
    for (const [method, path] of [
      ['GET', '/v1/workflows/by%20name'],
      ['PUT', '/v1/workflows/by%20name'],
      ['DELETE', '/v1/workflows/by%20name'],
      ['POST', '/v1/workflows/by%20name/run'],
    ] as const) {
      const refused = await harness.request(method, path, method === 'PUT' ? { body: spec('by name', 'x') } : {});
      expect([method, refused.status, refused.body.error]).toEqual([
        method,
        409,
        {
          code: 'NAME_CONFLICT',
          message: `"by name" names 2 workflows: ${ids.join(', ')}; use the id`,
          details: { matches: ids },
        },
      ]);
    }
    expect((await harness.request('GET', `/v1/workflows/${id}`)).body.data.version).toBe(2);
    expect((await harness.request('GET', `/v1/workflows/${id}/runs`)).body.data).toHaveLength(1);
    expect((await harness.request('DELETE', `/v1/workflows/${twin}`)).status).toBe(204);
    expect((await harness.request('DELETE', '/v1/workflows/by%20name')).status).toBe(204);
    const gone = await harness.request('GET', '/v1/workflows/by%20name');
    expect([gone.status, gone.body.error.message]).toEqual([404, 'no workflow with id or name "by name"']);
    // A run is named by its id only: a workflow's name there is answered with where its runs are.
    const notRun = await harness.request('GET', '/v1/workflow-runs/by%20name');
    expect([notRun.status, notRun.body.error.code, notRun.body.error.message]).toEqual([
      404,
      'NOT_FOUND',
      'no workflow run "by name": a run\'s id starts with wfr_ (a workflow\'s runs: GET /v1/workflows/{id}/runs, `tributary workflow runs <workflow>`)',
    ]);
    const unknownRun = await harness.request('GET', '/v1/workflow-runs/wfr_missing');
    expect(unknownRun.body.error.message).toBe('no workflow run "wfr_missing"');
  });

  it('refuses bad workflows with a stable code and the right status, changing nothing', async () => {
    const before = (await harness.request('GET', '/v1/workflows')).body.data.length;
    const cases: [unknown, number, string][] = [
      [
        {
          name: 'x',
          trigger: { type: 'manual' },
          steps: [
            { name: 'a', action: 'wf-greet' },
            { name: 'a', action: 'wf-greet' },
          ],
        },
        400,
        'WORKFLOW_DUPLICATE_STEP',
      ],
      [
        {
          name: 'x',
          trigger: { type: 'manual' },
          steps: [
            { name: 'a', action: 'wf-greet', props: { name: '{{ steps.b.x }}' } },
            { name: 'b', action: 'wf-greet' },
          ],
        },
        400,
        'WORKFLOW_STEP_REFERENCE',
      ],
      [
        {
          name: 'x',
          trigger: { type: 'manual' },
          steps: [{ name: 'a', action: 'wf-greet', props: { name: '{{ steps.trigger.( }}' } }],
        },
        400,
        'WORKFLOW_EXPRESSION_INVALID',
      ],
      [
        { name: 'x', trigger: { type: 'manual' }, steps: [{ name: 'a', action: 'nope' }] },
        400,
        'WORKFLOW_COMPONENT_UNKNOWN',
      ],
      [{ name: 'x', trigger: { type: 'manual' }, steps: [] }, 400, 'VALIDATION_FAILED'],
      [
        { name: 'x', trigger: { type: 'timer', interval_seconds: 1 }, steps: [{ name: 'a', action: 'wf-greet' }] },
        400,
        'VALIDATION_FAILED',
      ],
    ];
    for (const [body, status, code] of cases) {
      const response = await harness.request('POST', '/v1/workflows', { body });
      expect([response.status, response.body.error.code]).toEqual([status, code]);
    }
    expect((await harness.request('GET', '/v1/workflows')).body.data.length).toBe(before);
  });

  it("stores no code step's component when a later check refuses the save", async () => {
    const components = async (): Promise<string[]> =>
      (await harness.request('GET', '/v1/users/me/components?limit=100')).body.data.map((row: AnyJson) => row.id);
    const saved = await components();
    const fresh = `${wf('double-step.mjs')}\n// first seen in a refused save\n`;
    const refusals: [unknown, string][] = [
      [
        { name: 'x', trigger: { type: 'source', source_id: 'dc_missing' }, steps: [{ name: 'a', code: fresh }] },
        'NOT_FOUND',
      ],
      [
        {
          name: 'x',
          trigger: { type: 'manual' },
          steps: [
            { name: 'a', code: fresh },
            { name: 'b', action: 'nope' },
          ],
        },
        'WORKFLOW_COMPONENT_UNKNOWN',
      ],
    ];
    for (const [body, code] of refusals) {
      const response = await harness.request('POST', '/v1/workflows', { body });
      expect(response.body.error.code).toBe(code);
    }
    expect(await components()).toEqual(saved);
  });

  it('refuses a code step whose literal $.send destination cannot be delivered, naming the field', async () => {
    const before = (await harness.request('GET', '/v1/workflows')).body.data.length;
    const response = await harness.request('POST', '/v1/workflows', {
      body: {
        name: 'private',
        trigger: { type: 'manual' },
        steps: [
          { name: 'greet', action: 'wf-greet' },
          { name: 'notify', code: wf('private-url-step.mjs') },
        ],
      },
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({
      code: 'DESTINATION_INVALID',
      details: { field: 'steps.1.sends.0.url', step: 'notify' },
    });
    expect(response.body.error.message).toMatch(/^steps\[1\] "notify": sends\[0\] \(\$\.send\.http\): .*127\.0\.0\.1/);
    expect((await harness.request('GET', '/v1/workflows')).body.data.length).toBe(before);
  });

  it('starts a run per request at its HTTP endpoint, answered by $.respond() from a step', async () => {
    const created = await harness.request('POST', '/v1/workflows', {
      body: {
        name: 'signup',
        trigger: { type: 'http', custom_response: true },
        steps: [
          { name: 'answer', code: wf('respond-step.mjs') },
          { name: 'greet', action: 'wf-greet', props: { name: '{{ steps.trigger.event.body.email }}' } },
        ],
      },
    });
    expect(created.status).toBe(201);
    const url = harness.endpoint(created.body.data.endpoint_url);
    const response = await fetch(`${harness.base}${url}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ada@example.com' }),
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-step')).toBe('respond');
    expect(await response.json()).toEqual({ email: 'ada@example.com' });
    const runs = await waitFor(async () => {
      const { body } = await harness.request('GET', `/v1/workflows/${created.body.data.id}/runs`);
      return body.data[0]?.status === 'succeeded' ? body.data : undefined;
    }, 'the http run');
    expect(runs[0]).toMatchObject({
      trigger: 'http',
      steps: [{ name: 'answer' }, { name: 'greet', exports: { greeting: 'Hello, ada@example.com!' } }],
    });
    // Stored with its body once, shown whole: parsed, and as sent in `bodyRaw` and `rawBody`; a
    // replay reads it back from the store and runs with the same event.
    const sent = JSON.stringify({ email: 'ada@example.com' });
    const whole = { method: 'POST', body: { email: 'ada@example.com' }, bodyRaw: sent, rawBody: sent };
    expect(runs[0].event).toMatchObject(whole);
    const replay = await harness.request('POST', `/v1/workflow-runs/${runs[0].id}/replay`);
    const replayed = await finishedRun(replay.body.data.run_id);
    expect(replayed).toMatchObject({ trigger: 'replay', status: 'succeeded', event: whole });
    expect(replayed.event).toEqual(runs[0].event);
  });

  it('answers 400 "No $.respond called in workflow" when a custom_response run ends without $.respond()', async () => {
    const created = await harness.request('POST', '/v1/workflows', {
      body: {
        name: 'silent',
        trigger: { type: 'http', custom_response: true },
        steps: [{ name: 'quiet', code: 'export default defineComponent({ async run() { return 1; } });' }],
      },
    });
    const response = await fetch(`${harness.base}${harness.endpoint(created.body.data.endpoint_url)}`, {
      method: 'POST',
    });
    expect([response.status, await response.text()]).toEqual([400, 'No $.respond called in workflow']);
    const [run] = await waitFor(async () => {
      const { body } = await harness.request('GET', `/v1/workflows/${created.body.data.id}/runs`);
      return body.data[0]?.status === 'succeeded' ? body.data : undefined;
    }, 'the silent run');
    expect(run).toMatchObject({ steps: [{ name: 'quiet', return_value: 1 }] });
  });

  it('lists the runs of one status, counted apart, names the newest, and refuses a status that does not exist', async () => {
    const created = await harness.request('POST', '/v1/workflows', {
      body: {
        name: 'sometimes',
        trigger: { type: 'manual' },
        steps: [
          {
            name: 'maybe',
            code: "export default defineComponent({ async run({ steps }) { if (steps.trigger.event.fail) throw new Error('asked'); return 1; } });",
          },
        ],
      },
    });
    const id = created.body.data.id as string;
    expect(created.body.data.last_run).toBeNull();
    const started: string[] = [];
    for (const fail of [false, true, false]) {
      const run = await harness.request('POST', `/v1/workflows/${id}/run`, { body: { event: { fail } } });
      started.push(run.body.data.run_id as string);
      await finishedRun(run.body.data.run_id as string);
    }
    const failed = await harness.request('GET', `/v1/workflows/${id}/runs?status=failed`);
    expect(failed.body.data.map((run: AnyJson) => run.id)).toEqual([started[1]]);
    expect(failed.body.page_info.total_count).toBe(1);
    const succeeded = await harness.request('GET', `/v1/workflows/${id}/runs?status=succeeded`);
    expect(succeeded.body.data.map((run: AnyJson) => run.id)).toEqual([started[2], started[0]]);
    // The workflow (and the list) name its newest run.
    const listed = await harness.request('GET', '/v1/workflows');
    const mine = listed.body.data.find((workflow: AnyJson) => workflow.id === id);
    expect(mine.last_run).toEqual({ id: started[2], status: 'succeeded', created_at: expect.any(Number) });
    const bad = await harness.request('GET', `/v1/workflows/${id}/runs?status=broken`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_FAILED');
    expect(bad.body.error.message).toContain('status');
  });

  it('answers 200 at once at an endpoint without custom_response, and 404 once deactivated', async () => {
    const created = await harness.request('POST', '/v1/workflows', {
      body: {
        name: 'hook',
        trigger: { type: 'http' },
        steps: [{ name: 'greet', action: 'wf-greet', props: { name: '{{ steps.trigger.event.query.who }}' } }],
      },
    });
    const url = `${harness.base}${harness.endpoint(created.body.data.endpoint_url)}/any/path?who=Kim`;
    const response = await fetch(url, { method: 'POST' });
    expect([response.status, await response.text()]).toEqual([200, 'OK']);
    const [run] = await waitFor(async () => {
      const { body } = await harness.request('GET', `/v1/workflows/${created.body.data.id}/runs`);
      return body.data[0]?.status === 'succeeded' ? body.data : undefined;
    }, 'the run');
    expect(run).toMatchObject({ trigger: 'http', event: { method: 'POST', path: '/any/path' } });
    expect(run.steps[0].exports).toEqual({ greeting: 'Hello, Kim!' });
    await harness.request('POST', `/v1/workflows/${created.body.data.id}/deactivate`);
    expect((await fetch(url, { method: 'POST' })).status).toBe(404);
  });

  it('tests one step with a chosen event and earlier results, storing nothing', async () => {
    const created = await harness.request('POST', '/v1/workflows', {
      body: {
        name: 'step test',
        trigger: { type: 'manual' },
        steps: [
          { name: 'greet', action: 'wf-greet', props: { name: '{{ steps.trigger.event.who }}' } },
          { name: 'double', code: wf('double-step.mjs'), props: { n: '{{ steps.greet.$return_value }}' } },
        ],
      },
    });
    const id = created.body.data.id as string;
    const tested = await harness.request('POST', `/v1/workflows/${id}/steps/double/test`, {
      body: { event: { who: 'x' }, steps: { greet: { $return_value: 5, greeting: 'Hi' } } },
    });
    expect(tested.status).toBe(200);
    expect(tested.body.data).toMatchObject({
      name: 'double',
      status: 'succeeded',
      props: { n: 5 },
      return_value: 10,
      exports: { seen: 'Hi' },
    });
    const missing = await harness.request('POST', `/v1/workflows/${id}/steps/nope/test`, { body: {} });
    expect([missing.status, missing.body.error.code]).toEqual([404, 'NOT_FOUND']);
    expect((await harness.request('GET', `/v1/workflows/${id}/runs`)).body.page_info.total_count).toBe(0);
  });

  it("answers a run with its steps' deliveries: status, attempts and error", async () => {
    const created = await harness.request('POST', '/v1/workflows', {
      body: {
        name: 'sse',
        trigger: { type: 'manual' },
        steps: [{ name: 'publish', code: wf('sse-step.mjs'), props: { channel: 'wf-orders' } }],
      },
    });
    const started = await harness.request('POST', `/v1/workflows/${created.body.data.id}/run`, { body: { event: 1 } });
    const run = await finishedRun(started.body.data.run_id);
    const read = await waitFor(
      async () => {
        const { body } = await harness.request('GET', `/v1/workflow-runs/${run.id}`);
        return body.data.deliveries[0]?.status === 'delivered' ? body.data : undefined;
      },
      'the delivery',
      30_000,
    );
    expect(read.deliveries).toEqual([
      expect.objectContaining({
        kind: 'sse',
        run_id: run.id,
        step_name: 'publish',
        target: 'wf-orders',
        status: 'delivered',
        attempts: 1,
        last_error: null,
      }),
    ]);
  });

  it('opens the account an app prop names through an expression, evaluated once before the step', async () => {
    const account = await harness.request('POST', '/v1/accounts', {
      body: { app: 'acme', name: 'Acme by expression', fields: { api_key: 'abcdefghij' } },
    });
    expect(account.status).toBe(201);
    const created = await harness.request('POST', '/v1/workflows', {
      body: {
        name: 'account by expression',
        trigger: { type: 'manual' },
        steps: [
          {
            name: 'call',
            code:
              'export default defineComponent({ props: { acme: { type: "app", app: "acme" }, label: { type: "string" } }, ' +
              'async run() { return this.label + ":" + this.acme.$auth.api_key.length; } })',
            props: { acme: '{{ steps.trigger.event.account }}', label: '{{ steps.trigger.event.label }}' },
          },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    const started = await harness.request('POST', `/v1/workflows/${created.body.data.id as string}/run`, {
      // A value that reads like an expression is data: it is not evaluated a second time.
      body: { event: { account: { authProvisionId: account.body.data.id }, label: '{{ 40 + 2 }}' } },
    });
    const run = await finishedRun(started.body.data.run_id);
    expect(run.status, JSON.stringify(run.error)).toBe('succeeded');
    expect(run.steps[0]).toMatchObject({
      return_value: '{{ 40 + 2 }}:10',
      props: { acme: { authProvisionId: account.body.data.id }, label: '{{ 40 + 2 }}' },
    });
    expect(JSON.stringify(run)).not.toContain('abcdefghij');
  });

  it('is in the OpenAPI document', async () => {
    const { body } = await harness.request('GET', '/v1/openapi.json');
    expect(Object.keys(body.paths)).toEqual(
      expect.arrayContaining(['/v1/workflows', '/v1/workflows/{id}/run', '/v1/workflow-runs/{id}/cancel']),
    );
  });
});
