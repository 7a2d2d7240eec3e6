import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { WorkflowRunDetailT } from '@tributary/contracts';
import { Engine, type HttpResponse } from '@tributary/engine';
import { defaultCacheDir } from '../local/create-sandbox.js';

const FINISHED = new Set(['succeeded', 'exited', 'failed', 'cancelled']);
/** A run publishes its reply before its end is read back; this only bounds a wait for one that did not. */
const REPLY_GRACE_MS = 2000;

export interface LocalRun {
  readonly run: WorkflowRunDetailT;
  /** What an HTTP caller of a `custom_response` trigger would get: the first `$.respond()`, or null. */
  readonly response: HttpResponse | null;
}

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
}): Promise<LocalRun> {
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
    // Kept by the pubsub when it comes before this wait starts.
    const reply = engine.pubsub.awaitReply(runId);
    for (;;) {
      const run = await engine.workflowRun(runId);
      if (FINISHED.has(run.status)) {
        const grace = new Promise<null>((resolve) => setTimeout(() => resolve(null), REPLY_GRACE_MS).unref());
        return { run, response: await Promise.race([reply, grace]) };
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await engine.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
