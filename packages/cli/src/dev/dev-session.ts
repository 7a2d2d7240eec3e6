import {
  describeTimer,
  timerEvent,
  unexpectedOutcome,
  type DeployOutcome,
  type InvocationResult,
  type TimerSchedule,
  type UpdateOutcome,
} from '@tributary/runtime';
import { isAppError, errorMessage } from '@tributary/contracts/errors';
import type { Sandbox } from '@tributary/sandbox';
import { loadCode, type LocalInstance } from '../local/local-instance.js';
import { DevIngress, type IngressDelivery } from './dev-ingress.js';
import type { DevPrinter } from './dev-printer.js';
import { DevTimer } from './dev-timer.js';
import { FileWatcher } from './file-watcher.js';

export interface DevSessionOptions {
  readonly instance: LocalInstance;
  readonly sandbox: Sandbox;
  readonly file: string;
  readonly stateDir: string;
  readonly host: string;
  readonly port: number;
  readonly printer: DevPrinter;
}

/**
 * A source running on the author's machine: HTTP endpoint, timer, and reload on save. Every
 * invocation, hook and reload goes through one queue, so they never overlap (as on the server).
 */
export class DevSession {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly ingress: DevIngress;
  private readonly timer: DevTimer;
  private readonly watcher: FileWatcher;
  private stopped = false;

  constructor(private readonly options: DevSessionOptions) {
    this.ingress = new DevIngress({
      host: options.host,
      port: options.port,
      endpointId: () => options.instance.endpointId,
      active: () => options.instance.isActive,
      customResponse: () => options.instance.props.http?.customResponse === true,
      deliver: (delivery) => this.deliverHttp(delivery),
    });
    this.timer = new DevTimer((at) => {
      const schedule = this.options.instance.props.timer?.schedule;
      if (schedule && this.options.instance.isActive)
        void this.enqueue(`timer ${describeSchedule(schedule)}`, { event: timerEvent(schedule, at) });
    });
    this.watcher = new FileWatcher({ debounceMs: 150, onChange: (file) => void this.reload(file) });
  }

  async start(): Promise<void> {
    const { instance, printer } = this.options;
    const fresh = !instance.isDeployed;
    const endpoint = instance.props.http ? `${await this.listen()}/e/${instance.endpointId}` : null;
    await this.serial(async () => {
      printer.notice({
        type: 'invocation',
        kind: fresh ? 'deploy, activate' : 'activate',
        trigger: fresh ? 'first start' : 'start',
      });
      const outcome = fresh
        ? await instance.deployIfNew({ onLog: (entry) => printer.log('deploy', entry) })
        : await instance.activate({ onLog: (entry) => printer.log('activate', entry) });
      if (outcome) this.report(outcome, fresh ? 'first start' : 'start', 'save the file to try again');
    });
    this.startTimer();
    this.watcher.watch(instance.code.prepared.files);
    printer.notice({
      type: 'ready',
      file: this.options.file,
      name: instance.component.name ?? null,
      state_dir: this.options.stateDir,
      endpoint_url: endpoint,
      timer: instance.props.timer ? describeSchedule(instance.props.timer.schedule) : null,
      watching: [...instance.code.prepared.files],
    });
  }

  private async listen(): Promise<string> {
    const base = await this.ingress.listen();
    this.options.instance.useEndpointBase(base);
    return base;
  }

  /** Waits for queued work, runs deactivate, and closes the endpoint, timer and watcher. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.timer.stop();
    this.watcher.close();
    await this.ingress.close();
    await this.serial(async () => {
      if (!this.options.instance.isActive) return;
      const outcome = await this.options.instance.deactivate({
        onLog: (entry) => this.options.printer.log('deactivate', entry),
      });
      this.report(outcome, 'stop', 'stopping anyway');
    });
    this.options.printer.notice({ type: 'stopped' });
  }

  private deliverHttp(delivery: IngressDelivery): void {
    const event = delivery.event;
    void this.enqueue(`${String(event['method'])} ${String(event['path'])}`, {
      event,
      onRespond: (response) => delivery.respond(response),
    }).then((result) => delivery.respond(result?.response ?? null));
  }

  private enqueue(
    trigger: string,
    options: Parameters<LocalInstance['run']>[0] = {},
  ): Promise<InvocationResult | null> {
    return this.serial(async () => {
      if (this.stopped) return null;
      const { printer, instance } = this.options;
      printer.notice({ type: 'invocation', kind: 'run', trigger });
      const result = await instance.run({ ...options, onLog: (entry) => printer.log('run', entry) });
      printer.notice({ type: 'result', result, trigger });
      return result;
    });
  }

  private async reload(file: string): Promise<void> {
    await this.serial(async () => {
      if (this.stopped) return;
      const { instance, printer } = this.options;
      try {
        const next = await loadCode(this.options.sandbox, this.options.file);
        printer.notice({ type: 'invocation', kind: 'update', trigger: `change in ${file}` });
        const previous = instance.code;
        const outcome = await instance.update(next, { onLog: (entry) => printer.log('update', entry) });
        const applied = outcome.kind === 'applied';
        // Stop whichever worker holds the code that is no longer running.
        (applied ? previous : next).handle.close();
        this.report(outcome, 'update', 'still running the previous code');
        printer.notice({ type: 'reload', file, applied });
        this.startTimer();
      } catch (error) {
        const code = isAppError(error) ? error.code : 'INTERNAL';
        const message = errorMessage(error);
        printer.notice({ type: 'error', code, message: `${message} (still running the previous code)` });
      } finally {
        this.watcher.watch(instance.code.prepared.files);
      }
    });
  }

  /** Prints the hooks an operation ran and, when a hook failed it, the HOOK_FAILED error. */
  private report(outcome: DeployOutcome | UpdateOutcome, trigger: string, then: string): void {
    const { printer } = this.options;
    for (const result of outcome.ran) printer.notice({ type: 'result', result, trigger });
    switch (outcome.kind) {
      case 'applied':
        return;
      case 'refused':
      case 'rolled-back':
        printer.notice({
          type: 'error',
          code: outcome.failure.error.code,
          message: `${outcome.failure.error.message} (${then})`,
        });
        return;
      default:
        unexpectedOutcome(outcome);
    }
  }

  private startTimer(): void {
    const schedule = this.options.instance.props.timer?.schedule;
    if (schedule && this.options.instance.isActive) this.timer.start(schedule);
    else this.timer.stop();
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

function describeSchedule(schedule: TimerSchedule): string {
  const { cron, interval_seconds } = describeTimer(schedule);
  return cron === null
    ? `every ${interval_seconds}s`
    : `cron "${cron}" (${schedule.kind === 'cron' ? schedule.timezone : 'UTC'})`;
}
