/**
 * `GET /v1/status` (docs/operations.md): version, uptime, readiness, queue, pool and the recent
 * failures with their sources and workflows, from a real server after a source run that hit its
 * deadline and a workflow run whose step threw.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { fixture, startHarness, waitFor, type Harness } from './server-harness.js';

let harness: Harness | undefined;

afterAll(async () => {
  await harness?.close({ remove: true });
});

describe('GET /v1/status', () => {
  it('answers version, uptime, queue, pool and the recent failures with their sources and workflows', async () => {
    harness = await startHarness({ sourceTimeoutMs: 1000 });
    const h = harness;
    const quiet = await h.request('GET', '/v1/status');
    expect(quiet.status).toBe(200);
    expect(quiet.body.data).toMatchObject({
      version: '0.0.0-test',
      storage: 'sqlite',
      ready: true,
      not_ready: [],
      recent_failures: [],
      queue: [
        { kind: 'source', depth: 0, oldest_age_seconds: 0 },
        { kind: 'workflow', depth: 0, oldest_age_seconds: 0 },
        { kind: 'delivery', depth: 0, oldest_age_seconds: 0 },
      ],
    });
    expect(quiet.body.data.uptime_seconds).toBeGreaterThanOrEqual(0);
    expect(quiet.body.data.started_at).toBeLessThanOrEqual(Date.now() / 1000);

    const deployed = await h.request('POST', '/v1/sources', {
      body: { component_code: fixture('server/stuck-run.mjs'), name: 'stuck one' },
    });
    expect(deployed.status).toBe(200);
    const sourceId = deployed.body.data.id as string;
    const sent = await fetch(`${h.base}${h.endpoint(deployed.body.data.endpoint_url as string)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ stuck: true }),
    });
    expect(sent.status).toBe(200);

    const failed = await waitFor(async () => {
      const status = await h.request('GET', '/v1/status');
      return status.body.data.recent_failures.length > 0 ? status.body.data : undefined;
    }, 'the timed-out run to show');
    expect(failed.recent_failures).toEqual([
      {
        kind: 'source',
        source_id: sourceId,
        source_name: 'stuck one',
        invocation_id: expect.stringMatching(/^inv_/),
        code: 'TIMEOUT',
        message: 'run did not finish within 1s (TIMEOUT)',
        at: expect.any(Number),
      },
    ]);
    expect(failed.pool.workers).toBeGreaterThanOrEqual(1);
    expect(failed.pool.memory_bytes).toBeGreaterThan(0);

    // A workflow run that fails at a step shows too, newest first, named by its workflow and step.
    const workflow = await h.request('POST', '/v1/workflows', {
      body: {
        name: 'breaks',
        trigger: { type: 'manual' },
        steps: [
          { name: 'boom', code: "export default defineComponent({ async run() { throw new Error('no more'); } });" },
        ],
      },
    });
    expect(workflow.status).toBe(201);
    const started = await h.request('POST', `/v1/workflows/${workflow.body.data.id}/run`, { body: {} });
    const both = await waitFor(async () => {
      const status = await h.request('GET', '/v1/status');
      return status.body.data.recent_failures.length > 1 ? status.body.data.recent_failures : undefined;
    }, 'the failed workflow run to show');
    expect(both[0]).toEqual({
      kind: 'workflow',
      workflow_id: workflow.body.data.id,
      workflow_name: 'breaks',
      run_id: started.body.data.run_id,
      step: 'boom',
      code: 'COMPONENT_ERROR',
      message: 'no more',
      at: expect.any(Number),
    });
    expect(both[1]).toMatchObject({ kind: 'source', source_id: sourceId });
  });
});
