import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { InvocationKind, InvocationResult, InvocationState } from '@tributary/runtime';
import { Sandbox, type ComponentHandle, type SandboxOptions } from '@tributary/sandbox';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const FIXTURES = path.join(REPO, 'fixtures/components');

/**
 * A sandbox on its own cache folder, with limits small enough for tests to hit quickly, whose
 * components may reach the test servers on loopback (egress.test.ts sets the default policy).
 */
export function testSandbox(options: Partial<SandboxOptions> = {}): {
  sandbox: Sandbox;
  cacheDir: string;
  dispose: () => Promise<void>;
} {
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-sandbox-test-'));
  const sandbox = new Sandbox({
    cacheDir,
    memoryMb: 128,
    graceMs: 500,
    egress: { mode: 'policy', allow: ['127.0.0.0/8', '::1'] },
    ...options,
  });
  return {
    sandbox,
    cacheDir,
    dispose: async () => {
      await sandbox.close();
      rmSync(cacheDir, { recursive: true, force: true });
    },
  };
}

export async function open(sandbox: Sandbox, file: string, key = file): Promise<ComponentHandle> {
  const prepared = await sandbox.prepare(path.isAbsolute(file) ? file : path.join(FIXTURES, file));
  return sandbox.open(prepared, { key, purpose: 'run' });
}

export function invoke(
  handle: ComponentHandle,
  options: {
    kind?: InvocationKind;
    configured?: Record<string, unknown>;
    state?: InvocationState;
    timeoutMs?: number;
    event?: unknown;
  } = {},
): Promise<InvocationResult> {
  return handle.invoke({
    kind: options.kind ?? 'run',
    configured: options.configured ?? {},
    accounts: {},
    state: options.state ?? { db: {}, dedupe: null },
    timeoutMs: options.timeoutMs ?? 1500,
    ...(options.event !== undefined ? { event: options.event } : {}),
  });
}
