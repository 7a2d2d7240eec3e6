export interface ReliabilityOptions {
  readonly backend: 'postgres' | 'sqlite';
  readonly events: number;
  readonly kills: number;
  readonly processes?: number;
  readonly sources?: number;
  readonly timers?: number;
  readonly settleMs?: number;
  readonly log?: (message: string) => void;
}

export interface ReliabilityResult {
  readonly backend: 'postgres' | 'sqlite';
  readonly processes: number;
  readonly kills: number;
  /** Acknowledged events when each kill came. */
  readonly killedAt: number[];
  readonly sources: number;
  readonly timers: number;
  readonly acknowledged: number;
  readonly sent: number;
  readonly failedRequests: number;
  /** Acknowledged events that never showed up in their source's bin. */
  readonly lost: number;
  readonly outOfOrder: number;
  readonly ranTwice: number;
  readonly ticks: number;
  readonly ticksTwice: number;
  readonly flowMs: number;
  readonly totalMs: number;
  readonly loadAverage: number[];
}

export function runReliability(options: ReliabilityOptions): Promise<ReliabilityResult>;
