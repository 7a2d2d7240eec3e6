import { AppError } from '@tributary/contracts';
import type { Engine } from '@tributary/engine';
import type { FastifyRequest } from 'fastify';

/**
 * Checks the API key of a request: `Authorization: Bearer <key>`, or (for SSE, which browsers open
 * without headers) `?token=<key>`. Throws UNAUTHORIZED otherwise.
 */
export async function authenticate(
  engine: Engine,
  request: FastifyRequest,
  options: { readonly allowQueryToken: boolean },
): Promise<void> {
  const header = request.headers.authorization;
  let key: string | null = null;
  if (typeof header === 'string' && /^Bearer\s+\S+$/i.test(header)) key = header.replace(/^Bearer\s+/i, '').trim();
  if (!key && options.allowQueryToken) {
    const token = (request.query as Record<string, unknown> | undefined)?.['token'];
    if (typeof token === 'string' && token !== '') key = token;
  }
  if (!key) throw new AppError('UNAUTHORIZED', 'an API key is required: send Authorization: Bearer <key>');
  if (!(await engine.apiKeys.verify(key))) throw new AppError('UNAUTHORIZED', 'the API key is not valid');
}
