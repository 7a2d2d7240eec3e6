import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startLoopbackRegistry, type LoopbackRegistry } from '../../../tools/test-support/loopback-npm-registry.js';
import { packFixturePackage } from '../../../tools/test-support/pack-fixture-package.js';
import { invoke, open, testSandbox } from './sandbox-harness.js';

// `npm run` and `npx` hand a project's .npmrc down as npm_config_* variables: with
// engine-strict=true (this repository's own setting) every component install used to refuse a
// package whose `engines` asks for a newer Node, which npm itself only warns about.
const saved = { registry: process.env['npm_config_registry'], strict: process.env['npm_config_engine_strict'] };
let registry: LoopbackRegistry;
let packDir: string;

beforeAll(async () => {
  registry = await startLoopbackRegistry();
  packDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-engines-'));
  registry.publish('newer-node-only', '1.0.0', packFixturePackage('newer-node-only', packDir), {
    engines: { node: '>=99' },
  });
  process.env['npm_config_registry'] = registry.url;
  process.env['npm_config_engine_strict'] = 'true';
});
afterAll(async () => {
  for (const [name, value] of [
    ['npm_config_registry', saved.registry],
    ['npm_config_engine_strict', saved.strict],
  ] as const)
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  await registry.close();
  rmSync(packDir, { recursive: true, force: true });
});

it('installs a package whose engines field asks for a newer Node, as npm does, whatever engine-strict the caller inherited', async () => {
  const { sandbox, dispose } = testSandbox();
  try {
    const handle = await open(sandbox, 'packages/newer-node-only.mjs');
    const result = await invoke(handle, {});
    expect(result.error).toBeNull();
    expect(result.returnValue).toBe('installed despite engines');
  } finally {
    await dispose();
  }
});
