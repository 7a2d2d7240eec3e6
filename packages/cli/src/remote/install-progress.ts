import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { InstallProgress } from '@tributary/sandbox';
import { installLine } from '../ui/install-lines.js';
import type { Output } from '../ui/output.js';
import type { ApiClient } from './api-client.js';
import { followSse } from './sse-follow.js';

/** How long to wait for the progress stream before sending the request anyway. */
const OPEN_WAIT_MS = 3000;

/** Sent with the requests of `work`; the server tags their installs with it (docs/sse.md#install-progress). */
const PROGRESS_HEADER = 'x-tributary-progress';

/**
 * Runs `work` (a save or deploy whose code may import npm packages) while following the server's
 * installs (`GET /v1/installs/sse?progress=<id>`), so an install prints `npm installing …` / `npm
 * installed … in 2.1 s` on stderr instead of a silent wait. `work` gets a client that sends the
 * same random id with its requests: only their installs are shown, not another user's running at
 * the same time. The stream is opened first so the first line is not missed; a server without it
 * (an older version) just gives no lines.
 */
export async function withInstallProgress<T>(
  client: ApiClient,
  output: Output,
  work: (client: ApiClient) => Promise<T>,
): Promise<T> {
  const progressId = randomUUID();
  const controller = new AbortController();
  let opened!: () => void;
  const open = new Promise<void>((resolve) => (opened = resolve));
  // On a terminal a spinner may be drawn on the same line: clear it, it redraws below.
  const clear = output.isTty && process.stderr.isTTY ? '\r\x1b[K' : '';
  const following = followSse({
    client,
    path: `/v1/installs/sse?progress=${progressId}`,
    signal: controller.signal,
    onOpen: () => opened(),
    onMessage: (message) => {
      const line = installLine(output, toProgress(JSON.parse(message.data) as InstallData));
      if (line !== null) output.err(`${clear}${line}`);
    },
  }).catch(() => opened());
  await Promise.race([open, sleep(OPEN_WAIT_MS)]);
  try {
    return await work(client.withHeaders({ [PROGRESS_HEADER]: progressId }));
  } finally {
    controller.abort();
    await following;
  }
}

interface InstallData {
  readonly phase: InstallProgress['phase'];
  readonly packages: readonly string[];
  readonly duration_ms?: number;
  readonly code?: string;
  readonly message?: string;
}

function toProgress(data: InstallData): InstallProgress {
  switch (data.phase) {
    case 'installing':
    case 'cached':
      return { phase: data.phase, packages: data.packages };
    case 'installed':
      return { phase: 'installed', packages: data.packages, durationMs: data.duration_ms ?? 0 };
    case 'failed':
      return {
        phase: 'failed',
        packages: data.packages,
        durationMs: data.duration_ms ?? 0,
        code: data.code ?? 'PACKAGE_INSTALL_FAILED',
        message: data.message ?? '',
      };
  }
}
