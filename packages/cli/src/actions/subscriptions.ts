import { AppError } from '@tributary/contracts/errors';
import type { Output } from '../ui/output.js';
import { formatTable, relativeTime } from '../ui/table.js';
import type { RemoteCommandFlags } from '../commands/remote-options.js';
import { subscriberId } from '../remote/subscriber-lookup.js';
import { runRemote } from './remote-command.js';

export interface SubscribeFlags extends RemoteCommandFlags {
  readonly listener?: string;
  readonly url?: string;
  readonly eventName?: string;
}

/** `subscriptions list`: every subscription, oldest first, as the server lists them. */
export async function runSubscriptionsList(flags: RemoteCommandFlags, output: Output): Promise<number> {
  return runRemote(flags, output, async (client) => {
    const { data } = await client.call(client.api.GET('/v1/subscriptions'));
    if (flags.json) return output.json(data);
    if (data.length === 0) return output.out('No subscriptions.');
    const rows = data.map((subscription) => [
      subscription.id,
      subscription.emitter_id,
      subscription.listener_id ?? subscription.listener_url ?? '',
      subscription.event_name === '' ? '(default)' : subscription.event_name,
      relativeTime(subscription.created_at),
    ]);
    for (const line of formatTable(['ID', 'EMITTER', 'LISTENER', 'CHANNEL', 'CREATED'], rows)) output.out(line);
  });
}

/** `subscriptions add`: the emitter's events to a source, a workflow or a webhook. */
export async function runSubscriptionsAdd(emitter: string, flags: SubscribeFlags, output: Output): Promise<number> {
  return runRemote(flags, output, async (client) => {
    if ((flags.listener === undefined) === (flags.url === undefined))
      throw new AppError(
        'USAGE_ERROR',
        'give --listener <ID> (a source or workflow) or --url <URL> (a webhook), not both',
        {
          field: '--listener',
        },
      );
    const emitterId = await subscriberId(client, emitter, 'emitter');
    const listenerId =
      flags.listener === undefined ? undefined : await subscriberId(client, flags.listener, '--listener');
    const { data } = await client.call(
      client.api.POST('/v1/subscriptions', {
        params: {
          query: {
            emitter_id: emitterId,
            ...(listenerId !== undefined ? { listener_id: listenerId } : {}),
            ...(flags.url !== undefined ? { listener_url: flags.url } : {}),
            ...(flags.eventName !== undefined ? { event_name: flags.eventName } : {}),
          },
        },
      }),
    );
    if (flags.json) return output.json(data);
    const channel = data.event_name === '' ? '' : ` (channel ${data.event_name})`;
    output.out(`Subscribed ${data.listener_id ?? data.listener_url ?? ''} to ${data.emitter_id}${channel}: ${data.id}`);
    // Only the answer that created a webhook subscription carries it; the server never shows it again.
    if (data.secret !== undefined)
      output.out(`Signing secret (shown once; keep it): ${data.secret} (docs/rest-api.md#verifying-a-delivery)`);
  });
}

export async function runSubscriptionsRemove(id: string, flags: RemoteCommandFlags, output: Output): Promise<number> {
  return runRemote(flags, output, async (client) => {
    await client.call(client.api.DELETE('/v1/subscriptions/{id}', { params: { path: { id } } }));
    if (flags.json) return output.json({ ok: true, id });
    output.out(`Removed subscription ${id}`);
  });
}

/** `subscriptions deliveries`: a webhook subscription's delivery log, newest first. */
export async function runSubscriptionDeliveries(
  id: string,
  flags: RemoteCommandFlags & { limit: string },
  output: Output,
): Promise<number> {
  return runRemote(flags, output, async (client) => {
    const page = await client.call(
      client.api.GET('/v1/subscriptions/{id}/deliveries', {
        // Number() is the server's own coercion, so `-n abc` is still its VALIDATION_FAILED on limit.
        params: { path: { id }, query: { limit: Number(flags.limit) } },
      }),
    );
    if (flags.json) return output.json(page.data);
    if (page.data.length === 0) return output.out('No deliveries yet.');
    const rows = page.data.map((delivery) => [
      delivery.id,
      delivery.status,
      `${delivery.attempts} / ${delivery.max_attempts}`,
      relativeTime(Math.floor(delivery.created_at / 1000)),
      delivery.last_error ?? '',
    ]);
    for (const line of formatTable(['DELIVERY', 'STATUS', 'ATTEMPTS', 'CREATED', 'LAST ERROR'], rows)) output.out(line);
  });
}
