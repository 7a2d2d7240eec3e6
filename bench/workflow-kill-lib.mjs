// Workflow runs under kill -9: one `tributary start` on SQLite runs the asynchronous benchmark
// workflow (HTTP trigger answering when the run is queued -> pick-fields -> code step) while
// `runs` requests are acknowledged by its endpoint; `kills` times, spread evenly over the stream,
// the process gets SIGKILL and is started again on the same data directory 0.2-1 s later. Then
// every acknowledged request must have exactly one run, and every run must have succeeded.
// Used by workflows-vs-node-red.mjs (full size) and packages/cli/test/workflow-kill.test.ts (seed).
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { URL } from 'node:url';
import { call, Node } from './cluster-lib.mjs';
import { BENCH_DIR } from './lib.mjs';
import { freePort } from './server-lib.mjs';

/** How many requests are in flight at once during the stream. */
const SENDERS = 8;

function asyncWorkflow() {
  return {
    name: 'bench-kill',
    settings: { keep_runs: 100_000 },
    trigger: { type: 'http' },
    steps: [
      {
        name: 'pick',
        action: 'tributary-pick-fields',
        props: { data: '{{ JSON.stringify(steps.trigger.event.body) }}', paths: ['seq'] },
      },
      { name: 'count', code: readFileSync(path.join(BENCH_DIR, 'components', 'workflow-count-step.mjs'), 'utf8') },
    ],
  };
}

/**
 * Options: runs (acknowledged requests to reach), kills, drainMs (how long to wait for the runs
 * to finish after the stream; default 180 s), log, onCleanup (given the clean-up, for a signal
 * handler). Resolves with the counts; throws only when the
 * setup fails.
 */
export async function runKillStream({ runs, kills, drainMs = 180_000, log = () => undefined, onCleanup }) {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-workflow-kill-'));
  chmodSync(scratch, 0o755);
  const node = new Node('kill', await freePort(), path.join(scratch, 'data'), {
    TRIBUTARY_CACHE_DIR: path.join(scratch, 'cache'),
  });
  let db = null;
  const cleanup = async () => {
    db?.close();
    db = null;
    await node.stop();
    rmSync(scratch, { recursive: true, force: true });
  };
  // The caller's Ctrl+C handler stops the process and removes the scratch folder too.
  onCleanup?.(cleanup);
  try {
    const started = Date.now();
    await node.start();
    let workflow = null;
    for (let attempt = 0; !workflow; attempt += 1) {
      const answer = await call(node.base, 'POST', '/v1/workflows', asyncWorkflow());
      if (answer.status === 200 || answer.status === 201) workflow = answer.body.data;
      else if (attempt >= 20 || !JSON.stringify(answer.body).includes('tributary-pick-fields'))
        throw new Error(`workflow deploy answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      else await delay(500);
    }
    const endpoint = new URL(workflow.endpoint_url).pathname;
    log(`workflow ${workflow.id} deployed after ${Date.now() - started} ms`);

    const acked = [];
    let seq = 0;
    let refused = 0;
    let killsDone = 0;
    let restarting = null;
    const killAt = Array.from({ length: kills }, (_, index) => Math.floor(((index + 1) * runs) / (kills + 1)));
    const killAndRestart = async () => {
      await node.kill();
      killsDone += 1;
      await delay(200 + Math.random() * 800);
      await node.start();
    };
    const streamStarted = Date.now();
    const sender = async () => {
      while (acked.length < runs) {
        if (restarting) {
          await restarting;
          continue;
        }
        seq += 1;
        const mine = seq;
        try {
          const answer = await call(node.base, 'POST', endpoint, { seq: mine });
          if (answer.status === 200) acked.push(mine);
          else refused += 1;
        } catch {
          // The process died under this request: not acknowledged, so not owed a run.
          refused += 1;
        }
        if (killsDone < kills && acked.length >= killAt[killsDone] && !restarting) {
          restarting = killAndRestart().finally(() => {
            restarting = null;
          });
        }
      }
    };
    await Promise.all(Array.from({ length: SENDERS }, sender));
    const streamMs = Date.now() - streamStarted;
    log(`${acked.length} acknowledged, ${refused} refused, ${killsDone} kills in ${streamMs} ms`);

    const { default: Database } = await import('better-sqlite3');
    db = new Database(path.join(node.dataDir, 'tributary.db'), { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    const unfinished = db.prepare(
      'select count(*) as n from workflow_runs where workflow_id = ? and finished_at is null',
    );
    const drainStarted = Date.now();
    while (unfinished.get(workflow.id).n > 0 && Date.now() - drainStarted < drainMs) await delay(250);
    const runsBySeq = new Map();
    const rows = db
      .prepare("select json_extract(event, '$.body.seq') as seq, status from workflow_runs where workflow_id = ?")
      .all(workflow.id);
    for (const row of rows) {
      const list = runsBySeq.get(row.seq) ?? [];
      list.push(row.status);
      runsBySeq.set(row.seq, list);
    }
    let lost = 0;
    let notFinished = 0;
    let failed = 0;
    let duplicates = 0;
    for (const mine of acked) {
      const statuses = runsBySeq.get(mine);
      if (!statuses) lost += 1;
      else {
        if (statuses.length > 1) duplicates += 1;
        if (statuses.some((status) => status !== 'succeeded' && status !== 'failed')) notFinished += 1;
        if (statuses.some((status) => status === 'failed')) failed += 1;
      }
    }
    return {
      acknowledged: acked.length,
      refused,
      kills: killsDone,
      runsStored: rows.length,
      lost,
      notFinished,
      failed,
      duplicates,
      streamMs,
      runsPerSecond: Math.round((acked.length / streamMs) * 1000 * 10) / 10,
      drainAfterStreamMs: Date.now() - drainStarted,
    };
  } finally {
    await cleanup();
  }
}
