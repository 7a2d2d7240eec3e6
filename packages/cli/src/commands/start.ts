import type { Command } from 'commander';
import type { StartFlags } from '../start/server-config.js';
import type { Output } from '../ui/output.js';

export function registerStartCommand(program: Command, output: Output, setExit: (code: number) => void): void {
  program
    .command('start')
    .description('Start the Tributary server: REST API, HTTP endpoints, scheduler and workers, on SQLite or PostgreSQL')
    .option(
      '--role <ROLE>',
      'all (one process), or one part of several sharing PostgreSQL and Redis: api, worker or scheduler (TRIBUTARY_ROLE, default all)',
      undefined,
    )
    .option('--port <PORT>', 'port to listen on (TRIBUTARY_PORT)', undefined)
    .option('--host <HOST>', 'address to listen on (TRIBUTARY_HOST)', undefined)
    .option('--data-dir <DIR>', 'database, master key and saved code (TRIBUTARY_DATA_DIR)', undefined)
    .option(
      '--database-url <URL>',
      'keep the state in PostgreSQL instead of the SQLite file, postgres://user:password@host:5432/db (TRIBUTARY_DATABASE_URL)',
      undefined,
    )
    .option(
      '--apps-file <FILE>',
      'JSON file of app catalog entries, see docs/accounts.md (TRIBUTARY_APPS_FILE)',
      undefined,
    )
    .option(
      '--endpoint-rate-per-s <N>',
      'requests per second each HTTP endpoint takes, 0 = no limit (TRIBUTARY_ENDPOINT_RATE_PER_S, default 10)',
      undefined,
    )
    .option(
      '--endpoint-burst <N>',
      'requests an HTTP endpoint takes at once (TRIBUTARY_ENDPOINT_BURST, default 50)',
      undefined,
    )
    .option(
      '--redis-url <URL>',
      'Redis shared by several processes: pub/sub, the endpoint rate limit, worker wake-ups and timers (TRIBUTARY_REDIS_URL)',
      undefined,
    )
    .option(
      '--log-level <LEVEL>',
      'server log on stderr: fatal, error, warn, info, debug, trace or silent (TRIBUTARY_LOG_LEVEL, default info)',
      undefined,
    )
    .addHelpText(
      'after',
      `
The first start creates the data directory, the database and an admin API key, printed once
(or taken from TRIBUTARY_ADMIN_KEY). SIGTERM or Ctrl+C stops it cleanly: it takes no new
work, requests in flight finish, invocations in flight get TRIBUTARY_SHUTDOWN_GRACE_MS
(default 30 s) and are then stopped; unfinished work stays queued for the next start.
docs/config.md lists every setting.

Several processes share the work on PostgreSQL and Redis (docs/deployment.md): --role api
serves the REST API, web app, SSE and HTTP endpoints; --role worker runs invocations and
deliveries; --role scheduler fires timers. Worker and scheduler processes listen on no port.

Examples:
  $ tributary start
  $ tributary start --port 9000 --data-dir /var/lib/tributary
  $ tributary start --apps-file ./apps.json
  $ tributary start --redis-url redis://127.0.0.1:6379
  $ TRIBUTARY_DATABASE_URL=postgres://tributary@127.0.0.1:5432/tributary tributary start
  $ TRIBUTARY_DATABASE_URL=postgres://… TRIBUTARY_REDIS_URL=redis://… tributary start --role worker
  $ TRIBUTARY_ADMIN_KEY=trb_mysecretkey0123 tributary start --host 0.0.0.0`,
    )
    .action(async (flags: StartFlags) => {
      const { runStart } = await import('../actions/start.js');
      setExit(await runStart(flags, output));
    });
}
