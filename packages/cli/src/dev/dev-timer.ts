import { nextTimerFire, type TimerSchedule } from '@tributary/runtime';

/** Fires a timer source on its schedule while `dev` runs. One pending tick at a time. */
export class DevTimer {
  private handle: NodeJS.Timeout | undefined;
  private nextAt: number | null = null;

  constructor(private readonly onTick: (atMs: number) => void) {}

  start(schedule: TimerSchedule, now = Date.now()): void {
    this.stop();
    const at = nextTimerFire(schedule, now);
    this.nextAt = at;
    this.handle = setTimeout(
      () => {
        this.onTick(at);
        this.start(schedule, Math.max(Date.now(), at));
      },
      Math.max(0, at - now),
    );
  }

  get next(): number | null {
    return this.nextAt;
  }

  stop(): void {
    clearTimeout(this.handle);
    this.handle = undefined;
    this.nextAt = null;
  }
}
