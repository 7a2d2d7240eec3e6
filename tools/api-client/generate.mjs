#!/usr/bin/env node
// Regenerates packages/api-client/src/openapi.generated.ts: builds the server (engine on a
// temporary data directory), asks it for /v1/openapi.json in process and renders the types.
// Usage: npm run api:generate (after npm run build: it loads the built packages).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import console from 'node:console';
import process from 'node:process';
import { Engine } from '@tributary/engine';
import { createServer } from '@tributary/server';
import { renderApiTypes, TYPES_FILE } from './render.mjs';

const dataDir = mkdtempSync(path.join(tmpdir(), 'tributary-openapi-'));
const cacheDir = mkdtempSync(path.join(tmpdir(), 'tributary-openapi-cache-'));
const engine = await Engine.create({
  dataDir,
  cacheDir,
  publicUrl: 'http://127.0.0.1:3000',
  allowPrivateUrls: false,
  concurrency: 1,
  log: () => {},
});
try {
  const { key } = await engine.apiKeys.create('openapi');
  const app = await createServer({ engine, version: '0', log: () => {} });
  const response = await app.inject({
    method: 'GET',
    url: '/v1/openapi.json',
    headers: { authorization: `Bearer ${key}` },
  });
  if (response.statusCode !== 200) throw new Error(`GET /v1/openapi.json answered ${response.statusCode}`);
  writeFileSync(TYPES_FILE, await renderApiTypes(response.json()));
  await app.close();
  console.log(`wrote ${path.relative(process.cwd(), TYPES_FILE)}`);
} finally {
  await engine.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(cacheDir, { recursive: true, force: true });
}
