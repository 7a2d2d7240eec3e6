import type { EventRecord, LogRecord } from '../pubsub/pubsub.js';
import type { Page, PageQuery, Store } from '../ports/store.js';

/**
 * The event bin and the logs of deployed sources, as the API and SSE read them: listing,
 * deletion, and catch-up after a reconnect. Callers resolve the source first (unknown is theirs to
 * report); cursors that name nothing are errors here.
 */
export class EventService {
  constructor(private readonly options: { readonly store: Store }) {}

  list(sourceId: string, page: PageQuery): Promise<Page<EventRecord>> {
    return this.options.store.listEvents(sourceId, page);
  }

  after(sourceId: string, lastEventId: string | null): Promise<EventRecord[]> {
    return this.options.store.eventsAfter(sourceId, lastEventId);
  }

  delete(sourceId: string, range: { readonly startId?: string; readonly endId?: string }): Promise<number> {
    return this.options.store.deleteEvents(sourceId, range);
  }

  logs(sourceId: string, page: PageQuery): Promise<Page<LogRecord>> {
    return this.options.store.listLogs(sourceId, page);
  }

  logsAfter(sourceId: string, lastId: string | null): Promise<LogRecord[]> {
    return this.options.store.logsAfter(sourceId, lastId);
  }
}
