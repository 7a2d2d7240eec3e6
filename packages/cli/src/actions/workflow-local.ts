import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { WorkflowRunDetailT } from '@tributary/contracts';
import { Engine } from '@tributary/engine';
import { defaultCacheDir } from '../local/create-sandbox.js';

const FINISHED = new Set(['succeeded', 'exited', 'failed', 'cancelled']);

/**
 * Runs a whole workflow on this machine, offline: a throwaway engine on a temporary SQLite file
 * steps it exactly as a server does (same queue, runner, sandbox and checkpoints), so the result
 * is the same JSON a server's GET /v1/workflow-runs/{id} answers, but for its deliveries: nothing
 * is sent. The trigger becomes a RUN NOW with `event`: timers, endpoints and sources do not exist
 * offline.
 */
export async function runWorkflowLocally(input: {
  readonly workflow: Record<string, unknown>;
  readonly event: unknown;
  readonly log: (message: string) => void;
}): Promise<WorkflowRunDetailT> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-workflow-run-'));
  const engine = await Engine.create({
    dataDir,
    cacheDir: defaultCacheDir(),
    publicUrl: 'http://localhost',
    allowPrivateUrls: false,
    concurrency: 1,
    sourceTimeoutMs: 30_000,
    throwawayDataDir: true,
    log: input.log,
    // Offline means no side effects: each step's `sends` say what a server would deliver.
    deliver: () => Promise.resolve(),
  });
  try {
    await engine.start();
    const saved = await engine.workflows.create({ ...input.workflow, trigger: { type: 'manual' } });
    const runId = await engine.workflows.trigger(saved.id, 'manual', input.event);
    for (;;) {
      const run = await engine.workflowRun(runId);
      if (FINISHED.has(run.status)) return run;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await engine.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
