/**
 * Many short log lines through a real sandbox worker: about 5 MB stays under the 6 MB payload
 * limit and succeeds with every line; more ends as PAYLOAD_TOO_LARGE at the limit with the lines
 * before it kept, never as OUT_OF_MEMORY.
 */
import type { Sandbox } from '@tributary/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoke, open, testSandbox } from './sandbox-harness.js';

let sandbox: Sandbox;
let dispose: () => Promise<void>;

beforeAll(() => {
  // The memory cap the server uses by default (docs/limits.md).
  ({ sandbox, dispose } = testSandbox({ memoryMb: 256 }));
});

afterAll(async () => {
  await dispose();
});

describe('log floods of short lines', () => {
  it('5 MB of 19-byte lines succeeds and keeps every line, in order', async () => {
    const handle = await open(sandbox, 'hostile/log-lines-5mb.mjs');
    const result = await invoke(handle, { timeoutMs: 60_000 });
    expect(result.error).toBeNull();
    expect(result.ok).toBe(true);
    expect(result.returnValue).toBe('logged 5 MB');
    expect(result.logs).toHaveLength(262144);
    expect(result.logs[0]?.message).toBe('line 00000000000000');
    expect(result.logs.at(-1)?.message).toBe(`line ${String(262143).padStart(14, '0')}`);
  }, 90_000);

  it('past 6 MB ends as PAYLOAD_TOO_LARGE, keeping the lines before the limit', async () => {
    const handle = await open(sandbox, 'hostile/log-lines-over.mjs');
    const result = await invoke(handle, { timeoutMs: 60_000 });
    expect(result.error?.code).toBe('PAYLOAD_TOO_LARGE');
    expect(result.logs[0]?.message).toBe('first line');
    const componentLines = result.logs.filter((entry) => entry.message.startsWith('line '));
    // Every line up to the limit: 6 MB of 19-byte lines, give or take the first line.
    expect(componentLines.length).toBe(Math.floor((6 * 1024 * 1024 - 'first line'.length) / 19));
    expect(result.logs.at(-1)?.message).toMatch(/Payload Limit Exceeded/);
  }, 90_000);
});
