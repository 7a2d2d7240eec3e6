import { AppError, errorMessage } from '@tributary/contracts';
import { newId } from '../ids.js';
import { describeProgress, type ImportProgress, type ImportReport } from './import-report.js';
import type { OnProgress } from './package-importer.js';

export type ImportJobStatus = 'running' | 'succeeded' | 'failed';

/** An import running in the background, polled by the API and the web app. */
export interface ImportJob {
  readonly id: string;
  readonly spec: string;
  status: ImportJobStatus;
  /** Progress so far, one line per step. */
  readonly progress: string[];
  readonly steps: ImportProgress[];
  reports: ImportReport[];
  error: { code: string; message: string; details: Record<string, unknown> } | null;
  readonly started_at: number;
  finished_at: number | null;
}

const KEEP = 50;

/**
 * Imports started over HTTP run past the request that started them; their progress and report
 * stay here to be polled. Jobs live in the process that runs them (the API process that took the
 * request), and the last 50 are kept.
 */
export class ImportJobs {
  private readonly jobs = new Map<string, ImportJob>();

  constructor(private readonly now: () => number) {}

  start(spec: string, run: (onProgress: OnProgress) => Promise<ImportReport[]>): ImportJob {
    const job: ImportJob = {
      id: newId('imp'),
      spec,
      status: 'running',
      progress: [],
      steps: [],
      reports: [],
      error: null,
      started_at: this.now(),
      finished_at: null,
    };
    this.jobs.set(job.id, job);
    // The oldest finished jobs go first; a running one stays until it ends.
    for (const [id, old] of this.jobs) {
      if (this.jobs.size <= KEEP) break;
      if (old.status !== 'running') this.jobs.delete(id);
    }
    run((step) => {
      job.steps.push(step);
      job.progress.push(describeProgress(step));
    }).then(
      (reports) => {
        job.reports = reports;
        job.status = 'succeeded';
        job.finished_at = this.now();
      },
      (error: unknown) => {
        job.error =
          error instanceof AppError
            ? { code: error.code, message: error.message, details: { ...error.details } }
            : { code: 'INTERNAL', message: errorMessage(error), details: {} };
        job.status = 'failed';
        job.finished_at = this.now();
      },
    );
    return job;
  }

  get(id: string): ImportJob {
    const job = this.jobs.get(id);
    if (!job) throw new AppError('NOT_FOUND', `no import job "${id}" on this server`, { field: 'id' });
    return job;
  }
}
