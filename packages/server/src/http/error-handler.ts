import http from 'node:http';
import type { Socket } from 'node:net';
import { AppError, isAppError, errorMessage } from '@tributary/contracts';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import secureJson from 'secure-json-parse';
import { loggedRoute } from './request-log.js';

/**
 * The server's one error handler: platform errors keep their code and the registry's status;
 * Fastify's own request errors get codes from the same registry; anything else is INTERNAL and
 * its message and stack stay in the server log.
 */
export function installErrorHandler(app: FastifyInstance, log: (message: string) => void): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const appError = toAppError(error, request);
    // The route pattern, never the URL: queries hold `?token=`, endpoint paths their secret id.
    if (appError.code === 'INTERNAL')
      log(`${request.method} ${loggedRoute(request)} failed: ${error.stack ?? error.message}`);
    const details = Object.keys(appError.details).length > 0 ? { details: appError.details } : {};
    void reply.status(appError.status).send({ error: { code: appError.code, message: appError.message, ...details } });
  });
  app.setNotFoundHandler((request, reply) => {
    void reply
      .status(404)
      .send({ error: { code: 'NOT_FOUND', message: `no route ${request.method} ${request.url.split('?')[0]}` } });
  });
}

/**
 * Errors the router raises before any handler (a path segment that is not valid percent-encoding,
 * or one longer than `maxParamLength`) get the same error body as everything else.
 */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const appError = toAppError(error, request);
  void reply.status(appError.status).send({ error: { code: appError.code, message: appError.message } });
}

/**
 * Requests Node's HTTP parser refuses never reach Fastify (headers over `maxHeaderSize` are a
 * 431, a method or request line HTTP does not know a 400, a slow request a 408): Fastify's
 * default answer has another shape, so this one writes the project's error body on the socket.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  let appError: AppError;
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      appError = new AppError(
        'HEADERS_TOO_LARGE',
        `the request headers are larger than ${Math.round(http.maxHeaderSize / 1024)} KB, the server's limit`,
      );
      break;
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      appError = new AppError('REQUEST_TIMEOUT', 'the request was not received in full in time');
      break;
    case 'HPE_INVALID_METHOD':
      appError = new AppError('MALFORMED_REQUEST', 'the request method is not one HTTP/1.1 knows');
      break;
    case 'HPE_INVALID_HEADER_TOKEN':
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
    case 'HPE_INVALID_TRANSFER_ENCODING':
      appError = new AppError('MALFORMED_REQUEST', 'a request header is malformed');
      break;
    default:
      appError = new AppError('MALFORMED_REQUEST', 'the request is not valid HTTP/1.1');
  }
  if (socket.writable) {
    const body = JSON.stringify({ error: { code: appError.code, message: appError.message } });
    socket.write(
      `HTTP/1.1 ${appError.status} ${http.STATUS_CODES[appError.status] ?? ''}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/**
 * The API's one body parser, JSON, with Fastify's rules (a `__proto__` or `constructor.prototype`
 * key is refused) and one exception: a `DELETE` whose body is empty has no body, since clients
 * send `Content-Type: application/json` on every call. On the routes that take a body an empty
 * one is still refused. Errors name what is wrong with the JSON.
 */
export function installJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text === '') {
      if (request.method === 'DELETE') done(null, undefined);
      else
        done(
          new AppError('VALIDATION_FAILED', 'the request body is empty but Content-Type says JSON', { field: 'body' }),
          undefined,
        );
      return;
    }
    try {
      done(null, secureJson.parse(text, null, { protoAction: 'error', constructorAction: 'error' }));
    } catch (error) {
      const reason = errorMessage(error);
      const poisoned = /prototype property/.test(reason);
      done(
        new AppError(
          'VALIDATION_FAILED',
          poisoned
            ? 'the request body has a "__proto__" or "constructor.prototype" key, which the API refuses'
            : `the request body is not valid JSON: ${reason}`,
          { field: 'body' },
        ),
        undefined,
      );
    }
  });
}

function toAppError(error: FastifyError, request?: FastifyRequest): AppError {
  if (isAppError(error)) return error;
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return new AppError('VALIDATION_FAILED', 'a path segment of the URL is not valid percent-encoding');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError('VALIDATION_FAILED', 'a path segment of the URL is longer than any id, key or name can be');
    case 'FST_ERR_CTP_BODY_TOO_LARGE': {
      const limit = request?.routeOptions.bodyLimit;
      return new AppError(
        'BODY_TOO_LARGE',
        limit ? `the request body is larger than ${limit} bytes, this route's limit` : error.message,
        limit ? { limit_bytes: limit } : {},
      );
    }
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'send the request body as JSON (Content-Type: application/json)');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('VALIDATION_FAILED', 'the request body does not have the length its Content-Length says');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('VALIDATION_FAILED', 'the request body is empty but Content-Type says JSON');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('VALIDATION_FAILED', `the request body is not valid JSON: ${error.message}`);
    default:
      break;
  }
  if (error instanceof SyntaxError) {
    return new AppError('VALIDATION_FAILED', `the request body is not valid JSON: ${error.message}`);
  }
  // Other errors Fastify raises for a request (they carry a 4xx status): a registry code by status.
  switch (error.statusCode) {
    case 400:
      return new AppError('VALIDATION_FAILED', error.message);
    case 404:
      return new AppError('NOT_FOUND', error.message);
    case 408:
      return new AppError('REQUEST_TIMEOUT', error.message);
    case 413:
      return new AppError('BODY_TOO_LARGE', error.message);
    case 415:
      return new AppError('UNSUPPORTED_MEDIA_TYPE', error.message);
    case 431:
      return new AppError('HEADERS_TOO_LARGE', error.message);
    default:
      return new AppError(
        'INTERNAL',
        'an internal error occurred; the server log has the details',
        {},
        { cause: error },
      );
  }
}
