import { AppError, DeadLetter, DeadLettersQuery, Invocation, isAppError, list, single } from '@tributary/contracts';
import type { DeadLetter as DeadLetterRecord, Engine } from '@tributary/engine';
import { z } from 'zod';
import { pageInfo } from './pagination.js';
import { route, type RouteSpec } from './route-table.js';

function deadLetterToApi(record: DeadLetterRecord): z.infer<typeof DeadLetter> {
  return {
    id: record.id,
    source_id: record.sourceId,
    trigger: record.trigger,
    event: record.event,
    attempts: record.attempts,
    last_error: record.lastError,
    created_at: Math.floor(record.createdAt / 1000),
    failed_at: Math.floor(record.failedAt / 1000),
  };
}

/** Invocations the platform failed to run on every attempt: listed, shown, queued again, deleted. */
export function deadLetterRoutes(engine: Engine): RouteSpec[] {
  return [
    route({
      method: 'GET',
      url: '/v1/dead-letters',
      tag: 'dead-letters',
      summary: 'List dead letters, newest failure first (optionally of one source)',
      query: DeadLettersQuery,
      response: list(DeadLetter),
      handler: async ({ query }) => {
        const sourceId = query.source_id !== undefined ? await sourceOf(engine, query.source_id) : undefined;
        const page = await engine.deadLetters.list({
          limit: query.limit,
          ...(sourceId !== undefined ? { sourceId } : {}),
          ...(query.before !== undefined ? { before: query.before } : {}),
        });
        return { page_info: pageInfo(page.data, page.total), data: page.data.map(deadLetterToApi) };
      },
    }),
    route({
      method: 'GET',
      url: '/v1/dead-letters/:id',
      tag: 'dead-letters',
      summary: 'One dead letter, with its event and last error',
      response: single(DeadLetter),
      handler: async ({ params }) => ({ data: deadLetterToApi(await engine.deadLetters.get(params['id'] ?? '')) }),
    }),
    route({
      method: 'POST',
      url: '/v1/dead-letters/:id/retry',
      tag: 'dead-letters',
      summary: 'Queue a dead letter again (attempts start from zero); it leaves the list',
      response: single(Invocation),
      status: 202,
      handler: async ({ params }) => {
        const record = await engine.deadLetters.retry(params['id'] ?? '');
        return { data: { invocation_id: record.id } };
      },
    }),
    route({
      method: 'DELETE',
      url: '/v1/dead-letters/:id',
      tag: 'dead-letters',
      summary: 'Delete a dead letter without running it',
      response: z.null(),
      status: 204,
      handler: async ({ params, reply }) => {
        await engine.deadLetters.delete(params['id'] ?? '');
        void reply.status(204);
        return null;
      },
    }),
  ];
}

/** The source a `source_id` filter names (id, slug or name); unknown is a 404 naming the field. */
async function sourceOf(engine: Engine, ref: string): Promise<string> {
  try {
    return (await engine.sources.resolve(ref)).id;
  } catch (error) {
    if (isAppError(error) && error.code === 'NOT_FOUND')
      throw new AppError('NOT_FOUND', `query.source_id: no source with id, slug or name "${ref}"`, {
        field: 'query.source_id',
      });
    throw error;
  }
}
