import type { Kysely } from 'kysely';
import type { Page, PageQuery, Store } from '../ports/store.js';
import type { EventRecord, LogRecord } from '../pubsub/pubsub.js';
import { deleteEvents, eventsAfter, listEvents, listLogs, logsAfter } from '../sources/event-queries.js';
import type { Database } from './schema.js';

/**
 * The event bin and log reads of a `Store`, one set of Kysely queries for every dialect: the
 * stores differ in how they write, not in how these are read.
 */
export abstract class EventLogReads implements Pick<
  Store,
  'listEvents' | 'eventsAfter' | 'deleteEvents' | 'listLogs' | 'logsAfter'
> {
  protected constructor(private readonly reads: Kysely<Database>) {}

  listEvents(sourceId: string, page: PageQuery): Promise<Page<EventRecord>> {
    return listEvents(this.reads, sourceId, page);
  }

  eventsAfter(sourceId: string, lastEventId: string | null): Promise<EventRecord[]> {
    return eventsAfter(this.reads, sourceId, lastEventId);
  }

  deleteEvents(sourceId: string, range: { readonly startId?: string; readonly endId?: string }): Promise<number> {
    return deleteEvents(this.reads, sourceId, range);
  }

  listLogs(sourceId: string, page: PageQuery): Promise<Page<LogRecord>> {
    return listLogs(this.reads, sourceId, page);
  }

  logsAfter(sourceId: string, lastId: string | null): Promise<LogRecord[]> {
    return logsAfter(this.reads, sourceId, lastId);
  }
}
