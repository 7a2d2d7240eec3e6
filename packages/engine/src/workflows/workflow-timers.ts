import { errorMessage } from '@tributary/contracts';
/**
 * Fires timer-triggered workflows: checks every `intervalMs` for due workflows and queues their
 * runs (each run and its workflow's next fire time are stored in one transaction, so a restart
 * neither loses nor repeats a tick). A failed check is logged and retried at the next one.
 */
export class WorkflowTimers {
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly options: {
      readonly fire: () => Promise<number>;
      readonly log: (message: string) => void;
      readonly intervalMs: number;
    },
  ) {}

  start(): void {
    this.timer = setInterval(() => this.check(), this.options.intervalMs);
    this.timer.unref();
    this.check();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.checking;
  }

  private check(): void {
    this.checking = this.checking
      .then(() => this.options.fire())
      .catch((error: unknown) =>
        this.options.log(`checking workflow timers failed (retrying): ${errorMessage(error)}`),
      );
  }
}
