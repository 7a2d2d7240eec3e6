import { AppError, errorMessage } from '@tributary/contracts';
import { Redis } from 'ioredis';

export interface ConnectRedisOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…` for TLS. */
  readonly url: string;
  /** Shown by `CLIENT LIST` and in log lines: which of the process's connections this is. */
  readonly name: string;
  /** Where lost and regained connections are reported (default: dropped). */
  readonly log?: (message: string) => void;
  /**
   * How often a command is retried over a reconnect before it fails. The rate limiter wants few
   * (a request should get its 500 rather than hang while Redis is away); the default suits pub/sub.
   * BullMQ needs null (a blocking wait for jobs is never cut short).
   */
  readonly maxRetriesPerRequest?: number | null;
}

/** Backoff between reconnects once the first connection succeeded: quick, capped at 2 s. */
const reconnectDelayMs = (attempt: number): number => Math.min(attempt * 100, 2000);

/**
 * Opens one ioredis connection and waits until it is ready. A Redis that cannot be reached at start
 * is a configuration problem the operator must see at once, so the first attempt is not retried:
 * it fails with REDIS_UNREACHABLE naming the URL (without its password). Once connected, a lost
 * connection is retried for ever and reported once per outage.
 */
export async function connectRedis(options: ConnectRedisOptions): Promise<Redis> {
  const shown = redactRedisUrl(options.url);
  let ready = false;
  let lastError: Error | undefined;
  let outage = false;
  const redis = new Redis(options.url, {
    lazyConnect: true,
    connectionName: options.name,
    maxRetriesPerRequest: options.maxRetriesPerRequest === undefined ? 20 : options.maxRetriesPerRequest,
    retryStrategy: (attempt) => (ready ? reconnectDelayMs(attempt) : null),
  });
  // Listening to 'error' also keeps ioredis from printing each failed attempt as unhandled.
  redis.on('error', (error: Error) => {
    lastError = error;
  });
  // 'reconnecting', not 'error': a server that closes the connection cleanly raises no error,
  // and a deliberate quit() raises no reconnect.
  redis.on('reconnecting', () => {
    if (outage) return;
    outage = true;
    const reason = lastError?.message ?? 'closed by the server';
    options.log?.(`Redis ${shown} (${options.name}): connection lost (${reason}); reconnecting`);
  });
  redis.on('ready', () => {
    if (outage) options.log?.(`Redis ${shown} (${options.name}): connected again`);
    outage = false;
    lastError = undefined;
  });
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    const reason = lastError?.message ?? errorMessage(error);
    throw new AppError('REDIS_UNREACHABLE', `cannot reach Redis at ${shown}: ${reason}`, { url: shown });
  }
  ready = true;
  return redis;
}

/** The URL with its password replaced, for messages and logs. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}
