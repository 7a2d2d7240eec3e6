/**
 * The server's npm installs for this browser's own requests (`GET /v1/installs/sse`,
 * docs/sse.md#install-progress). The stream is scoped by the session cookie the EventSource
 * sends: it shows the installs of requests this browser session made, nobody else's.
 */
export type InstallEventT =
  | { readonly phase: 'installing' | 'cached'; readonly packages: string[] }
  | { readonly phase: 'installed'; readonly packages: string[]; readonly duration_ms: number }
  | {
      readonly phase: 'failed';
      readonly packages: string[];
      readonly duration_ms: number;
      readonly code: string;
      readonly message: string;
    };

/**
 * The stream's payload has no schema in the OpenAPI document (it is `text/event-stream`), so it is
 * checked here; by hand, because zod only for this would add about 25 kB gzipped to the main bundle.
 */
export function parseInstallEvent(value: unknown): InstallEventT | null {
  if (typeof value !== 'object' || value === null) return null;
  const event = value as Record<string, unknown>;
  const packages = event['packages'];
  if (!Array.isArray(packages) || !packages.every((name) => typeof name === 'string')) return null;
  const names = packages as string[];
  const duration = event['duration_ms'];
  switch (event['phase']) {
    case 'installing':
    case 'cached':
      return { phase: event['phase'], packages: names };
    case 'installed':
      return typeof duration === 'number' ? { phase: 'installed', packages: names, duration_ms: duration } : null;
    case 'failed': {
      const { code, message } = event;
      if (typeof duration !== 'number' || typeof code !== 'string' || typeof message !== 'string') return null;
      return { phase: 'failed', packages: names, duration_ms: duration, code, message };
    }
    default:
      return null;
  }
}

export const INSTALL_STREAM_PATH = '/v1/installs/sse';

/** How long to wait for the stream before sending the request anyway (no lines then, no harm). */
const OPEN_WAIT_MS = 3000;

export interface InstallWatch {
  /** Installs started and not yet ended (an `installing` without its `installed` or `failed`). */
  readonly running: () => number;
  /** Resolves after the next event, or after `ms`. */
  readonly nextEvent: (ms: number) => Promise<void>;
  readonly close: () => void;
}

/**
 * Opens the stream and resolves once it is open (or could not be within 3 s), so a request sent
 * afterwards has its first line seen: nothing is replayed.
 */
export function watchInstalls(onEvent: (event: InstallEventT) => void): Promise<InstallWatch> {
  const source = new EventSource(INSTALL_STREAM_PATH);
  let running = 0;
  let wake: (() => void) | null = null;
  source.addEventListener('install', (message: MessageEvent<string>) => {
    let event: InstallEventT | null;
    try {
      event = parseInstallEvent(JSON.parse(message.data));
    } catch {
      return;
    }
    if (!event) return;
    switch (event.phase) {
      case 'installing':
        running += 1;
        break;
      case 'installed':
      case 'failed':
        running = Math.max(0, running - 1);
        break;
      case 'cached':
        break;
    }
    onEvent(event);
    wake?.();
  });
  const watch: InstallWatch = {
    running: () => running,
    nextEvent: (ms) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        wake = () => {
          clearTimeout(timer);
          wake = null;
          resolve();
        };
      }),
    close: () => source.close(),
  };
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(watch), OPEN_WAIT_MS);
    const ready = (): void => {
      clearTimeout(timer);
      resolve(watch);
    };
    source.addEventListener('open', ready, { once: true });
    // A server without the stream (or a refusal) just means no lines: never block the request.
    source.addEventListener('error', ready, { once: true });
  });
}

/** How long an install's last line may trail the request's answer (two connections, no order between them). */
const TRAILING_MS = 1500;

/**
 * Runs `work` (a save, deploy or run that may install npm packages) while watching the installs,
 * each one passed to `onEvent` as it happens. The stream stays open until every install it saw
 * start has ended or 1.5 s passed, as the last line can arrive just after the answer.
 */
export async function withInstallWatch<T>(onEvent: (event: InstallEventT) => void, work: () => Promise<T>): Promise<T> {
  const watch = await watchInstalls(onEvent);
  try {
    return await work();
  } finally {
    const deadline = Date.now() + TRAILING_MS;
    while (watch.running() > 0 && Date.now() < deadline) await watch.nextEvent(deadline - Date.now());
    watch.close();
  }
}

/** One line of text for an install event; null for a cache hit (nothing was waited for). */
export function installText(event: InstallEventT): string | null {
  const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
  switch (event.phase) {
    case 'installing':
      return `Installing ${event.packages.join(', ')} …`;
    case 'installed':
      return `Installed ${event.packages.join(', ')} in ${seconds(event.duration_ms)}`;
    case 'failed':
      // The code only: the request's own error, shown beside, gives the message.
      return `Installing ${event.packages.join(', ')} failed after ${seconds(event.duration_ms)}: ${event.code}`;
    case 'cached':
      return null;
  }
}

/** What a toast adds after the work is done ("installed ms@2.1.3 in 1.4 s"), or null when nothing was installed. */
export function installSummary(events: readonly InstallEventT[]): string | null {
  const installed = events.filter((event) => event.phase === 'installed');
  if (installed.length === 0) return null;
  const packages = installed.flatMap((event) => event.packages);
  const ms = installed.reduce((sum, event) => sum + event.duration_ms, 0);
  return `installed ${packages.join(', ')} in ${(ms / 1000).toFixed(1)} s`;
}
