import {
  describeTimer,
  timerEvent,
  type InvocationKind,
  type InvocationResult,
  type TimerSchedule,
} from '@tributary/runtime';
import { isAppError } from '@tributary/contracts';
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
      customResponse: () => options.instance.props.http?.customResponse === true,
      deliver: (delivery) => this.deliverHttp(delivery),
    });
    this.timer = new DevTimer((at) => {
      const schedule = this.options.instance.props.timer?.schedule;
      if (schedule)
        void this.enqueue('run', `timer ${describeSchedule(schedule)}`, { event: timerEvent(schedule, at) });
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
      const results = fresh
        ? await instance.deployIfNew({ onLog: (entry) => printer.log('deploy', entry) })
        : [await instance.invoke('activate', { onLog: (entry) => printer.log('activate', entry) })];
      for (const result of results)
        printer.notice({ type: 'result', result, trigger: fresh ? 'first start' : 'start' });
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
      const result = await this.options.instance.invoke('deactivate', {
        onLog: (entry) => this.options.printer.log('deactivate', entry),
      });
      this.options.printer.notice({ type: 'result', result, trigger: 'stop' });
    });
    this.options.printer.notice({ type: 'stopped' });
  }

  private deliverHttp(delivery: IngressDelivery): void {
    const event = delivery.event;
    void this.enqueue('run', `${String(event['method'])} ${String(event['path'])}`, {
      event,
      onRespond: (response) => delivery.respond(response),
    }).then((result) => delivery.respond(result?.response ?? null));
  }

  private enqueue(
    kind: InvocationKind,
    trigger: string,
    options: Parameters<LocalInstance['invoke']>[1] = {},
  ): Promise<InvocationResult | null> {
    return this.serial(async () => {
      if (this.stopped) return null;
      const { printer, instance } = this.options;
      printer.notice({ type: 'invocation', kind, trigger });
      const result = await instance.invoke(kind, { ...options, onLog: (entry) => printer.log(kind, entry) });
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
        const { results, applied } = await instance.update(next, { onLog: (entry) => printer.log('update', entry) });
        // Stop whichever worker holds the code that is no longer running.
        (applied ? previous : next).handle.close();
        for (const result of results) printer.notice({ type: 'result', result, trigger: 'update' });
        printer.notice({ type: 'reload', file, applied });
        this.startTimer();
      } catch (error) {
        const code = isAppError(error) ? error.code : 'INTERNAL';
        const message = error instanceof Error ? error.message : String(error);
        printer.notice({ type: 'error', code, message: `${message} (still running the previous code)` });
      } finally {
        this.watcher.watch(instance.code.prepared.files);
      }
    });
  }

  private startTimer(): void {
    const schedule = this.options.instance.props.timer?.schedule;
    if (schedule) this.timer.start(schedule);
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
