// Reliability under kill -9: real `tributary start` processes (three on PostgreSQL and Redis, or
// one on SQLite), HTTP events sent while random processes are killed with SIGKILL and restarted.
// Checks that every acknowledged event ran (it is in its source's event bin), that each source's
// events are in the order they were acknowledged, that none ran twice, and that no timer tick
// fired twice. Used by bench/reliability.mjs (full size) and packages/cli/test/reliability.test.ts
// (a small seed in `npm test`).
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { URL } from 'node:url';
import { call, Node, sharedBackends } from './cluster-lib.mjs';
import { freePort, REPO_DIR } from './server-lib.mjs';

/**
 * Runs one reliability scenario. Options: backend 'postgres' | 'sqlite', processes (3 / 1),
 * events (acknowledged events to reach), kills, sources (HTTP sources the events spread over; a
 * source gets at most ~100 events, the bin's size), timers (timer sources, every 15 s), log.
 * Resolves with the figures; throws only when the setup fails.
 */
export async function runReliability(options) {
  const backend = options.backend;
  const processes = options.processes ?? (backend === 'postgres' ? 3 : 1);
  const total = options.events;
  const kills = options.kills;
  const sourceCount = options.sources ?? Math.max(1, Math.ceil(total / 70));
  const timerCount = options.timers ?? 5;
  const log = options.log ?? (() => undefined);
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-reliability-'));
  chmodSync(scratch, 0o755);
  const cleanups = [() => rmSync(scratch, { recursive: true, force: true })];
  const nodes = [];
  const startedAt = Date.now();
  try {
    const env = { TRIBUTARY_CACHE_DIR: path.join(scratch, 'cache') };
    if (backend === 'postgres') {
      const shared = await sharedBackends('reliability');
      cleanups.push(shared.cleanup);
      Object.assign(env, shared.env);
    }
    for (let index = 0; index < processes; index += 1)
      nodes.push(new Node(`p${index}`, await freePort(), path.join(scratch, `p${index}`), env));
    cleanups.push(() => Promise.all(nodes.map((node) => node.stop())));
    await nodes[0].start();
    for (const node of nodes.slice(1)) {
      mkdirSync(node.dataDir, { recursive: true });
      copyFileSync(path.join(nodes[0].dataDir, 'master.key'), path.join(node.dataDir, 'master.key'));
    }
    await Promise.all(nodes.slice(1).map((node) => node.start()));
    log(`${processes} process(es) on ${backend} ready after ${Date.now() - startedAt} ms`);

    const code = readFileSync(path.join(REPO_DIR, 'fixtures/components/server/sequence-recorder.mjs'), 'utf8');
    const tickCode = readFileSync(path.join(REPO_DIR, 'fixtures/components/f03-tick.mjs'), 'utf8');
    const deploy = async (body) => {
      const response = await call(nodes[0].base, 'POST', '/v1/sources', body);
      if (response.status !== 200)
        throw new Error(`deploy failed: ${response.status} ${JSON.stringify(response.body)}`);
      return response.body.data;
    };
    const sources = [];
    for (let index = 0; index < sourceCount; index += 1) sources.push(await deploy({ component_code: code }));
    const timers = [];
    for (let index = 0; index < timerCount; index += 1)
      timers.push(await deploy({ component_code: tickCode, configured_props: { timer: { intervalSeconds: 15 } } }));
    log(`${sourceCount} HTTP sources and ${timerCount} timer sources deployed`);
    const timersDeployedAt = Date.now();

    // One sequential client per source: its next request goes only after the previous one was
    // answered, so the order of its acknowledged events is the order they must run in.
    const acked = sources.map(() => []);
    let ackedCount = 0;
    let sent = 0;
    let failed = 0;
    let done = false;
    const live = () => nodes.filter((node) => node.up);
    const client = async (index) => {
      const endpoint = new URL(sources[index].endpoint_url).pathname;
      let n = 0;
      while (!done) {
        const targets = live();
        if (targets.length === 0) {
          await delay(50);
          continue;
        }
        n += 1;
        sent += 1;
        const target = targets[Math.floor(Math.random() * targets.length)];
        try {
          const response = await call(target.base, 'POST', endpoint, { n });
          if (response.status === 200) {
            acked[index].push(n);
            ackedCount += 1;
            if (ackedCount >= total) done = true;
            continue;
          }
          failed += 1;
        } catch {
          failed += 1;
        }
        // Unacknowledged (refused, reset, 5xx): it may or may not have been queued; the next
        // request takes the next number either way.
        await delay(50);
      }
    };
    // Kill i comes when i/(kills+1) of the events are acknowledged. With several processes a
    // killed one restarts in the background, so the kills keep pace with the flow; one stays up.
    const restarts = [];
    const killedAt = [];
    const killer = async () => {
      for (let kill = 1; kill <= kills; kill += 1) {
        const at = Math.floor((total * kill) / (kills + 1));
        while (ackedCount < at && !done) await delay(20);
        while (processes > 1 && live().length < 2) await delay(20);
        const targets = live();
        const victim = targets[Math.floor(Math.random() * targets.length)] ?? nodes[0];
        log(`kill -9 #${kill} of ${victim.name} at ${ackedCount} acknowledged`);
        killedAt.push(ackedCount);
        await victim.kill();
        const restart = delay(200 + Math.floor(Math.random() * 800)).then(() => victim.start());
        if (processes > 1) restarts.push(restart);
        else await restart;
      }
      await Promise.all(restarts);
    };
    const flowStart = Date.now();
    await Promise.all([...sources.map((_, index) => client(index)), killer()]);
    const flowMs = Date.now() - flowStart;
    log(`${ackedCount} acknowledged of ${sent} sent (${failed} failed) in ${flowMs} ms`);

    // Every acknowledged event must show up; a process that died holding a claim gives it up
    // after its lease (15 s), so the wait is long.
    const reader = () => live()[0] ?? nodes[0];
    const binOf = async (sourceId) => {
      const response = await call(reader().base, 'GET', `/v1/sources/${sourceId}/event_summaries?limit=100`);
      if (response.status !== 200) throw new Error(`event_summaries: ${response.status}`);
      return response.body.data.map((summary) => summary.event).reverse();
    };
    const deadline = Date.now() + (options.settleMs ?? 150_000);
    let bins = [];
    for (;;) {
      bins = await Promise.all(sources.map((source) => binOf(source.id)));
      const missing = bins.reduce((sum, bin, index) => {
        const seen = new Set(bin.map((event) => event.n));
        return sum + acked[index].filter((n) => !seen.has(n)).length;
      }, 0);
      if (missing === 0 || Date.now() > deadline) break;
      await delay(500);
    }
    let lost = 0;
    let outOfOrder = 0;
    let ranTwice = 0;
    for (const [index, bin] of bins.entries()) {
      const numbers = bin.map((event) => event.n);
      const seen = new Set(numbers);
      lost += acked[index].filter((n) => !seen.has(n)).length;
      ranTwice += numbers.length - seen.size;
      for (let at = 1; at < numbers.length; at += 1) if (numbers[at] <= numbers[at - 1]) outOfOrder += 1;
    }
    // A short run (the test's seed) may end before the 15 s timers are first due: wait for each
    // to have fired once, so "no tick twice" is measured on ticks that happened.
    const tickDeadline = timersDeployedAt + 45_000;
    while (Date.now() < tickDeadline) {
      const fired = await Promise.all(timers.map((timer) => binOf(timer.id)));
      if (fired.every((bin) => bin.length > 0)) break;
      await delay(500);
    }
    let ticks = 0;
    let ticksTwice = 0;
    for (const timer of timers) {
      const fired = (await binOf(timer.id)).map((event) => event.at);
      ticks += fired.length;
      ticksTwice += fired.length - new Set(fired).size;
    }
    const result = {
      backend,
      processes,
      kills,
      /** Acknowledged events when each kill came. */
      killedAt,
      sources: sourceCount,
      timers: timerCount,
      acknowledged: ackedCount,
      sent,
      failedRequests: failed,
      lost,
      outOfOrder,
      ranTwice,
      ticks,
      ticksTwice,
      flowMs,
      totalMs: Date.now() - startedAt,
      loadAverage: os.loadavg().map((value) => Math.round(value * 100) / 100),
    };
    log(JSON.stringify(result));
    return result;
  } finally {
    for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
  }
}
