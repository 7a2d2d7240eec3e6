import { countOf } from '@tributary/contracts';
import { mkdirSync } from 'node:fs';
import {
  Engine,
  MemoryRateLimiter,
  openRedisPorts,
  PrometheusMetrics,
  redactRedisUrl,
  type EngineOptions,
  type Logger,
  type RedisPorts,
} from '@tributary/engine';
import { createServer } from '@tributary/server';
import { EXIT_OK } from '../exit-codes.js';
import { portInUse, resolveListenPort } from '../start/listen-port.js';
import { deliveryOptions, loadServerConfig, type ServerConfig, type StartFlags } from '../start/server-config.js';
import { installProcessFailurePolicy } from '../start/process-failures.js';
import { createServerLogger } from '../start/server-logger.js';
import type { Output } from '../ui/output.js';
import { reportFailure } from '../ui/report-error.js';
import { VERSION } from '../version.js';

export async function runStart(flags: StartFlags, output: Output, signal?: AbortSignal): Promise<number> {
  let uninstall = (): void => undefined;
  try {
    const config = loadServerConfig(flags, process.env);
    if (config.role === 'worker' || config.role === 'scheduler') return await runBackground(config, output, signal);
    // A busy port is refused before the data directory, database or admin key are created.
    const port = await resolveListenPort(config.port, config.host);
    const logger = createServerLogger(config.logLevel, config.logFormat);
    uninstall = installProcessFailurePolicy(logger);
    const log = (message: string): void => logger.info(message);
    // So is an unreachable Redis: connected before anything is created, closed by the engine.
    const redis = config.redisUrl ? await openRedis(config.redisUrl, config, log) : undefined;
    const publicUrl = config.publicUrl ?? `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`;
    const engine = await createEngine(redis, engineOptions(config, redis, publicUrl, log, logger));
    // Open connections (Redis) would keep a failed start from exiting: the engine closes them.
    const app = await stopOnFailure(engine, async () => {
      if (config.adminKey) {
        await engine.apiKeys.create('admin', config.adminKey);
      } else if ((await engine.apiKeys.count()) === 0) {
        const { key } = await engine.apiKeys.create('admin');
        output.out(`Admin API key (shown once; keep it): ${key}`);
      }
      return createServer({
        engine,
        version: VERSION,
        log,
        webDir: config.webDir,
        logger,
        metricsPublic: config.metricsPublic,
        ...(config.endpointBaseUrl ? { endpointBaseUrl: config.endpointBaseUrl } : {}),
      });
    });
    const stopRequested = stopSignal(signal);
    await app.listen({ port, host: config.host }).catch(async (error: NodeJS.ErrnoException) => {
      await engine.stop();
      throw error.code === 'EADDRINUSE' ? portInUse(port, config.host) : error;
    });
    const base = publicUrl;
    await engine.start(config.role);
    // The curated components go into the registry in the background: the API answers meanwhile.
    // Worker and scheduler processes (runBackground) leave it to the processes that serve the API.
    void engine.publishCuratedComponents().then(
      (report) => {
        if (report)
          log(
            `registry: ${countOf(report.published.length, 'curated component')} of ${report.package}@${report.version} published`,
          );
      },
      (error: unknown) => log(`registry: publishing the curated components failed: ${String(error)}`),
    );
    const data =
      engine.storage.kind === 'postgres' ? `${config.dataDir}, state in ${engine.storage.location}` : config.dataDir;
    const role = config.role === 'all' ? '' : `, role ${config.role}`;
    output.out(
      `Tributary ${VERSION} ready: API ${base}/v1, web app ${base}/, docs ${base}/docs, endpoints ${config.endpointBaseUrl ?? base}/e/…, health ${base}/healthz (data ${data}${role})`,
    );
    const reason = await stopRequested;
    log(
      `${reason}: stopping; taking no new work, finishing requests and, for up to ${config.shutdownGraceMs} ms, invocations in flight`,
    );
    // The runner stops claiming at once while the listener closes and requests in flight finish.
    await Promise.all([app.close(), engine.stopWork()]);
    await engine.stop();
    log('stopped');
    return EXIT_OK;
  } catch (error) {
    return reportFailure(output, error, { json: false });
  } finally {
    uninstall();
  }
}

/**
 * A worker or scheduler process: the engine's background part without an HTTP listener or an
 * admin key (the api processes create those).
 */
async function runBackground(config: ServerConfig, output: Output, signal?: AbortSignal): Promise<number> {
  const logger = createServerLogger(config.logLevel, config.logFormat);
  const uninstall = installProcessFailurePolicy(logger);
  try {
    return await runBackgroundWith(config, output, logger, signal);
  } finally {
    uninstall();
  }
}

async function runBackgroundWith(
  config: ServerConfig,
  output: Output,
  logger: Logger,
  signal?: AbortSignal,
): Promise<number> {
  const log = (message: string): void => logger.info({}, message);
  const redis = config.redisUrl ? await openRedis(config.redisUrl, config, log) : undefined;
  const publicUrl =
    config.publicUrl ?? `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`;
  const engine = await createEngine(redis, engineOptions(config, redis, publicUrl, log, logger));
  const stopRequested = stopSignal(signal);
  await stopOnFailure(engine, () => engine.start(config.role));
  output.out(`Tributary ${VERSION} ready (role ${config.role}): state in ${engine.storage.location}`);
  const reason = await stopRequested;
  log(
    `${reason}: stopping; taking no new work, finishing invocations in flight for up to ${config.shutdownGraceMs} ms`,
  );
  await engine.stop();
  log('stopped');
  return EXIT_OK;
}

function stopSignal(signal?: AbortSignal): Promise<string> {
  return new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
    signal?.addEventListener('abort', () => resolve('abort'), { once: true });
  });
}

function engineOptions(
  config: ServerConfig,
  redis: RedisPorts | undefined,
  publicUrl: string,
  log: (message: string) => void,
  logger: Logger,
): EngineOptions {
  return {
    dataDir: config.dataDir,
    ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}),
    cacheDir: config.cacheDir,
    publicUrl,
    ...(config.endpointBaseUrl ? { endpointBaseUrl: config.endpointBaseUrl } : {}),
    allowPrivateUrls: config.allowPrivateUrls,
    concurrency: config.concurrency,
    longRunMs: config.longRunMs,
    ...(config.longRunSlots !== null ? { longRunSlots: config.longRunSlots } : {}),
    sourceTimeoutMs: config.sourceTimeoutMs,
    shutdownGraceMs: config.shutdownGraceMs,
    log,
    logger,
    ...(config.appsFile ? { appsFile: config.appsFile } : {}),
    ...(config.npmRegistry ? { npmRegistry: config.npmRegistry } : {}),
    delivery: deliveryOptions(config),
    ...(config.metrics ? { metrics: new PrometheusMetrics() } : {}),
    readiness: {
      schedulerLagMs: config.readySchedulerLagMs,
      runnerWaitMs: config.readyRunnerWaitMs,
      ...(config.readyRunnerStallMs !== null ? { runnerStallMs: config.readyRunnerStallMs } : {}),
    },
    // Without Redis, one process: its own buckets and in-process fan-out.
    ...(redis
      ? {
          pubsub: redis.pubsub,
          endpointLimiter: redis.endpointLimiter,
          dispatch: redis.dispatch,
          timerJobs: redis.timerJobs,
        }
      : {
          endpointLimiter: new MemoryRateLimiter({
            limit: { ratePerSecond: config.endpointRatePerS, burst: config.endpointBurst },
          }),
        }),
  };
}

async function openRedis(
  url: string,
  config: { readonly redisPrefix: string; readonly endpointRatePerS: number; readonly endpointBurst: number },
  log: (message: string) => void,
): Promise<RedisPorts> {
  const ports = await openRedisPorts({
    url,
    prefix: config.redisPrefix,
    endpointLimit: { ratePerSecond: config.endpointRatePerS, burst: config.endpointBurst },
    log,
  });
  log(
    `Redis ${redactRedisUrl(url)} (prefix ${config.redisPrefix}) carries pub/sub, the endpoint rate limit, worker wake-ups and timers`,
  );
  return ports;
}

/**
 * Creates the data directory and the engine, letting go of the Redis connections if either fails
 * (once created, the engine owns them).
 */
async function createEngine(
  redis: RedisPorts | undefined,
  options: Parameters<typeof Engine.create>[0],
): Promise<Engine> {
  try {
    mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
    return await Engine.create(options);
  } catch (error) {
    await redis?.close();
    throw error;
  }
}

async function stopOnFailure<T>(engine: Engine, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    await engine.stop();
    throw error;
  }
}
