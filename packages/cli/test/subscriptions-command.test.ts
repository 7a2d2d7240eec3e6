/**
 * `tributary subscriptions list|add|remove|deliveries` against a real `tributary start`: a workflow's
 * `$.send.emit` events reach a webhook on loopback (signed, logged in its delivery log) and start
 * the runs of a listening workflow.
 */
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FIXTURES } from './cli-process.js';
import { ADMIN_KEY, remoteCli, startServer, type ServerProcess } from './server-process.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-subscriptions-cli-'));
const cli = remoteCli(path.join(scratch, 'config'));
let server: ServerProcess;
let receiver: Server;
const received: { subscription: string | undefined; body: string }[] = [];

beforeAll(async () => {
  // The webhook is on loopback, which a server refuses unless told it may reach private addresses.
  server = await startServer({ TRIBUTARY_ALLOW_PRIVATE_URLS: '1' });
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ subscription: request.headers['x-tributary-subscription'] as string | undefined, body });
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await server.stop();
  await new Promise((resolve) => receiver.close(resolve));
  rmSync(scratch, { recursive: true, force: true });
});

async function until<T>(read: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('tributary subscriptions', () => {
  it("sends a workflow's emits to a webhook and to a listening workflow, then stops once removed", async () => {
    expect((await cli(['login', '--api-url', server.base, '--api-key', ADMIN_KEY])).code).toBe(0);
    const workflow = async (name: string, code: string) =>
      (
        await server.api<{ data: { id: string } }>('POST', '/v1/workflows', {
          name,
          trigger: { type: 'manual' },
          steps: [{ name: 'step', code }],
        })
      ).body.data.id;
    const emitter = await workflow('emitter', readFileSync(path.join(FIXTURES, 'workflows/emit-step.mjs'), 'utf8'));
    const listener = await workflow('listener', 'export default defineComponent({ async run() { return 1; } });');
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

    expect((await cli(['subscriptions', 'list'])).stdout).toBe('No subscriptions.\n');
    const hook = await cli(['subscriptions', 'add', emitter, '--url', url]);
    expect(hook.code).toBe(0);
    const [line, secret] = hook.stdout.trimEnd().split('\n');
    const hookId = /: (sub_\S+)$/.exec(line ?? '')?.[1] ?? '';
    expect(line).toBe(`Subscribed ${url} to ${emitter}: ${hookId}`);
    expect(secret).toMatch(/^Signing secret \(shown once; keep it\): whsec_\S+ /);
    // The same subscription again: the same id, and no secret.
    expect((await cli(['subscriptions', 'add', emitter, '--url', url])).stdout).toBe(`${line}\n`);
    // Named by their names: the CLI looks the ids up.
    const toWorkflow = JSON.parse(
      (await cli(['subscriptions', 'add', 'emitter', '--listener', 'listener', '--json'])).stdout,
    );
    expect(toWorkflow).toMatchObject({ emitter_id: emitter, listener_id: listener, listener_url: null });
    const listed = (await cli(['subscriptions', 'list'])).stdout;
    expect(listed).toMatch(new RegExp(`^ID\\s+EMITTER\\s+LISTENER\\s+CHANNEL\\s+CREATED\\n`));
    expect(listed).toMatch(new RegExp(`${hookId}\\s+${emitter}\\s+${url}\\s+\\(default\\)\\s+just now`));
    expect(listed).toContain(`${toWorkflow.id}  ${emitter}  ${listener}`);

    // One run of the emitter emits twice: two POSTs to the webhook, two runs of the listener.
    await server.api('POST', `/v1/workflows/${emitter}/run`, { event: { who: 'Ada' } });
    await until(async () => (received.length >= 2 ? true : undefined), 'two webhook deliveries');
    expect(received.map((entry) => entry.subscription)).toEqual([hookId, hookId]);
    expect(received.map((entry) => JSON.parse(entry.body).event)).toEqual([{ hello: 'Ada' }, { hello: 'Ada again' }]);
    const deliveries = await until(async () => {
      const result = await cli(['subscriptions', 'deliveries', hookId]);
      return (result.stdout.match(/delivered/g) ?? []).length === 2 ? result.stdout : undefined;
    }, 'the delivery log');
    expect(deliveries).toMatch(/^DELIVERY\s+STATUS\s+ATTEMPTS\s+CREATED\s+LAST ERROR\n/);
    expect(deliveries).toMatch(/dlv_\S+\s+delivered\s+1 \/ 5\s+just now/);
    const runs = await until(async () => {
      const result = await cli(['workflow', 'runs', listener, '--status', 'succeeded']);
      return (result.stdout.match(/ emit /g) ?? []).length === 2 ? result.stdout : undefined;
    }, 'two runs of the listening workflow');
    expect(runs).toContain('succeeded');

    for (const id of [hookId, toWorkflow.id])
      expect((await cli(['subscriptions', 'remove', id])).stdout).toBe(`Removed subscription ${id}\n`);
    expect((await cli(['subscriptions', 'list'])).stdout).toBe('No subscriptions.\n');
    const gone = await cli(['subscriptions', 'remove', hookId]);
    expect([gone.code, gone.stderr]).toEqual([1, expect.stringMatching(/^error NOT_FOUND: /)]);
  });

  it('refuses a listener given twice or not at all, an emitter that does not exist, and a name two workflows share', async () => {
    expect((await cli(['login', '--api-url', server.base, '--api-key', ADMIN_KEY])).code).toBe(0);
    const [neither, both, unknown] = await Promise.all([
      cli(['subscriptions', 'add', 'wf_x']),
      cli(['subscriptions', 'add', 'wf_x', '--listener', 'wf_y', '--url', 'https://example.com/']),
      cli(['subscriptions', 'add', 'wf_nope', '--url', 'https://example.com/hook']),
    ]);
    for (const refused of [neither, both]) {
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe(
        'error USAGE_ERROR: give --listener <ID> (a source or workflow) or --url <URL> (a webhook), not both\n',
      );
    }
    expect([unknown.code, unknown.stderr]).toEqual([1, 'error NOT_FOUND: query.emitter_id: no emitter "wf_nope"\n']);
    // A name: nothing has it, or two workflows share it.
    const twin = {
      name: 'twin',
      trigger: { type: 'manual' },
      steps: [{ name: 's', code: 'export default defineComponent({ async run() { return 1; } });' }],
    };
    const ids = [
      (await server.api<{ data: { id: string } }>('POST', '/v1/workflows', twin)).body.data.id,
      (await server.api<{ data: { id: string } }>('POST', '/v1/workflows', twin)).body.data.id,
    ];
    // The list is newest first, so is the conflict's.
    const [nobody, shared] = await Promise.all([
      cli(['subscriptions', 'add', 'nobody', '--url', 'https://example.com/hook']),
      cli(['subscriptions', 'add', 'twin', '--url', 'https://example.com/hook']),
    ]);
    expect([nobody.code, nobody.stderr]).toEqual([
      1,
      'error NOT_FOUND: emitter: no source or workflow named "nobody"\n',
    ]);
    expect([shared.code, shared.stderr]).toEqual([
      1,
      `error NAME_CONFLICT: emitter: "twin" names ${[...ids].reverse().join(', ')}; give the id\n`,
    ]);
    expect((await cli(['subscriptions', 'list'])).stdout).toBe('No subscriptions.\n');
  });
});
