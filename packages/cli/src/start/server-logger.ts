import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { LogLevel } from '@tributary/server';

export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/**
 * Field names that could hold a secret, blanked wherever a line carries them (pino's redaction):
 * lines are built never to hold a key or an endpoint id, and this catches one that slips in.
 */
const REDACTED = [
  'token',
  'key',
  'api_key',
  'authorization',
  'endpoint_id',
  'endpointId',
  'req.headers.authorization',
  'req.query',
  'req.url',
];

/**
 * The server's one log, shared by Fastify and the engine: JSON lines on stderr (one object per
 * line, for a collector), or pino-pretty's coloured lines when stderr is a terminal (`auto`).
 */
export function createServerLogger(level: LogLevel, format: LogFormat, stream = process.stderr): Logger {
  const options = { level, redact: { paths: REDACTED, censor: '[REDACTED]' } };
  const human = format === 'pretty' || (format === 'auto' && stream.isTTY === true);
  if (human)
    return pino(
      options,
      pretty({
        destination: stream,
        colorize: stream.isTTY === true,
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname',
        sync: true,
      }),
    );
  return pino(options, stream);
}
