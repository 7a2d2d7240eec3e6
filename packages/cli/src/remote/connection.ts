import { AppError } from '@tributary/contracts/errors';
import { configPath, readConfig } from './config-file.js';

export const DEFAULT_API_URL = 'http://127.0.0.1:8080';
export const DEFAULT_PROFILE = 'default';

/** The flags every remote command takes. */
export interface RemoteFlags {
  readonly profile?: string;
  readonly apiUrl?: string;
  readonly apiKey?: string;
}

/** Where a remote command talks to, and as whom. */
export interface Connection {
  readonly profile: string;
  /** Server base URL without a trailing slash and without `/v1`. */
  readonly apiUrl: string;
  readonly apiKey: string | null;
  /** Where the URL came from, for messages: flag, environment, profile or default. */
  readonly source: 'flag' | 'environment' | 'profile' | 'default';
}

/**
 * Flags win over TRIBUTARY_API_URL / TRIBUTARY_API_KEY, which win over the profile in the config
 * file, so a script can point one command elsewhere without touching the stored login.
 */
export function resolveConnection(flags: RemoteFlags, env: NodeJS.ProcessEnv = process.env): Connection {
  const profile = flags.profile ?? (env['TRIBUTARY_PROFILE'] || DEFAULT_PROFILE);
  const stored = readConfig(configPath(env)).get(profile) ?? {};
  const envUrl = env['TRIBUTARY_API_URL'] || undefined;
  const envKey = env['TRIBUTARY_API_KEY'] || undefined;
  const url = flags.apiUrl ?? envUrl ?? stored['api_url'];
  const source =
    flags.apiUrl !== undefined
      ? 'flag'
      : envUrl !== undefined
        ? 'environment'
        : stored['api_url'] !== undefined
          ? 'profile'
          : 'default';
  return {
    profile,
    apiUrl: normalizeApiUrl(url ?? DEFAULT_API_URL),
    apiKey: flags.apiKey ?? envKey ?? stored['api_key'] ?? null,
    source,
  };
}

export function normalizeApiUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new AppError('USAGE_ERROR', `API URL "${text}" is not a URL; give one like ${DEFAULT_API_URL}`, {
      field: '--api-url',
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AppError('USAGE_ERROR', `API URL "${text}" must start with http:// or https://`, { field: '--api-url' });
  }
  return url.toString().replace(/\/+$/, '').replace(/\/v1$/, '');
}
