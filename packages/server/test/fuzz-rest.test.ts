/**
 * Property-based fuzzing of every REST route and of the HTTP ingress at a small fixed seed (the
 * full run is `npm run fuzz`, docs/fuzzing.md): generated bodies, path parameters, queries,
 * methods and headers against a real server on loopback; no 5xx, every refusal in the error shape
 * with a registered code, a refused request leaves every row of the database as it was, and an
 * acknowledged endpoint request is queued.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFuzzServer } from '../../../tools/fuzz/fuzz-server.mjs';
import { ingressTarget } from '../../../tools/fuzz/ingress-target.mjs';
import { fetchRoutes, restTarget } from '../../../tools/fuzz/rest-target.mjs';
import { runTarget } from '../../../tools/fuzz/run-target.mjs';

const SEED = 1414;
const RUNS = 300;
let server: Awaited<ReturnType<typeof startFuzzServer>>;

beforeAll(async () => {
  server = await startFuzzServer();
});

afterAll(async () => {
  await server?.close();
});

describe('REST fuzz target (small seed)', () => {
  it(`${RUNS} generated requests over every route: no 5xx, registered error codes, refusals change nothing`, async () => {
    const routes = await fetchRoutes(server.base, server.key);
    expect(routes.length).toBeGreaterThan(60);
    const stats = {
      byStatus: {} as Record<string, number>,
      byCode: {} as Record<string, number>,
      routes: new Set<string>(),
    };
    const result = await runTarget(restTarget({ ...server, routes, stats }), { numRuns: RUNS, seed: SEED });
    expect(result.error, JSON.stringify(result.counterexample)).toBeNull();
    expect(result.cases).toBe(RUNS);
    // The generator reaches both sides: accepted requests and refusals.
    expect(stats.byStatus['2xx']).toBeGreaterThan(0);
    expect(stats.byStatus['4xx']).toBeGreaterThan(0);
  }, 600_000);

  it('150 generated requests to an HTTP endpoint: no 5xx, refusals change nothing, acknowledged ones are queued', async () => {
    const stats = { byStatus: {} as Record<string, number>, byCode: {} as Record<string, number> };
    const target = ingressTarget({
      ...server,
      endpointPath: server.ids.endpoint,
      sourceId: server.ids.httpSource,
      stats,
    });
    const result = await runTarget(target, { numRuns: 150, seed: SEED });
    expect(result.error, JSON.stringify(result.counterexample)).toBeNull();
    expect(result.cases).toBe(150);
    expect(stats.byStatus['2xx']).toBeGreaterThan(100);
  }, 600_000);
});
