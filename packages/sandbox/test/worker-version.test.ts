/**
 * A worker bundle built from other code than the host (a `tsc` without the bundle step) greets in
 * another protocol version: starting it fails at once with SANDBOX_WORKER_STALE naming both
 * versions and the fix, instead of the bare start timeout every later message would end in. The
 * stale worker is a real child process, started the way the sandbox starts its workers.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isAppError } from '@tributary/contracts';
import { PROTOCOL_VERSION } from '@tributary/sandbox';
import { describe, expect, it, onTestFinished } from 'vitest';
import { invoke, open, testSandbox } from './sandbox-harness.js';

const STALE_WORKER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/stale-worker/worker.mjs');

describe('a stale worker bundle', () => {
  // Before the check, this start waited out its 15 s and failed INTERNAL "did not start".
  it('fails the start with SANDBOX_WORKER_STALE naming both protocol versions and npm run build', async () => {
    const { sandbox, dispose } = testSandbox({ workerScript: STALE_WORKER });
    onTestFinished(dispose);
    const refusal: unknown = await open(sandbox, 'f01-ping.mjs').then(
      (handle) => invoke(handle),
      (error: unknown) => error,
    );
    expect(isAppError(refusal) && { code: refusal.code, message: refusal.message, details: refusal.details }).toEqual({
      code: 'SANDBOX_WORKER_STALE',
      message: `the sandbox worker speaks protocol v4 but this host speaks v${PROTOCOL_VERSION}: the worker bundle was built from other code than the host; run npm run build`,
      details: { workerProtocol: 4, hostProtocol: PROTOCOL_VERSION },
    });
  });
});
