// Reliability at full size (issue 13): three `tributary start` processes on PostgreSQL and Redis,
// 10,000 HTTP events, 20 kill -9 of random processes while they flow, each restarted; then the
// same on SQLite with one process. Writes bench/results/reliability.json.
// Options: --events N, --kills K, --only postgres|sqlite. Needs PostgreSQL and Redis on
// 127.0.0.1 (or TRIBUTARY_TEST_DATABASE_URL / TRIBUTARY_TEST_REDIS_URL) and a built checkout.
import console from 'node:console';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { machine, writeResult } from './lib.mjs';
import { runReliability } from './reliability-lib.mjs';
import { gitState } from './server-lib.mjs';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '10000' },
    kills: { type: 'string', default: '20' },
    only: { type: 'string' },
  },
});
const log = (message) => console.error(`${new Date().toISOString()} ${message}`);
const runs = [];
for (const backend of ['postgres', 'sqlite']) {
  if (values.only && values.only !== backend) continue;
  runs.push(await runReliability({ backend, events: Number(values.events), kills: Number(values.kills), log }));
}
const pass = runs.every((run) => run.lost === 0 && run.outOfOrder === 0 && run.ticksTwice === 0);
writeResult('reliability', { date: new Date().toISOString(), machine: machine(), git: gitState(), runs, pass });
console.log(JSON.stringify(runs, null, 2));
console.log(pass ? 'PASS: no acknowledged event lost, order kept, no tick twice' : 'FAIL');
process.exitCode = pass ? 0 : 1;
