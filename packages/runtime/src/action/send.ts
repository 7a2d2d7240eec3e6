import { AppError } from '@tributary/contracts';
import { findNonJson, isPlainObject } from '../util/json.js';

export const SEND_KINDS = ['http', 'email', 's3', 'emit', 'sse'] as const;
export type SendKind = (typeof SEND_KINDS)[number];

/** A kind read back from a run record (the API types it as a string). */
export function isSendKind(kind: string): kind is SendKind {
  return (SEND_KINDS as readonly string[]).includes(kind);
}

/** A `$.send.*` call, recorded during the run and delivered after it (contract §6.1). */
export interface SendRecord {
  readonly kind: SendKind;
  readonly config: Record<string, unknown>;
}

const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH'];

function invalid(kind: SendKind, message: string): AppError {
  return new AppError('SEND_INVALID', `$.send.${kind}: ${message}`);
}

function requireObject(kind: SendKind, value: unknown): Record<string, unknown> {
  if (!isPlainObject(value)) throw invalid(kind, 'expects a configuration object');
  const problem = findNonJson(value, 'config');
  if (problem) throw invalid(kind, `${problem}; the configuration must be JSON-serializable`);
  return value;
}

function optionalString(kind: SendKind, config: Record<string, unknown>, field: string): void {
  if (config[field] !== undefined && typeof config[field] !== 'string')
    throw invalid(kind, `"${field}" must be a string`);
}

/** Builds `$.send`, whose functions check their argument at call time and record it. */
export function createSend(record: (entry: SendRecord) => void): Record<string, (...args: unknown[]) => void> {
  return {
    http(value: unknown) {
      const config = requireObject('http', value);
      const method = config['method'];
      if (typeof method !== 'string' || !HTTP_METHODS.includes(method)) {
        throw invalid(
          'http',
          `"method" must be one of ${HTTP_METHODS.join(' ')} (upper-case), got ${JSON.stringify(method)}`,
        );
      }
      if (typeof config['url'] !== 'string' || config['url'] === '') throw invalid('http', '"url" is required');
      const data = config['data'];
      if (data !== undefined && typeof data !== 'string' && !isPlainObject(data) && !Array.isArray(data)) {
        throw invalid('http', '"data" must be a string or an object');
      }
      if (config['headers'] !== undefined && !isPlainObject(config['headers']))
        throw invalid('http', '"headers" must be an object');
      if (config['params'] !== undefined && !isPlainObject(config['params']))
        throw invalid('http', '"params" must be an object');
      record({ kind: 'http', config });
    },
    email(value: unknown) {
      const config = value === undefined ? {} : requireObject('email', value);
      for (const field of ['subject', 'text', 'html']) optionalString('email', config, field);
      record({ kind: 'email', config });
    },
    s3(value: unknown) {
      const config = requireObject('s3', value);
      for (const field of ['bucket', 'prefix']) {
        if (typeof config[field] !== 'string' || config[field] === '') throw invalid('s3', `"${field}" is required`);
      }
      if (config['payload'] === undefined) throw invalid('s3', '"payload" is required');
      record({ kind: 's3', config });
    },
    emit(value: unknown, channel?: unknown) {
      if (isPlainObject(value) && 'raw_event' in value) {
        const config = requireObject('emit', value);
        if (!isPlainObject(config['raw_event'])) throw invalid('emit', '"raw_event" must be an object');
        record({ kind: 'emit', config });
        return;
      }
      const problem = findNonJson(value, 'event');
      if (problem) throw invalid('emit', `${problem}; the event must be JSON-serializable`);
      if (channel !== undefined && typeof channel !== 'string') throw invalid('emit', 'the channel must be a string');
      record({ kind: 'emit', config: { raw_event: value ?? null, ...(channel === undefined ? {} : { channel }) } });
    },
    sse(value: unknown) {
      const config = requireObject('sse', value);
      if (typeof config['channel'] !== 'string' || config['channel'] === '')
        throw invalid('sse', '"channel" is required');
      if (config['payload'] === undefined) throw invalid('sse', '"payload" is required');
      record({ kind: 'sse', config });
    },
    sql() {
      throw new AppError('NOT_SUPPORTED', '$.send.sql is not supported by Tributary');
    },
    snowflake() {
      throw new AppError('NOT_SUPPORTED', '$.send.snowflake is not supported by Tributary');
    },
  };
}
