export interface ProbeClient {
  readonly base: string;
}

export function client(base: string, key: string): ProbeClient;

export interface StarvationResult {
  readonly hangs: number;
  readonly hangMs: number;
  readonly canaries: number;
  readonly delivered: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** Each canary's latency, in the order they were sent. */
  readonly inOrderMs: number[];
}
export function probeStarvation(
  server: ProbeClient,
  options?: {
    readonly hangs?: number;
    readonly hangMs?: number;
    readonly canaries?: number;
    readonly everyMs?: number;
  },
): Promise<StarvationResult>;

export interface TimerBacklogResult {
  readonly seconds: number;
  readonly intervalSeconds: number;
  readonly runMs: number;
  readonly ticksDue: number;
  readonly runs: number;
  readonly maxQueued: number;
}
export function probeTimerBacklog(
  server: ProbeClient,
  options?: { readonly seconds?: number; readonly runMs?: number },
): Promise<TimerBacklogResult>;

export interface LogFloodOutcome {
  readonly lines: number;
  readonly code: string;
  readonly lastLine: string | null;
  readonly ms: number;
}
export function probeLogFlood(
  server: ProbeClient,
  options?: { readonly timeoutMs?: number },
): Promise<{ readonly underLimit: LogFloodOutcome; readonly overLimit: LogFloodOutcome }>;

export interface EmitFloodResult {
  readonly emits: number;
  /** How the run ended: OK, or the limit's code (PAYLOAD_TOO_LARGE past 6 MB of emits). */
  readonly code: string;
  /** The summary of the newest event committed. */
  readonly lastEvent: string | null;
  readonly eventLoopLagMaxMs: number | null;
  readonly worstHealthzMs: number;
  readonly runMs: number;
}
export function probeEmitFlood(server: ProbeClient, options?: { readonly emits?: number }): Promise<EmitFloodResult>;

export function probeShutdown(
  node: unknown,
  server: ProbeClient,
): Promise<{ readonly exitCode: number | null; readonly ms: number }>;

export interface KillLoopResult {
  readonly acknowledged: number;
  readonly kills: number;
  readonly lost: number;
  readonly outOfOrder: number;
  readonly ranTwice: number;
  readonly ticksTwice: number;
}
export function probeKillLoop(options?: {
  readonly events?: number;
  readonly kills?: number;
  readonly timers?: number;
  readonly log?: (message: string) => void;
}): Promise<KillLoopResult>;

export function startOwnServer(env?: Record<string, string>): Promise<{
  readonly node: unknown;
  readonly server: ProbeClient;
  stop(): Promise<void>;
}>;
