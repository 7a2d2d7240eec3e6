import { AppError } from '@tributary/contracts';
import type { Engine } from '@tributary/engine';
import type { FastifyRequest } from 'fastify';
import { authenticate, type Credential } from '../http/auth.js';
import type { StreamTickets } from './stream-tickets.js';

/**
 * Who may open a stream: a `?ticket=` issued for this stream's path (spent on use), else what
 * every API route takes, and on the browser paths the deprecated `?token=<key>` too. The
 * credential is null for a ticket: it says which stream, not who.
 */
export async function authenticateStream(
  engine: Engine,
  tickets: StreamTickets,
  request: FastifyRequest,
  options: { readonly allowQueryToken: boolean },
): Promise<Credential | null> {
  const ticket = (request.query as Record<string, unknown> | undefined)?.['ticket'];
  if (typeof ticket === 'string' && ticket !== '') {
    if (!tickets.redeem(ticket, request.url.split('?', 1)[0] ?? ''))
      throw new AppError(
        'UNAUTHORIZED',
        'the stream ticket is not valid: it expired (60 s), was used already or was issued for another stream; get a new one from POST /v1/sse/tickets',
      );
    return null;
  }
  return authenticate(engine, request, options);
}
