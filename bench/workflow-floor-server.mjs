// The floor of issue 10's workflow design, as a bench server (forked by workflow-floor.mjs): the
// least work any implementation of the rules does per run, written as directly as Node allows, so
// the gap between it and Node-RED is the price of the rules themselves, not of Tributary's code.
// The rules kept: every run is stored before it is acknowledged (asynchronous) or started
// (synchronous); each step runs in another process (a worker), never in the server; a step's result
// is stored before the next step starts; a run's end is stored. Left out, in the floor's favour:
// bubblewrap, the permission model and uid switch of the workers (plain `fork`), props, expressions,
// logs, limits, exports, deliveries, keep_runs, metrics, any validation of what workers send back.
// Calls of the same step made in one turn of the event loop go to a worker in one message (up to
// `--gather`), and the stores of one turn share one transaction, as Tributary's group commits do.
//   POST /sync   the run's second step answers the request (`$.respond`), as in the bench workflow
//   POST /async  200 once the run is stored; the run then goes on
//   GET  /count  runs finished (stored as finished)
// Run: node bench/workflow-floor-server.mjs <port> <sqlite file> <workers> <gather>
//      (reports `listening` over IPC; a child started with `worker` as its argument is a step worker)
import { Buffer } from 'node:buffer';
import { fork } from 'node:child_process';
import http from 'node:http';
import process from 'node:process';
import { setImmediate } from 'node:timers';
import { fileURLToPath } from 'node:url';

if (process.argv[2] === 'worker') {
  // The steps of the bench workflow: pick two fields of the body, then answer with them (sync) or
  // count (async). Each item carries the run's `steps` object, as a workflow step receives it.
  process.on('message', (message) => {
    const results = message.items.map((item) => {
      const { steps } = item;
      switch (item.step) {
        case 'pick': {
          const body = steps.trigger.event.body;
          return { id: item.id, value: { seq: body.seq, sentAt: body.sentAt } };
        }
        case 'respond':
          return { id: item.id, value: true, response: { status: 200, body: steps.pick.$return_value } };
        case 'count':
          return { id: item.id, value: true };
        default:
          return { id: item.id, error: `unknown step ${item.step}` };
      }
    });
    process.send({ batch: message.batch, results });
  });
} else {
  const [port, file, workerCount, gatherMax] = process.argv.slice(2);
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY, kind TEXT NOT NULL, event TEXT NOT NULL, steps TEXT NOT NULL,
    next_step INTEGER NOT NULL, status TEXT NOT NULL, created_at INTEGER NOT NULL, finished_at INTEGER)`);
  const insertRun = db.prepare(
    "INSERT INTO runs (kind, event, steps, next_step, status, created_at) VALUES (?, ?, '{}', 0, 'running', ?)",
  );
  const checkpoint = db.prepare('UPDATE runs SET steps = ?, next_step = ? WHERE id = ?');
  const finish = db.prepare(
    "UPDATE runs SET steps = ?, next_step = ?, status = 'succeeded', finished_at = ? WHERE id = ?",
  );
  const countFinished = db.prepare("SELECT count(*) AS n FROM runs WHERE status = 'succeeded'");

  const STEPS = { sync: ['pick', 'respond'], async: ['pick', 'count'] };

  // One transaction per turn for every store asked for in that turn; each caller continues after it.
  let writes = [];
  const store = (write, then) => {
    writes.push({ write, then });
    if (writes.length === 1) setImmediate(flushWrites);
  };
  const flushWrites = () => {
    const batch = writes;
    writes = [];
    db.transaction(() => {
      for (const entry of batch) entry.result = entry.write();
    })();
    for (const entry of batch) entry.then(entry.result);
  };

  // Step calls gathered per turn and step, sent to the workers in turn.
  const workers = Array.from({ length: Number(workerCount) }, () =>
    fork(fileURLToPath(import.meta.url), ['worker'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
  );
  let nextWorker = 0;
  let nextBatch = 0;
  const waitingBatches = new Map();
  for (const worker of workers)
    worker.on('message', (message) => {
      const runs = waitingBatches.get(message.batch);
      waitingBatches.delete(message.batch);
      for (const [index, result] of message.results.entries()) stepDone(runs[index], result);
    });
  let calls = [];
  const call = (run) => {
    calls.push(run);
    if (calls.length === 1) setImmediate(sendCalls);
  };
  const sendCalls = () => {
    const all = calls;
    calls = [];
    for (let start = 0; start < all.length; start += Number(gatherMax)) {
      const runs = all.slice(start, start + Number(gatherMax));
      const batch = (nextBatch += 1);
      waitingBatches.set(batch, runs);
      const worker = workers[nextWorker];
      nextWorker = (nextWorker + 1) % workers.length;
      worker.send({
        batch,
        items: runs.map((run) => ({ id: run.id, step: STEPS[run.kind][run.next], steps: run.steps })),
      });
    }
  };

  const stepDone = (run, result) => {
    const name = STEPS[run.kind][run.next];
    run.steps[name] = { $return_value: result.value };
    run.next += 1;
    // The answer goes out as the step gives it, before its result is stored (as `$.respond` does).
    if (result.response && run.reply) {
      run.reply.writeHead(result.response.status, { 'content-type': 'application/json' });
      run.reply.end(JSON.stringify(result.response.body));
    }
    const done = run.next === STEPS[run.kind].length;
    const text = JSON.stringify(run.steps);
    store(
      () => (done ? finish.run(text, run.next, Date.now(), run.id) : checkpoint.run(text, run.next, run.id)),
      () => (done ? undefined : call(run)),
    );
  };

  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/count') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ completed: countFinished.get().n }));
      return;
    }
    const kind = req.url === '/sync' ? 'sync' : req.url === '/async' ? 'async' : null;
    if (req.method !== 'POST' || !kind) {
      res.writeHead(404).end();
      return;
    }
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const event = { method: req.method, path: req.url, headers: req.headers, body: JSON.parse(text) };
      const run = { id: 0, kind, steps: { trigger: { event } }, next: 0, reply: kind === 'sync' ? res : null };
      store(
        () => insertRun.run(kind, text, Date.now()).lastInsertRowid,
        (id) => {
          run.id = Number(id);
          if (kind === 'async') {
            res.writeHead(200, { 'content-type': 'text/plain' });
            res.end('OK');
          }
          call(run);
        },
      );
    });
  });
  server.listen(Number(port), '127.0.0.1', () => process.send?.({ type: 'listening' }));
  process.on('SIGTERM', () => {
    for (const worker of workers) worker.kill();
    server.close();
    db.close();
    process.exit(0);
  });
}
