import { AppError } from '@tributary/contracts';
import type { WorkflowRow, WorkflowStore } from './workflow-store.js';

/**
 * The workflow store of a backend that has none yet (PostgreSQL: its `WorkflowStore` is still to be
 * written, docs/deployment.md). Whatever a user asks of workflows is refused with
 * `WORKFLOWS_UNAVAILABLE`, and nothing is stored; the engine's own background paths (the ingress's
 * endpoint lookup, source-triggered runs, timers) find no workflows, so sources work as before.
 */
export class UnavailableWorkflowStore implements WorkflowStore {
  constructor(private readonly backend: string) {}

  ready(): Promise<void> {
    return Promise.reject(this.refusal());
  }
  saveWorkflow(): Promise<void> {
    return Promise.reject(this.refusal());
  }
  getWorkflow(): Promise<WorkflowRow | null> {
    return Promise.reject(this.refusal());
  }
  listWorkflows(): Promise<WorkflowRow[]> {
    return Promise.reject(this.refusal());
  }
  getVersion(): Promise<never> {
    return Promise.reject(this.refusal());
  }
  deleteWorkflow(): Promise<boolean> {
    return Promise.reject(this.refusal());
  }
  setActive(): Promise<void> {
    return Promise.reject(this.refusal());
  }
  findByEndpoint(): Promise<WorkflowRow | null> {
    return Promise.resolve(null);
  }
  findBySource(): Promise<WorkflowRow[]> {
    return Promise.resolve([]);
  }
  findByEmitter(): Promise<WorkflowRow[]> {
    return Promise.resolve([]);
  }
  dueTimers(): Promise<WorkflowRow[]> {
    return Promise.resolve([]);
  }
  setNextFire(): Promise<void> {
    return Promise.reject(this.refusal());
  }
  createRun(): Promise<void> {
    return Promise.reject(this.refusal());
  }
  getRun(): Promise<never> {
    return Promise.reject(this.refusal());
  }
  materializeRun(): Promise<void> {
    return Promise.reject(this.refusal());
  }
  listRuns(): Promise<never> {
    return Promise.reject(this.refusal());
  }
  stepsOf(): Promise<never> {
    return Promise.reject(this.refusal());
  }
  markRunning(): Promise<void> {
    return Promise.reject(this.refusal());
  }
  markDead(): Promise<void> {
    return Promise.reject(this.refusal());
  }
  dropEntry(): Promise<void> {
    return Promise.reject(this.refusal());
  }
  checkpoint(): Promise<void> {
    return Promise.reject(this.refusal());
  }
  cancelDelayed(): Promise<boolean> {
    return Promise.reject(this.refusal());
  }
  trimRuns(): Promise<number> {
    return Promise.reject(this.refusal());
  }

  private refusal(): AppError {
    return new AppError(
      'WORKFLOWS_UNAVAILABLE',
      `workflows are not available on ${this.backend} yet: they run on the embedded SQLite store (start without TRIBUTARY_DATABASE_URL)`,
    );
  }
}
