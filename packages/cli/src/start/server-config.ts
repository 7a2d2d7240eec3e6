import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError } from '@tributary/contracts/errors';
import { DEFAULT_ENDPOINT_RATE_LIMIT, isPostgresUrl, PROCESS_ROLES, type EngineOptions } from '@tributary/engine';
import { LOG_LEVELS } from '@tributary/server';
import { z } from 'zod';
import { defaultCacheDir } from '../local/create-sandbox.js';
import { LOG_FORMATS } from './server-logger.js';

/**
 * Configuration of `tributary start`: every field has a flag, a TRIBUTARY_* variable and a default
 * that gives the single-process setup (docs/config.md lists them). Flags win over variables.
 */
export const ServerConfig = z.object({
  role: z
    .enum(PROCESS_ROLES)
    .describe('What this process does: all, api (HTTP only), worker (invocations) or scheduler (timers)'),
  port: z.coerce.number().int().min(0).max(65535).describe('TCP port of the API, ingress and UI'),
  host: z.string().min(1).describe('Address to listen on'),
  dataDir: z.string().min(1).describe('Folder of the SQLite database, the master key and saved code'),
  databaseUrl: z
    .string()
    // The message never repeats the value: it may hold a password.
    .refine(isPostgresUrl, 'must be a postgres:// or postgresql:// URL')
    .nullable()
    .describe('PostgreSQL database holding the state instead of the SQLite file (several processes may share it)'),
  cacheDir: z.string().min(1).describe('Folder of bundles and installed npm packages'),
  publicUrl: z.string().url().nullable().describe('Base URL endpoints are published under (default http://host:port)'),
  endpointBaseUrl: z
    .url({ protocol: /^https?$/ })
    .transform((url) => url.replace(/\/+$/, ''))
    .nullable()
    .describe('Origin of its own that endpoints (/e/...) are served and published under, apart from the web app'),
  adminKey: z.string().min(16).nullable().describe('Admin API key to use instead of generating one (automation)'),
  allowPrivateUrls: z.boolean().describe('Let component_url reach loopback and private addresses'),
  concurrency: z.coerce.number().int().min(1).max(64).describe('Invocations running at once across sources'),
  sourceTimeoutMs: z.coerce.number().int().min(1000).describe('Deadline of one source invocation, in ms'),
  longRunMs: z.coerce
    .number()
    .int()
    .min(100)
    .describe('A run past this long gives its slot to the next source and holds a long-run slot instead'),
  longRunSlots: z.coerce
    .number()
    .int()
    .min(0)
    .max(64)
    .nullable()
    .describe('Slots for long runs beside the concurrency (null: as many as the concurrency)'),
  shutdownGraceMs: z.coerce
    .number()
    .int()
    .min(0)
    .describe('On SIGTERM, how long runs in flight may finish before they are stopped and left queued'),
  appsFile: z
    .string()
    .min(1)
    .nullable()
    .describe('JSON file of app catalog entries (docs/accounts.md), stored at each start'),
  npmRegistry: z
    .url()
    .nullable()
    .describe('npm registry `registry add` and `outdated` ask (null = https://registry.npmjs.org/)'),
  webDir: z.string().min(1).describe('Folder of the built web app served at /'),
  endpointRatePerS: z.coerce
    .number()
    .min(0)
    .describe('Requests per second each HTTP endpoint takes on average (0 = no limit)'),
  endpointBurst: z.coerce.number().int().min(1).describe('Requests an HTTP endpoint takes at once after a quiet spell'),
  logLevel: z.enum(LOG_LEVELS).describe('Level of the server log on stderr (requests at debug, refusals at warn)'),
  logFormat: z
    .enum(LOG_FORMATS)
    .describe('Server log format: JSON lines, pretty lines, or auto (pretty when stderr is a terminal)'),
  redisUrl: z
    .string()
    .url()
    .refine((url) => /^rediss?:\/\//.test(url), 'must be a redis:// or rediss:// URL')
    .nullable()
    .describe('Redis shared by several processes: pub/sub and the endpoint rate limit (null = in-process)'),
  redisPrefix: z
    .string()
    .min(1)
    .max(100)
    .describe('Put before every Redis key and channel; processes sharing it share the work'),
  smtpUrl: z
    .string()
    .regex(/^smtps?:\/\/[^/]/, 'an smtp:// or smtps:// URL')
    .nullable()
    .describe('SMTP server $.send.email goes through (smtp://user:pass@host:587, smtps://… for TLS)'),
  smtpFrom: z.email().nullable().describe('Sender address of $.send.email'),
  ownerEmail: z.email().nullable().describe('Where $.send.email goes: the owner of this server'),
  s3Endpoint: z.url().nullable().describe('S3-compatible endpoint $.send.s3 writes to'),
  s3Region: z.string().min(1).describe('Region of the S3 endpoint'),
  s3AccessKeyId: z.string().nullable().describe('Access key id for the S3 endpoint'),
  s3SecretAccessKey: z.string().nullable().describe('Secret access key for the S3 endpoint'),
  s3ForcePathStyle: z.boolean().describe('Bucket in the URL path (MinIO and most self-hosted S3), not the host name'),
  deliveryTimeoutMs: z.coerce
    .number()
    .int()
    .min(100)
    .describe('Deadline of one http, webhook or SMTP delivery attempt, in ms'),
  deliveryMaxAttempts: z.coerce.number().int().min(1).max(20).describe('Attempts of a delivery before it is failed'),
  metrics: z.boolean().describe('Collect metrics and serve them at /metrics'),
  metricsPublic: z.boolean().describe('Serve /metrics without an API key (a scraper on a private network)'),
  readyRunnerStallMs: z.coerce
    .number()
    .int()
    .min(1000)
    .nullable()
    .describe('Due work waiting this long with no invocation finishing makes /readyz fail (null: timeout + 30 s)'),
  readyRunnerWaitMs: z.coerce
    .number()
    .int()
    .min(100)
    .describe("Other sources' due work waiting this long while every run slot is taken makes /readyz fail"),
  readySchedulerLagMs: z.coerce
    .number()
    .int()
    .min(1000)
    .describe('A timer tick overdue by this much makes /readyz fail'),
});
export type ServerConfig = z.infer<typeof ServerConfig>;

/**
 * Email needs all three settings; S3 needs its credentials with its endpoint. A role other than
 * `all` shares the work with other processes, so it needs their shared database and Redis (events
 * and customResponse replies cross processes there).
 */
const CompleteServerConfig = ServerConfig.superRefine((config, context) => {
  if (config.role !== 'all')
    for (const [field, variable] of [
      ['databaseUrl', 'TRIBUTARY_DATABASE_URL'],
      ['redisUrl', 'TRIBUTARY_REDIS_URL'],
    ] as const)
      if (config[field] === null)
        context.addIssue({
          code: 'custom',
          path: [field],
          message: `--role ${config.role} shares the work with other processes: it needs ${variable} (only --role all runs alone)`,
        });
  const email = { smtpUrl: config.smtpUrl, smtpFrom: config.smtpFrom, ownerEmail: config.ownerEmail };
  const set = Object.entries(email).filter(([, value]) => value !== null);
  if (set.length > 0 && set.length < 3)
    for (const [field, value] of Object.entries(email))
      if (value === null)
        context.addIssue({
          code: 'custom',
          path: [field],
          message: 'email needs TRIBUTARY_SMTP_URL, TRIBUTARY_SMTP_FROM and TRIBUTARY_OWNER_EMAIL together',
        });
  if (config.endpointBaseUrl !== null) {
    const endpoints = new URL(config.endpointBaseUrl);
    if (endpoints.pathname !== '/' || endpoints.search !== '')
      context.addIssue({
        code: 'custom',
        path: ['endpointBaseUrl'],
        message: 'TRIBUTARY_ENDPOINT_BASE_URL must be an origin only (https://hooks.example.com), without a path',
      });
    if (config.publicUrl !== null && new URL(config.publicUrl).host === endpoints.host)
      context.addIssue({
        code: 'custom',
        path: ['endpointBaseUrl'],
        message: 'TRIBUTARY_ENDPOINT_BASE_URL must name another host than TRIBUTARY_PUBLIC_URL: that is its point',
      });
  }
  if (config.s3Endpoint !== null)
    for (const field of ['s3AccessKeyId', 's3SecretAccessKey'] as const)
      if (config[field] === null)
        context.addIssue({
          code: 'custom',
          path: [field],
          message: 'TRIBUTARY_S3_ENDPOINT needs TRIBUTARY_S3_ACCESS_KEY_ID and TRIBUTARY_S3_SECRET_ACCESS_KEY',
        });
});

/** The engine's delivery settings from the configuration (docs/destinations.md). */
export function deliveryOptions(config: ServerConfig): NonNullable<EngineOptions['delivery']> {
  const { smtpUrl, smtpFrom, ownerEmail, s3Endpoint, s3AccessKeyId, s3SecretAccessKey } = config;
  return {
    timeoutMs: config.deliveryTimeoutMs,
    retry: { maxAttempts: config.deliveryMaxAttempts },
    email: smtpUrl && smtpFrom && ownerEmail ? { smtpUrl, from: smtpFrom, ownerEmail } : null,
    s3:
      s3Endpoint && s3AccessKeyId !== null && s3SecretAccessKey !== null
        ? {
            endpoint: s3Endpoint,
            region: config.s3Region,
            accessKeyId: s3AccessKeyId,
            secretAccessKey: s3SecretAccessKey,
            forcePathStyle: config.s3ForcePathStyle,
          }
        : null,
  };
}

export interface StartFlags {
  readonly role?: string;
  readonly port?: string;
  readonly host?: string;
  readonly dataDir?: string;
  readonly databaseUrl?: string;
  readonly appsFile?: string;
  readonly endpointRatePerS?: string;
  readonly endpointBurst?: string;
  readonly logLevel?: string;
  readonly redisUrl?: string;
}

/** apps/web/dist of this checkout: src/start and dist/start are both four levels below the root. */
export const DEFAULT_WEB_DIR = fileURLToPath(new URL('../../../../apps/web/dist', import.meta.url));

/** Reads flags and TRIBUTARY_* variables once, reporting every invalid value together. */
export function loadServerConfig(flags: StartFlags, env: NodeJS.ProcessEnv): ServerConfig {
  const parsed = CompleteServerConfig.safeParse({
    role: flags.role ?? env['TRIBUTARY_ROLE'] ?? 'all',
    port: flags.port ?? env['TRIBUTARY_PORT'] ?? '8080',
    host: flags.host ?? env['TRIBUTARY_HOST'] ?? '127.0.0.1',
    dataDir: path.resolve(flags.dataDir ?? env['TRIBUTARY_DATA_DIR'] ?? '.tributary'),
    databaseUrl: flags.databaseUrl ?? (env['TRIBUTARY_DATABASE_URL'] || null),
    cacheDir: defaultCacheDir(env),
    publicUrl: env['TRIBUTARY_PUBLIC_URL'] ?? null,
    endpointBaseUrl: env['TRIBUTARY_ENDPOINT_BASE_URL'] || null,
    adminKey: env['TRIBUTARY_ADMIN_KEY'] ?? null,
    allowPrivateUrls: ['1', 'true', 'yes'].includes((env['TRIBUTARY_ALLOW_PRIVATE_URLS'] ?? '').toLowerCase()),
    concurrency: env['TRIBUTARY_CONCURRENCY'] ?? '4',
    sourceTimeoutMs: env['TRIBUTARY_SOURCE_TIMEOUT_MS'] ?? '300000',
    longRunMs: env['TRIBUTARY_LONG_RUN_MS'] ?? '500',
    longRunSlots: env['TRIBUTARY_LONG_RUN_SLOTS'] || null,
    shutdownGraceMs: env['TRIBUTARY_SHUTDOWN_GRACE_MS'] ?? '30000',
    appsFile: flags.appsFile ?? env['TRIBUTARY_APPS_FILE'] ?? null,
    npmRegistry: env['TRIBUTARY_NPM_REGISTRY'] || null,
    webDir: path.resolve(env['TRIBUTARY_WEB_DIR'] ?? DEFAULT_WEB_DIR),
    endpointRatePerS:
      flags.endpointRatePerS ??
      env['TRIBUTARY_ENDPOINT_RATE_PER_S'] ??
      String(DEFAULT_ENDPOINT_RATE_LIMIT.ratePerSecond),
    endpointBurst: flags.endpointBurst ?? env['TRIBUTARY_ENDPOINT_BURST'] ?? String(DEFAULT_ENDPOINT_RATE_LIMIT.burst),
    logLevel: flags.logLevel ?? env['TRIBUTARY_LOG_LEVEL'] ?? 'info',
    logFormat: env['TRIBUTARY_LOG_FORMAT'] || 'auto',
    // An empty variable is "not set", as a compose file or a shell export leaves it.
    redisUrl: flags.redisUrl ?? (env['TRIBUTARY_REDIS_URL'] || null),
    redisPrefix: env['TRIBUTARY_REDIS_PREFIX'] ?? 'tributary:',
    smtpUrl: env['TRIBUTARY_SMTP_URL'] ?? null,
    smtpFrom: env['TRIBUTARY_SMTP_FROM'] ?? null,
    ownerEmail: env['TRIBUTARY_OWNER_EMAIL'] ?? null,
    s3Endpoint: env['TRIBUTARY_S3_ENDPOINT'] ?? null,
    s3Region: env['TRIBUTARY_S3_REGION'] ?? 'us-east-1',
    s3AccessKeyId: env['TRIBUTARY_S3_ACCESS_KEY_ID'] ?? null,
    s3SecretAccessKey: env['TRIBUTARY_S3_SECRET_ACCESS_KEY'] ?? null,
    s3ForcePathStyle: !['0', 'false', 'no'].includes((env['TRIBUTARY_S3_FORCE_PATH_STYLE'] ?? 'true').toLowerCase()),
    deliveryTimeoutMs: env['TRIBUTARY_DELIVERY_TIMEOUT_MS'] ?? '5000',
    deliveryMaxAttempts: env['TRIBUTARY_DELIVERY_MAX_ATTEMPTS'] ?? '5',
    metrics: !['0', 'false', 'no'].includes((env['TRIBUTARY_METRICS'] ?? 'true').toLowerCase()),
    metricsPublic: ['1', 'true', 'yes'].includes((env['TRIBUTARY_METRICS_PUBLIC'] ?? '').toLowerCase()),
    readyRunnerStallMs: env['TRIBUTARY_READY_RUNNER_STALL_MS'] || null,
    readyRunnerWaitMs: env['TRIBUTARY_READY_RUNNER_WAIT_MS'] ?? '30000',
    readySchedulerLagMs: env['TRIBUTARY_READY_SCHEDULER_LAG_MS'] ?? '30000',
  });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new AppError('USAGE_ERROR', `invalid configuration: ${problems}`);
  }
  return { ...parsed.data, appsFile: parsed.data.appsFile === null ? null : path.resolve(parsed.data.appsFile) };
}
