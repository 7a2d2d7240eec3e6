import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError } from '@tributary/contracts';
import { DEFAULT_ENDPOINT_RATE_LIMIT, isPostgresUrl } from '@tributary/engine';
import { LOG_LEVELS } from '@tributary/server';
import { z } from 'zod';
import { defaultCacheDir } from '../local/create-sandbox.js';

/**
 * Configuration of `tributary start`: every field has a flag, a TRIBUTARY_* variable and a default
 * that gives the single-process setup (docs/config.md lists them). Flags win over variables.
 */
export const ServerConfig = z.object({
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
  adminKey: z.string().min(16).nullable().describe('Admin API key to use instead of generating one (automation)'),
  allowPrivateUrls: z.boolean().describe('Let component_url reach loopback and private addresses'),
  concurrency: z.coerce.number().int().min(1).max(64).describe('Invocations running at once across sources'),
  sourceTimeoutMs: z.coerce.number().int().min(1000).describe('Deadline of one source invocation, in ms'),
  appsFile: z
    .string()
    .min(1)
    .nullable()
    .describe('JSON file of app catalog entries (docs/accounts.md), stored at each start'),
  webDir: z.string().min(1).describe('Folder of the built web app served at /'),
  endpointRatePerS: z.coerce
    .number()
    .min(0)
    .describe('Requests per second each HTTP endpoint takes on average (0 = no limit)'),
  endpointBurst: z.coerce.number().int().min(1).describe('Requests an HTTP endpoint takes at once after a quiet spell'),
  logLevel: z.enum(LOG_LEVELS).describe('Level of the server log on stderr (requests at debug, refusals at warn)'),
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
});
export type ServerConfig = z.infer<typeof ServerConfig>;

export interface StartFlags {
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
  const parsed = ServerConfig.safeParse({
    port: flags.port ?? env['TRIBUTARY_PORT'] ?? '8080',
    host: flags.host ?? env['TRIBUTARY_HOST'] ?? '127.0.0.1',
    dataDir: path.resolve(flags.dataDir ?? env['TRIBUTARY_DATA_DIR'] ?? '.tributary'),
    databaseUrl: flags.databaseUrl ?? (env['TRIBUTARY_DATABASE_URL'] || null),
    cacheDir: defaultCacheDir(env),
    publicUrl: env['TRIBUTARY_PUBLIC_URL'] ?? null,
    adminKey: env['TRIBUTARY_ADMIN_KEY'] ?? null,
    allowPrivateUrls: ['1', 'true', 'yes'].includes((env['TRIBUTARY_ALLOW_PRIVATE_URLS'] ?? '').toLowerCase()),
    concurrency: env['TRIBUTARY_CONCURRENCY'] ?? '4',
    sourceTimeoutMs: env['TRIBUTARY_SOURCE_TIMEOUT_MS'] ?? '300000',
    appsFile: flags.appsFile ?? env['TRIBUTARY_APPS_FILE'] ?? null,
    webDir: path.resolve(env['TRIBUTARY_WEB_DIR'] ?? DEFAULT_WEB_DIR),
    endpointRatePerS:
      flags.endpointRatePerS ??
      env['TRIBUTARY_ENDPOINT_RATE_PER_S'] ??
      String(DEFAULT_ENDPOINT_RATE_LIMIT.ratePerSecond),
    endpointBurst: flags.endpointBurst ?? env['TRIBUTARY_ENDPOINT_BURST'] ?? String(DEFAULT_ENDPOINT_RATE_LIMIT.burst),
    logLevel: flags.logLevel ?? env['TRIBUTARY_LOG_LEVEL'] ?? 'info',
    // An empty variable is "not set", as a compose file or a shell export leaves it.
    redisUrl: flags.redisUrl ?? (env['TRIBUTARY_REDIS_URL'] || null),
    redisPrefix: env['TRIBUTARY_REDIS_PREFIX'] ?? 'tributary:',
  });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new AppError('USAGE_ERROR', `invalid configuration: ${problems}`);
  }
  return { ...parsed.data, appsFile: parsed.data.appsFile === null ? null : path.resolve(parsed.data.appsFile) };
}
