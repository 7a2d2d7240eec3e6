import { AppError, single } from '@tributary/contracts';
import { z } from 'zod';
import { TICKET_PATH, type StreamTickets } from '../sse/stream-tickets.js';
import { route, type RouteSpec } from './route-table.js';

const CreateTicketBody = z.strictObject({
  path: z.string().max(4096),
});

const StreamTicketInfo = z.object({
  ticket: z.string(),
  /** The stream URL's path and query: open it on the server's address within `expires_at`. */
  url: z.string(),
  expires_at: z.number().int(),
});

/** `POST /v1/sse/tickets`: a short-lived ticket that opens one SSE stream (docs/sse.md#authentication). */
export function streamTicketRoutes(tickets: StreamTickets): RouteSpec[] {
  return [
    route({
      method: 'POST',
      url: '/v1/sse/tickets',
      tag: 'sse',
      summary: 'A ticket that opens one SSE stream, once, within 60 s: for clients that cannot send headers',
      body: CreateTicketBody,
      response: single(StreamTicketInfo),
      status: 201,
      handler: ({ body }) => {
        const path = body.path.split('?', 1)[0] ?? '';
        if (!TICKET_PATH.test(path))
          throw new AppError(
            'VALIDATION_FAILED',
            `path: "${path}" is not a stream (/sources/{id}/sse, /sources/{id}/logs/sse or /sse/{channel})`,
            { field: 'path' },
          );
        const issued = tickets.issue(path);
        return Promise.resolve({
          data: {
            ticket: issued.ticket,
            url: `${path}?ticket=${issued.ticket}`,
            expires_at: Math.floor(issued.expiresAt / 1000),
          },
        });
      },
    }),
  ];
}
