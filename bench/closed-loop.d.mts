export type LoadGenerator = 'autocannon' | 'node-http';
export const LOAD_GENERATORS: readonly LoadGenerator[];

export interface ClosedLoad {
  readonly generator: LoadGenerator;
  readonly rate: 0;
  readonly concurrency: number;
  readonly warmupMs: number;
  readonly durationMs: number;
  readonly drainMs: number;
  readonly bodyBytes: number;
}

export function closedLoop(options: {
  readonly concurrency: string;
  readonly warmup: string;
  readonly duration: string;
  readonly 'load-generator'?: string;
}): ClosedLoad;

export interface ClosedLoopFigures {
  readonly reqPerSecond: number;
  readonly p50Ms: number | undefined;
  readonly p99Ms: number | undefined;
  readonly maxMs: number | undefined;
  readonly ok: number;
  readonly nonOk: number;
  readonly statuses: Record<string, number>;
  readonly errors: Record<string, number>;
  readonly completedPerSecond: number | undefined;
  readonly completedAtWindowEnd: number | undefined;
  readonly totalSent: number;
  readonly acknowledged: number;
}

export function measureClosedLoop(
  label: string,
  url: string,
  load: ClosedLoad,
  counter?: () => number | Promise<number>,
): Promise<ClosedLoopFigures>;
