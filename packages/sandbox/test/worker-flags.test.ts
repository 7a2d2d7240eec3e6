/**
 * The flags a sandbox worker's Node runs with, seen from inside a component: the heap cap the
 * sandbox was given, the permission model, no GC helper threads and no memory reducer
 * (launch-command.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { testSandbox } from './sandbox-harness.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'tributary-worker-flags-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a sandbox worker', () => {
  it('runs with its heap cap, the permission model, single-threaded GC and no memory reducer', async () => {
    const env = testSandbox({ memoryMb: 96 });
    try {
      const file = path.join(dir, 'flags.mjs');
      writeFileSync(
        file,
        `export default { name: 'flags', version: '0.0.1', type: 'action', props: {},
          async run() { return process.execArgv; } };\n`,
      );
      const handle = await env.sandbox.open(await env.sandbox.prepare(file), { key: 'flags', purpose: 'run' });
      const result = await handle.invoke({
        kind: 'run',
        configured: {},
        accounts: {},
        state: { db: {}, dedupe: null },
        timeoutMs: 10_000,
      });
      expect(result.ok, result.error?.message).toBe(true);
      expect(result.returnValue).toEqual(
        expect.arrayContaining([
          '--experimental-permission',
          '--max-old-space-size=96',
          '--single-threaded-gc',
          '--no-memory-reducer',
        ]),
      );
    } finally {
      await env.dispose();
    }
  });
});
