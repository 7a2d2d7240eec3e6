import { spawn, type ChildProcess } from 'node:child_process';
import { AppError, type ErrorCode, isErrorCode } from '@tributary/contracts';
import {
  PROTOCOL_VERSION,
  parseWorkerMessage,
  type HostMessage,
  type SerializedErrorMessage,
  type WorkerMessage,
} from '../protocol/messages.js';
import type { LaunchCommand } from './launch-command.js';
import { endedIfAbortedWhileWaiting } from './abort-while-waiting.js';
import { ProcessTreeMemory } from './process-memory.js';

/** Why the host ended a worker: decides the error code of what was running in it. */
export type KillReason = 'timeout' | 'memory' | 'payload' | 'evicted' | 'shutdown' | 'cancelled';
/** Why a worker process ended: the host stopped it (a kill reason), or it died by itself (`crashed`). */
export type ExitReason = KillReason | 'crashed';

/** Streamed messages of one request, delivered as they arrive. */
export interface RequestHandlers {
  readonly onStream?: (message: StreamMessage) => void;
}

/** Messages that arrive while a request runs, before its final message. */
export type StreamMessage = Extract<WorkerMessage, { type: 'log' | 'emit' | 'db_set' | 'respond' | 'item_result' }>;

/** A host message before the process adds its version and request id. */
export type HostRequest = HostMessage extends infer M ? (M extends unknown ? Omit<M, 'v' | 'id'> : never) : never;

/** How a request ended when the worker could not answer it (killed, crashed). */
export class WorkerGone extends AppError {
  /**
   * False when the request was still queued when the worker died: nothing of it ran, so it may
   * go to another worker (a shared worker taken down by another component's invocation).
   */
  sent = true;
}

type Final = Extract<
  WorkerMessage,
  { type: 'loaded' | 'props_result' | 'result' | 'batch_done' | 'options_result' | 'failed' }
>;

interface Pending {
  readonly resolve: (message: Final) => void;
  readonly reject: (error: WorkerGone) => void;
  readonly handlers: RequestHandlers;
  readonly deadlineMs: number;
  timer: NodeJS.Timeout;
  streamedBytes: number;
}

export interface WorkerProcessOptions {
  readonly launch: LaunchCommand;
  readonly memoryBytes: number;
  /** What may stream from one request before the host stops the worker (the worker stops first). */
  readonly maxStreamBytes: number;
  readonly startTimeoutMs: number;
  readonly onExit?: (reason: ExitReason) => void;
}

const STDERR_TAIL_BYTES = 4096;

/**
 * A deadline's timer that runs this much later than due found the host's loop stalled (a long GC,
 * a starved machine): the worker's answer may be on its way, so it is given this long to arrive.
 */
const STALL_MS = 100;

/**
 * One sandboxed worker process and the requests in flight to it. The host enforces what the
 * worker cannot be trusted to: deadlines (SIGKILL after the grace period), the memory cap (RSS of
 * the process tree, polled), and the size of what it streams. See ARCHITECTURE.md.
 */
export class WorkerProcess {
  private readonly child: ChildProcess;
  private readonly pending = new Map<string, Pending>();
  private killReason: KillReason | null = null;
  private stderrTail = '';
  private exited = false;
  /**
   * The worker said it is exiting, or the host is stopping it: it takes no more requests, though
   * the process may linger.
   */
  private exiting = false;
  private readonly watchdog: NodeJS.Timeout;
  private sequence = 0;
  private queue: Promise<void> = Promise.resolve();
  private waiting = 0;
  lastUsedAt = Date.now();
  /** Resident memory of the worker's process tree at the last poll (0 before the first). */
  rssBytes = 0;

  private constructor(private readonly options: WorkerProcessOptions) {
    const { launch } = options;
    this.child = spawn(launch.command, [...launch.args], {
      env: { ...launch.env },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      serialization: 'json',
      // A session of its own: Ctrl+C on a terminal signals the whole foreground process group, and
      // the host must stay the one that stops a worker (after deactivate), not the keyboard. The
      // worker still ends with the host: it exits when the IPC channel closes.
      detached: true,
      ...(launch.uid !== null ? { uid: launch.uid } : {}),
      ...(launch.gid !== null ? { gid: launch.gid } : {}),
    });
    this.child.stdout?.on('data', (chunk: Buffer) => this.keepTail(chunk));
    this.child.stderr?.on('data', (chunk: Buffer) => this.keepTail(chunk));
    this.child.on('message', (raw: unknown) => this.receive(raw));
    this.child.on('exit', (code, signal) => this.onExit(code, signal));
    this.child.on('error', (error) => {
      this.keepTail(Buffer.from(String(error)));
      this.onExit(null, null);
    });
    const memory = this.child.pid === undefined ? null : new ProcessTreeMemory(this.child.pid);
    this.watchdog = setInterval(() => this.checkMemory(memory), 100);
    this.watchdog.unref();
  }

  /** Spawns a worker and waits for its `ready` message. */
  static async start(options: WorkerProcessOptions): Promise<WorkerProcess> {
    const worker = new WorkerProcess(options);
    await worker.ready();
    return worker;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get isAlive(): boolean {
    return !this.exited && !this.exiting;
  }

  get isBusy(): boolean {
    return this.pending.size > 0 || this.waiting > 0;
  }

  /**
   * Sends one request and resolves with its final message. Requests go to the worker one at a time
   * (several handles may share a worker), and a request's deadline starts when it is sent, not
   * while it waits (for a batch, each item gets the whole deadline: it restarts at every
   * `item_result`, as does the streamed-bytes budget). Rejects with WorkerGone when the worker dies first; at `deadlineMs` the worker
   * is killed and the request ends as TIMEOUT.
   *
   * When `signal` aborts, a request still waiting is not sent (it rejects with the signal's reason),
   * and a request running is ended as the deadline ends it: the worker is killed (reason
   * `cancelled`), since its code cannot be trusted to stop by itself. Requests queued behind it are
   * unsent and go to another worker (ComponentHandle retries them).
   */
  request(
    message: HostRequest,
    options: { deadlineMs: number; handlers?: RequestHandlers; signal?: AbortSignal },
  ): Promise<Final> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    let started = false;
    const run = (): Promise<Final> => {
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (this.exited || this.exiting) {
        const unsent = this.goneError(null, null);
        unsent.sent = false;
        return Promise.reject(unsent);
      }
      this.lastUsedAt = Date.now();
      started = true;
      const id = `r${(this.sequence += 1)}`;
      const cancel = (): void => this.kill('cancelled');
      const sent = new Promise<Final>((resolve, reject) => {
        this.pending.set(id, {
          resolve,
          reject,
          handlers: options.handlers ?? {},
          deadlineMs: options.deadlineMs,
          timer: this.deadline(id, options.deadlineMs),
          streamedBytes: 0,
        });
        this.child.send({ ...message, v: PROTOCOL_VERSION, id } as HostMessage);
      });
      if (!signal) return sent;
      signal.addEventListener('abort', cancel, { once: true });
      return sent.finally(() => signal.removeEventListener('abort', cancel));
    };
    this.waiting += 1;
    const result = this.queue.then(run, run);
    this.queue = result.then(
      () => undefined,
      () => undefined,
    );
    const settled = result.finally(() => {
      this.waiting -= 1;
    });
    // Waiting behind another request, an abort ends it at once; `run` then sends nothing.
    return signal ? endedIfAbortedWhileWaiting(settled, signal, () => started) : settled;
  }

  kill(reason: KillReason): void {
    if (this.exited) return;
    this.killReason ??= reason;
    // From now on the worker takes no request: one sent before its exit would end with this
    // kill's reason (a TIMEOUT that is not its own).
    this.exiting = true;
    this.child.kill('SIGKILL');
  }

  /**
   * The timer of request `id`'s deadline. Node runs due timers before it reads the pipe in a turn
   * of its loop, so an answer already waiting there is read first (setImmediate runs after the
   * read); after a stall of the host's loop, the answer gets STALL_MS more to arrive. A request
   * still pending then, with this timer still its own (an `item_result` arms a new one), is over
   * its deadline.
   */
  private deadline(id: string, deadlineMs: number, stalled = false): NodeJS.Timeout {
    const due = Date.now() + deadlineMs;
    const timer: NodeJS.Timeout = setTimeout(() => {
      const late = Date.now() - due > STALL_MS;
      setImmediate(() => {
        const pending = this.pending.get(id);
        if (pending?.timer !== timer) return;
        if (late && !stalled) pending.timer = this.deadline(id, STALL_MS, true);
        else this.kill('timeout');
      });
    }, deadlineMs);
    return timer;
  }

  private ready(): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.kill('timeout');
        reject(
          new AppError(
            'INTERNAL',
            `the sandbox worker did not start within ${this.options.startTimeoutMs} ms: ${this.stderrTail.trim()}`,
          ),
        );
      }, this.options.startTimeoutMs);
      const onMessage = (raw: unknown): void => {
        const spoken = helloVersion(raw);
        if (spoken !== null && spoken !== PROTOCOL_VERSION) {
          // Every later message would be refused as malformed, and the start would end as a bare
          // timeout: a worker bundle left from other code is named at its first word instead.
          clearTimeout(timer);
          this.child.off('message', onMessage);
          this.kill('shutdown');
          reject(staleWorkerError(spoken));
          return;
        }
        if (parseWorkerMessage(raw)?.type !== 'ready') return;
        clearTimeout(timer);
        this.child.off('message', onMessage);
        resolve();
      };
      this.child.on('message', onMessage);
      this.child.once('exit', () => {
        clearTimeout(timer);
        reject(
          new AppError(
            'INTERNAL',
            `the sandbox worker exited while starting: ${this.stderrTail.trim() || 'no output'}`,
          ),
        );
      });
    });
  }

  private receive(raw: unknown): void {
    const message = parseWorkerMessage(raw);
    if (!message || message.type === 'ready') return;
    const pending = this.pending.get(message.id);
    if (!pending) return;
    switch (message.type) {
      case 'log':
      case 'emit':
      case 'db_set':
      case 'respond':
        pending.streamedBytes += streamedSize(message);
        if (pending.streamedBytes > this.options.maxStreamBytes) {
          this.kill('payload');
          return;
        }
        pending.handlers.onStream?.(message);
        return;
      case 'item_result':
        clearTimeout(pending.timer);
        pending.timer = this.deadline(message.id, pending.deadlineMs);
        pending.streamedBytes = 0;
        this.lastUsedAt = Date.now();
        pending.handlers.onStream?.(message);
        return;
      case 'loaded':
      case 'props_result':
      case 'result':
      case 'batch_done':
      case 'options_result':
      case 'failed':
        if (message.type === 'failed' && message.exiting) this.exiting = true;
        clearTimeout(pending.timer);
        this.pending.delete(message.id);
        this.lastUsedAt = Date.now();
        pending.resolve(message);
        return;
    }
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exited) return;
    this.exited = true;
    clearInterval(this.watchdog);
    const error = this.goneError(code, signal);
    for (const pending of this.pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(error);
    }
    this.pending.clear();
    const heapDied = code === 134 || /heap out of memory|Reached heap limit/i.test(this.stderrTail);
    this.options.onExit?.(this.killReason ?? (heapDied ? 'memory' : 'crashed'));
  }

  private goneError(code: number | null, signal: NodeJS.Signals | null): WorkerGone {
    const tail = this.stderrTail.trim();
    const heapDied = code === 134 || /heap out of memory|Reached heap limit/i.test(tail);
    const reason = this.killReason;
    const [errorCode, message]: [ErrorCode, string] =
      reason === 'timeout'
        ? ['TIMEOUT', 'the invocation did not finish before its deadline; its worker was stopped (TIMEOUT)']
        : reason === 'cancelled'
          ? ['CRASHED', 'the invocation was stopped by the host before it finished (cancelled); its worker was stopped']
          : reason === 'memory' || heapDied
            ? [
                'OUT_OF_MEMORY',
                `the worker went over its memory cap of ${Math.round(this.options.memoryBytes / 1048576)} MB and was stopped`,
              ]
            : reason === 'payload'
              ? [
                  'PAYLOAD_TOO_LARGE',
                  'Function Payload Limit Exceeded: the worker kept sending logs or events past the 6 MB limit and was stopped',
                ]
              : [
                  'CRASHED',
                  `the worker process exited during the invocation (${signal ? `signal ${signal}` : `exit code ${code ?? 'unknown'}`})${tail ? `: ${lastLines(tail)}` : ''}`,
                ];
    return new WorkerGone(errorCode, message);
  }

  private checkMemory(memory: ProcessTreeMemory | null): void {
    if (this.exited || memory === null) return;
    const rss = memory.rssBytes();
    if (rss === null) return;
    this.rssBytes = rss;
    if (rss > this.options.memoryBytes) this.kill('memory');
  }

  private keepTail(chunk: Buffer): void {
    this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
  }
}

/**
 * What a streamed message counts against `maxStreamBytes`: the text of log lines (what the
 * worker's payload budget counts too, so short lines are not charged their JSON framing), the
 * JSON of anything else.
 */
function streamedSize(message: StreamMessage): number {
  if (message.type !== 'log') return JSON.stringify(message).length;
  let total = 0;
  for (const entry of message.entries) total += entry.message.length;
  return total;
}

/**
 * The protocol version a worker's `ready` names, read leniently (any version's `ready` has `v`,
 * `type` and nothing this host must understand), or null for any other message.
 */
function helloVersion(raw: unknown): number | string | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const { type, v } = raw as { type?: unknown; v?: unknown };
  if (type !== 'ready') return null;
  return typeof v === 'number' || typeof v === 'string' ? v : 'no version';
}

function staleWorkerError(spoken: number | string): AppError {
  return new AppError(
    'SANDBOX_WORKER_STALE',
    `the sandbox worker speaks protocol ${typeof spoken === 'number' ? `v${spoken}` : `"${spoken}"`} but this host speaks v${PROTOCOL_VERSION}: the worker bundle was built from other code than the host; run npm run build`,
    { workerProtocol: spoken, hostProtocol: PROTOCOL_VERSION },
  );
}

/** Rebuilds an error that crossed the protocol as data. */
export function rebuildError(error: SerializedErrorMessage): AppError {
  const code: ErrorCode = isErrorCode(error.code) ? error.code : 'INTERNAL';
  const rebuilt = new AppError(code, error.message, {
    ...(error.details ?? {}),
    ...(error.rule ? { rule: error.rule } : {}),
  });
  if (error.stack) rebuilt.stack = error.stack;
  return rebuilt;
}

function lastLines(text: string): string {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(-3)
    .join(' | ');
}
