import {
  AppError,
  DeliveriesByRunQuery,
  DeliveriesQuery,
  Delivery,
  list,
  single,
  Subscription,
  SubscriptionQuery,
} from '@tributary/contracts';
import type { DeliveryRecord, Engine, SubscribeRequest, Subscription as SubscriptionRecord } from '@tributary/engine';
import { z } from 'zod';
import { pageInfo } from './pagination.js';
import { route, type RouteSpec } from './route-table.js';

function requestOf(query: z.infer<typeof SubscriptionQuery>): SubscribeRequest {
  return {
    emitterId: query.emitter_id,
    listenerId: query.listener_id,
    listenerUrl: query.listener_url,
    eventName: query.event_name,
  };
}

const toApi = (subscription: SubscriptionRecord): z.infer<typeof Subscription> => ({ ...subscription });
const deliveryToApi = (record: DeliveryRecord): z.infer<typeof Delivery> => ({ ...record, log: [...record.log] });

/**
 * Subscriptions in Pipedream's shapes (contract §9.2): listeners of a deployed source's events,
 * a webhook URL (signed POSTs with retries) or another source; and their delivery log.
 */
export function subscriptionRoutes(engine: Engine): RouteSpec[] {
  const { subscriptions } = engine;
  const listAll = async () => {
    const data = (await subscriptions.list()).map(toApi);
    return { page_info: pageInfo(data, data.length), data };
  };
  return [
    route({
      method: 'POST',
      url: '/v1/subscriptions',
      tag: 'subscriptions',
      summary:
        'Subscribe a listener (listener_id, or listener_url for a webhook) to an emitter channel; answers the existing subscription when there is one',
      query: SubscriptionQuery,
      response: single(Subscription),
      handler: async ({ query }) => {
        const result = await subscriptions.subscribe(requestOf(query));
        return {
          data: { ...toApi(result.subscription), ...(result.secret !== null ? { secret: result.secret } : {}) },
        };
      },
    }),
    route({
      method: 'DELETE',
      url: '/v1/subscriptions',
      tag: 'subscriptions',
      summary: 'Remove the subscription of this emitter, listener and channel (event_name empty or absent: default)',
      query: SubscriptionQuery,
      response: z.object({}),
      handler: async ({ query }) => {
        await subscriptions.unsubscribe(requestOf(query));
        return {};
      },
    }),
    route({
      method: 'GET',
      url: '/v1/users/me/subscriptions',
      tag: 'subscriptions',
      summary: 'List every subscription',
      response: list(Subscription),
      handler: listAll,
    }),
    route({
      method: 'GET',
      url: '/v1/subscriptions',
      tag: 'subscriptions',
      summary: 'List every subscription (alias of /v1/users/me/subscriptions)',
      response: list(Subscription),
      handler: listAll,
    }),
    route({
      method: 'GET',
      url: '/v1/subscriptions/:id',
      tag: 'subscriptions',
      summary: 'One subscription',
      response: single(Subscription),
      handler: async ({ params }) => ({ data: toApi(await subscriptions.get(params['id'] ?? '')) }),
    }),
    route({
      method: 'DELETE',
      url: '/v1/subscriptions/:id',
      tag: 'subscriptions',
      summary: 'Remove a subscription by id (queued deliveries still run)',
      response: z.object({}),
      handler: async ({ params }) => {
        await subscriptions.remove(params['id'] ?? '');
        return {};
      },
    }),
    route({
      method: 'GET',
      url: '/v1/subscriptions/:id/deliveries',
      tag: 'subscriptions',
      summary: "A webhook subscription's delivery log, newest first: status, attempts and each attempt's outcome",
      query: DeliveriesQuery,
      response: list(Delivery),
      handler: async ({ params, query }) => {
        const page = await subscriptions.deliveries(params['id'] ?? '', {
          limit: query.limit,
          ...(query.before !== undefined ? { before: query.before } : {}),
        });
        return { page_info: pageInfo(page.data, page.total), data: page.data.map(deliveryToApi) };
      },
    }),
    route({
      method: 'GET',
      url: '/v1/deliveries',
      tag: 'subscriptions',
      summary: "The deliveries of one run's $.send.* calls (run_id from a report's sends[].delivery or a workflow run)",
      query: DeliveriesByRunQuery,
      response: list(Delivery),
      handler: async ({ query }) => {
        const data = (await engine.deliveries.listByRun(query.run_id)).map(deliveryToApi);
        return { page_info: pageInfo(data, data.length), data };
      },
    }),
    route({
      method: 'GET',
      url: '/v1/deliveries/:id',
      tag: 'subscriptions',
      summary: 'One delivery ($.send.* call or webhook POST) with its attempts',
      response: single(Delivery),
      handler: async ({ params }) => {
        const record = await engine.deliveries.get(params['id'] ?? '');
        if (!record) throw new AppError('NOT_FOUND', `no delivery with id "${params['id'] ?? ''}"`);
        return { data: deliveryToApi(record) };
      },
    }),
  ];
}
