import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AppError } from '@tributary/contracts';
import { timerEvent, type InvocationResult } from '@tributary/runtime';
import { EXIT_COMPONENT_FAILED, EXIT_OK } from '../exit-codes.js';
import { createSandbox } from '../local/create-sandbox.js';
import { LocalInstance } from '../local/local-instance.js';
import { parseJson } from '../local/prop-flags.js';
import { buildRunReport, emptyReport } from '@tributary/engine/local-run';
import type { Output } from '../ui/output.js';
import { reportFailure } from '../ui/report-error.js';
import { DEFAULT_DEV_PORT } from '../commands/dev.js';
import type { RunCommandOptions } from '../commands/run.js';
import { parseSeconds } from './flag-values.js';
import { printReport } from './run-report.js';

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
