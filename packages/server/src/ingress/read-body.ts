import type { IncomingMessage } from 'node:http';
import { AppError } from '@tributary/contracts';

/** Methods whose requests carry no body here (as for the API's framework): one sent is read and dropped. */
const BODYLESS = new Set(['GET', 'HEAD']);

/**
 * Reads a request's body, up to `limit` bytes: a longer one (stated in Content-Length or sent) is
 * BODY_TOO_LARGE, one shorter than its Content-Length VALIDATION_FAILED. Resolves with null when
 * the client went away before sending all of it (there is nobody left to answer).
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  if (BODYLESS.has(req.method ?? '')) {
    req.resume();
    return Promise.resolve(Buffer.alloc(0));
  }
  const stated = req.headers['content-length'] === undefined ? Number.NaN : Number(req.headers['content-length']);
  if (stated > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const done = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onGone);
      req.off('aborted', onGone);
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > limit) {
        done();
        // The rest is left to Node, which drops it once the answer is sent.
        req.resume();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      done();
      if (!Number.isNaN(stated) && stated !== received)
        reject(new AppError('VALIDATION_FAILED', 'the request body does not have the length its Content-Length says'));
      else resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, received));
    };
    const onGone = (): void => {
      done();
      resolve(null);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onGone);
    req.on('aborted', onGone);
  });
}

function tooLarge(limit: number): AppError {
  return new AppError('BODY_TOO_LARGE', `the request body is larger than ${limit} bytes, this route's limit`, {
    limit_bytes: limit,
  });
}
