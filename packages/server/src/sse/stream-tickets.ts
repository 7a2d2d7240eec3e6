import { randomBytes } from 'node:crypto';

/** How long a ticket may wait before it opens its stream. */
export const TICKET_TTL_MS = 60_000;
/** Tickets waiting at once, all clients together; the oldest go first past it. */
const MAX_TICKETS = 10_000;

interface Ticket {
  readonly path: string;
  readonly expiresAt: number;
}

/**
 * Short-lived stream tickets: what a client that cannot send headers (a browser's EventSource on
 * another origin, a curl one-liner) puts in `?ticket=` instead of its API key. A ticket opens one
 * stream, the path it was issued for, once, within 60 s; a URL that leaks into a log afterwards
 * opens nothing. Held in this process's memory: a ticket is redeemed by the process that issued
 * it (docs/sse.md says so for load balancers).
 */
export class StreamTickets {
  private readonly tickets = new Map<string, Ticket>();

  constructor(private readonly now: () => number = Date.now) {}

  issue(path: string): { readonly ticket: string; readonly expiresAt: number } {
    this.sweep();
    if (this.tickets.size >= MAX_TICKETS) {
      const oldest = this.tickets.keys().next();
      if (!oldest.done) this.tickets.delete(oldest.value);
    }
    const ticket = `sst_${randomBytes(24).toString('base64url')}`;
    const expiresAt = this.now() + TICKET_TTL_MS;
    this.tickets.set(ticket, { path, expiresAt });
    return { ticket, expiresAt };
  }

  /** True once for a live ticket issued for `path`; the ticket is spent either way. */
  redeem(ticket: string, path: string): boolean {
    const entry = this.tickets.get(ticket);
    if (!entry) return false;
    this.tickets.delete(ticket);
    return entry.expiresAt > this.now() && entry.path === path;
  }

  private sweep(): void {
    const now = this.now();
    // Insertion order is expiry order: stop at the first live one.
    for (const [ticket, entry] of this.tickets) {
      if (entry.expiresAt > now) break;
      this.tickets.delete(ticket);
    }
  }
}

/** The stream paths a ticket may be issued for (the routes that take `?ticket=`). */
export const TICKET_PATH =
  /^\/(?:sources\/[^/?#]+\/(?:logs\/)?sse|sse\/dc\/[^/?#]+\/(?:emits|observations)|sse\/[^/?#]+)$/;
