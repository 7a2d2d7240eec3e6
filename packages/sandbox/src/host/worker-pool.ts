import type { WorkerProcess } from './worker-process.js';

/** A started worker with the component it loaded. */
export interface PooledWorker<T> {
  readonly worker: WorkerProcess;
  readonly loaded: T;
}

export interface WorkerPoolOptions {
  /** Warm workers kept at most; past it the least recently used idle one is stopped. */
  readonly maxWorkers: number;
  /** A worker unused this long is stopped. */
  readonly idleMs: number;
}

/**
 * Warm workers by key (one per component): started on first use, reused, stopped when idle or
 * when the cap needs room (least recently used first). A dead worker is dropped and the next
 * `get` starts a fresh one, so a crash costs one invocation and nothing more.
 */
export class WorkerPool<T> {
  private readonly workers = new Map<string, Promise<PooledWorker<T>>>();
  private readonly settled = new Map<string, PooledWorker<T>>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly options: WorkerPoolOptions) {
    this.sweeper = setInterval(() => this.sweep(), Math.max(1000, Math.floor(options.idleMs / 4)));
    this.sweeper.unref();
  }

  get size(): number {
    return this.workers.size;
  }

  async get(key: string, start: () => Promise<PooledWorker<T>>): Promise<PooledWorker<T>> {
    const current = this.settled.get(key);
    if (current && !current.worker.isAlive) this.drop(key);
    const existing = this.workers.get(key);
    if (existing) return existing;
    this.makeRoom();
    const starting = start().then(
      (pooled) => {
        this.settled.set(key, pooled);
        return pooled;
      },
      (error: unknown) => {
        this.workers.delete(key);
        throw error;
      },
    );
    this.workers.set(key, starting);
    return starting;
  }

  /** Stops the worker of `key` (if any) so the next `get` starts a fresh one. */
  drop(key: string): void {
    const pooled = this.settled.get(key);
    this.workers.delete(key);
    this.settled.delete(key);
    pooled?.worker.kill('evicted');
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const pending = [...this.workers.values()];
    for (const key of [...this.workers.keys()]) this.drop(key);
    await Promise.allSettled(pending);
  }

  private makeRoom(): void {
    if (this.workers.size < this.options.maxWorkers) return;
    const idle = [...this.settled.entries()]
      .filter(([, pooled]) => !pooled.worker.isBusy)
      .sort(([, a], [, b]) => a.worker.lastUsedAt - b.worker.lastUsedAt);
    const oldest = idle[0];
    if (oldest) this.drop(oldest[0]);
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, pooled] of this.settled) {
      if (!pooled.worker.isAlive || (!pooled.worker.isBusy && now - pooled.worker.lastUsedAt > this.options.idleMs))
        this.drop(key);
    }
  }
}
