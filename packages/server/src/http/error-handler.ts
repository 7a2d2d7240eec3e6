import { AppError, isAppError } from '@tributary/contracts';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * The server's one error handler: platform errors keep their code and the registry's status;
 * Fastify's own request errors get codes from the same registry; anything else is INTERNAL and
 * its message and stack stay in the server log.
 */
export function installErrorHandler(app: FastifyInstance, log: (message: string) => void): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const appError = toAppError(error);
    if (appError.code === 'INTERNAL') log(`${request.method} ${request.url} failed: ${error.stack ?? error.message}`);
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
export function frameworkErrorHandler(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const appError = toAppError(error);
  void reply.status(appError.status).send({ error: { code: appError.code, message: appError.message } });
}

function toAppError(error: FastifyError): AppError {
  if (isAppError(error)) return error;
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return new AppError('VALIDATION_FAILED', 'a path segment of the URL is not valid percent-encoding');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError('VALIDATION_FAILED', 'a path segment of the URL is longer than any id, key or name can be');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('BODY_TOO_LARGE', 'the request body is larger than this route allows');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'send the request body as JSON (Content-Type: application/json)');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('VALIDATION_FAILED', 'the request body is empty but Content-Type says JSON');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('VALIDATION_FAILED', `the request body is not valid JSON: ${error.message}`);
    default:
      break;
  }
  if (error instanceof SyntaxError || error.statusCode === 400) {
    return new AppError('VALIDATION_FAILED', `the request body is not valid JSON: ${error.message}`);
  }
  return new AppError('INTERNAL', 'an internal error occurred; the server log has the details', {}, { cause: error });
}
