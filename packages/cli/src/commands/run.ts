import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AppError } from '@tributary/contracts';
import { timerEvent, type InvocationResult } from '@tributary/runtime';
import type { Command } from 'commander';
import { EXIT_COMPONENT_FAILED, EXIT_OK } from '../exit-codes.js';
import { createSandbox } from '../local/create-sandbox.js';
import { LocalInstance } from '../local/local-instance.js';
import { parseJson, type PropFlags } from '../local/prop-flags.js';
import { buildRunReport, emptyReport, type RunReport } from '@tributary/engine';
import { compact, payloadLine, type Output } from '../ui/output.js';
import { reportFailure } from '../ui/report-error.js';
import { addPropOptions, parseSeconds } from './common-options.js';
import { DEFAULT_DEV_PORT } from './dev.js';
import { runRemoteAction } from './run-remote.js';
import type { RemoteFlags } from '../remote/connection.js';
import { errorLines } from '../ui/error-lines.js';

export interface RunCommandOptions extends PropFlags, RemoteFlags {
  readonly remote?: boolean;
  readonly event?: string;
  readonly state?: string;
  readonly timeout?: string;
  readonly json?: boolean;
}

export function registerRunCommand(program: Command, output: Output, setExit: (code: number) => void): void {
  addPropOptions(
    program
      .command('run')
      .description(
        'Run an action once, or a source once (its deploy and activate hooks run first when the state is new)',
      )
      .argument('<file>', 'component file (.mjs, .js, .cjs or .ts); with --remote also a published key'),
  )
    .option('--event <JSON>', 'the event a source run receives (default: a timer event for timer sources, else {})')
    .option('--state <DIR>', 'keep db and dedupe state in DIR between runs (default: a fresh state every run)')
    .option('--timeout <SECONDS>', 'deadline of each invocation (default 300 for sources, 30 for actions)')
    .option('--json', 'print exactly one JSON object (see docs/cli.md)')
    .option('--remote', 'run the action on the server (POST /v1/actions/run) instead of on this machine')
    .option('-p, --profile <NAME>', 'with --remote: profile of the config file (TRIBUTARY_PROFILE)')
    .option('--api-url <URL>', 'with --remote: server URL (TRIBUTARY_API_URL)')
    .option('--api-key <KEY>', 'with --remote: API key (TRIBUTARY_API_KEY)')
    .addHelpText(
      'after',
      `
Examples:
  $ tributary run hello.mjs --prop name=World
  $ tributary run sum.mjs --prop 'nums=[1,2,3]' --json
  $ tributary run counter.mjs --state .state/counter     # db and dedupe survive between runs
  $ tributary run echo.mjs --event '{"method":"POST","body":{"a":1}}'
  $ tributary run --remote my-published-action --prop name=World --json
  $ tributary run --remote acme-action.mjs --prop acme=apn_AbC123 --prop board=b1

Exit codes: 0 ok, 1 the component threw or timed out, 2 usage, load or validation error.
With --remote: 0 ok, 1 the action failed or was refused (usage, validation, a prop), 2 server or
network error.`,
    )
    .action(async (file: string, options: RunCommandOptions) => {
      setExit(options.remote ? await runRemoteAction(file, options, output) : await runRun(file, options, output));
    });
}

export async function runRun(file: string, options: RunCommandOptions, output: Output): Promise<number> {
  const json = options.json === true;
  const temporary = options.state ? null : mkdtempSync(path.join(os.tmpdir(), 'tributary-run-'));
  const sandbox = createSandbox(output);
  try {
    const event = options.event === undefined ? undefined : parseJson(options.event, '--event');
    const instance = await LocalInstance.create({
      file,
      flags: options,
      stateDir: options.state ?? temporary,
      endpointBase: `http://127.0.0.1:${DEFAULT_DEV_PORT}`,
      sandbox,
      ...(options.timeout ? { timeoutMs: parseSeconds(options.timeout, '--timeout') } : {}),
    });
    const deployed = await instance.deployIfNew();
    const results: InvocationResult[] = [...(deployed?.ran ?? [])];
    if (deployed === null || deployed.kind === 'applied') {
      const timer = instance.props.timer;
      const runEvent =
        event ??
        (instance.component.type === 'source' ? (timer ? timerEvent(timer.schedule, Date.now()) : {}) : undefined);
      results.push(await instance.run({ event: runEvent }));
    }
    const report = buildRunReport({ type: instance.component.type, results, warnings: instance.code.issues });
    if (json) output.json(report);
    else printReport(output, report, instance.component.name ?? path.basename(file));
    return report.ok ? EXIT_OK : EXIT_COMPONENT_FAILED;
  } catch (error) {
    return reportFailure(output, error, {
      json,
      jsonShape: (appError: AppError) => ({ ...emptyReport(), error: appError.toJSON() }),
    });
  } finally {
    await sandbox.close();
    if (temporary) rmSync(temporary, { recursive: true, force: true });
  }
}

export function printReport(output: Output, report: RunReport, name: string): void {
  for (const warning of report.warnings)
    output.err(`${output.style('yellow', 'warning')} ${warning.rule}: ${warning.message}`);
  const status = report.ok ? output.style('green', 'ok') : output.style('red', 'failed');
  output.out(`${output.style('bold', name)} (${report.type ?? 'component'}) ${status}`);
  if (report.hooks.length > 0) {
    output.out(`  hooks    ${report.hooks.map((hook) => `${hook.name} ${hook.ok ? 'ok' : 'failed'}`).join(', ')}`);
  }
  if (report.logs.length > 0) {
    output.out('  logs');
    for (const entry of report.logs) {
      const level =
        entry.level === 'info' ? '' : `${output.style(entry.level === 'error' ? 'red' : 'yellow', entry.level)} `;
      output.out(`    ${level}${entry.message.split('\n').join('\n    ')}`);
    }
  }
  if (report.type === 'source') {
    output.out(`  emitted  ${report.emits.length} event${report.emits.length === 1 ? '' : 's'}`);
    for (const emit of report.emits) {
      const id = emit.metadata.id === undefined ? '' : ` id=${String(emit.metadata.id)}`;
      output.out(`    [${emit.metadata.name}${id}] ${emit.metadata.summary}`);
      const payload = payloadLine(emit.event, emit.metadata.summary);
      if (payload !== null) output.out(`      ${output.style('dim', payload)}`);
    }
    for (const dropped of report.deduped)
      output.out(`    ${output.style('dim', `deduped: ${dropped.metadata.summary} (${dropped.reason})`)}`);
  }
  if (report.summary !== null) output.out(`  summary  ${report.summary}`);
  const exports = Object.entries(report.exports).filter(([name]) => name !== '$summary');
  if (exports.length > 0) {
    output.out('  exports');
    for (const [exported, value] of exports) output.out(`    ${exported}: ${compact(value)}`);
  }
  if (report.exit) output.out(`  exit     ${report.exit.reason ?? '(no reason)'}`);
  if (report.response) output.out(`  response ${report.response.status} ${compact(report.response.body)}`);
  for (const send of report.sends)
    output.out(`  send     $.send.${send.kind} ${compact(send.config)} (${sendOutcome(send)})`);
  if (report.type === 'action' && report.exit === null) output.out(`  return   ${compact(report.return_value)}`);
  if (report.error) {
    for (const line of errorLines(output, report.error)) output.err(line);
  }
}

/** A local run only records a send; a run on a server (`--remote`) says how its delivery stands. */
function sendOutcome(send: RunReport['sends'][number]): string {
  const delivery = send.delivery;
  if (!delivery) return 'recorded, not delivered';
  const attempts = `${delivery.attempts} attempt${delivery.attempts === 1 ? '' : 's'}`;
  return `${delivery.id} ${delivery.status} after ${attempts}${delivery.last_error ? `: ${delivery.last_error}` : ''}`;
}
