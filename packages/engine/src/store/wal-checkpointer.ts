import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SqliteDatabase from 'better-sqlite3';

export interface WalCheckpointerOptions {
  /** The SQLite file (WAL mode) whose connection `raw` no longer checkpoints by itself. */
  readonly file: string;
  readonly raw: SqliteDatabase.Database;
  /** Where a line goes when the checkpointer fails and the connection checkpoints by itself again. */
  readonly log: (message: string) => void;
  /** Pause between checkpoints while frames keep coming (ms). */
  readonly busyMs?: number;
  /** Pause between checkpoints while the log is quiet (ms). */
  readonly idleMs?: number;
  /**
   * Log frames past which the server's connection restarts the log: under commits that never
   * pause, the thread's checkpoints never find the log wholly copied, which is when the next
   * commit starts it over, and it would grow without end.
   */
  readonly restartFrames?: number;
}

/**
 * Log frames (pages) past which the log is restarted: 8 MB. A limit of 64 MB made a workflow
 * load's rate 3-6 % lower (a longer log to look pages up in) than its rarer restarts saved.
 */
export const RESTART_FRAMES = 2048;

/** SQLite's own default of `wal_autocheckpoint`, restored when the checkpointer stops for good. */
const AUTO_CHECKPOINT_PAGES = 1000;

/*
 * The thread's code, as a script: the engine runs from TypeScript in tests and from JavaScript
 * built beside it otherwise, and a worker thread cannot load the former. It gets the driver's path.
 */
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
let stopping = false;
let timer = null;
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  stopping = true;
  clearTimeout(timer);
  db.close();
  parentPort.close();
});
function tick() {
  if (stopping) return;
  const [passive] = db.pragma('wal_checkpoint(PASSIVE)');
  if (passive.log > workerData.restartFrames) parentPort.postMessage('restart');
  timer = setTimeout(tick, passive.checkpointed > 0 ? workerData.busyMs : workerData.idleMs);
}
tick();
`;

/**
 * Checkpoints the WAL of the server's SQLite file on a thread of its own. A checkpoint syncs the
 * log and the database file to disk (synchronous = NORMAL), each sync a few milliseconds on a
 * virtual disk; run by the connection that commits (SQLite's automatic checkpoint, every 1,000
 * pages), every sync stalled the event loop, and under a workflow load that writes tens of MB/s of
 * pages that was many times a second. Here the syncs and the copying wait on this thread instead.
 * Durability is unchanged: commits were never synced in WAL mode with synchronous = NORMAL, and a
 * checkpoint is as crash-safe from any connection. If the thread fails, the connection goes back
 * to checkpointing by itself.
 */
export class WalCheckpointer {
  private readonly thread: Worker;
  private stopped = false;
  private readonly exited: Promise<void>;

  constructor(private readonly options: WalCheckpointerOptions) {
    options.raw.pragma('wal_autocheckpoint = 0');
    this.thread = new Worker(THREAD, {
      eval: true,
      workerData: {
        driver: createRequire(import.meta.url).resolve('better-sqlite3'),
        file: options.file,
        busyMs: options.busyMs ?? 10,
        idleMs: options.idleMs ?? 250,
        restartFrames: options.restartFrames ?? RESTART_FRAMES,
      },
    });
    // It must not keep a process alive that is otherwise done (a CLI command, a test).
    this.thread.unref();
    this.thread.on('error', (error) => this.fallBack(`the WAL checkpoint thread failed: ${error.message}`));
    this.thread.on('message', (message) => {
      if (message === 'restart') this.restartHere();
    });
    this.exited = new Promise((resolve) => this.thread.once('exit', () => resolve()));
    void this.exited.then(() => this.fallBack('the WAL checkpoint thread ended'));
  }

  /** Stops the thread (its connection closed) before the server's own connection closes. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    // Waited for: unreferenced, a process with nothing else left would end while it stops.
    this.thread.ref();
    this.thread.postMessage('stop');
    await this.exited;
  }

  /**
   * Restarts the log from the server's connection, between its commits: the thread's checkpoints
   * copied most of it already, so this copies the last commits and syncs. Only the writer can do
   * it for sure; a checkpoint of the thread that waited for a gap between commits could stall
   * them longer than this, in the busy handler.
   */
  private restartHere(): void {
    const { raw } = this.options;
    if (this.stopped || !raw.open || raw.inTransaction) return;
    try {
      raw.pragma('wal_checkpoint(RESTART)');
    } catch (error) {
      // A reader held the log: the thread asks again.
      if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
    }
  }

  private fallBack(message: string): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.options.raw.open) this.options.raw.pragma(`wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
    this.options.log(`${message}; the database checkpoints its WAL from the server's connection again`);
  }
}
