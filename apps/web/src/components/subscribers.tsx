/**
 * Where an emitter's events go: the subscriptions of a source or workflow (docs/rest-api.md#subscriptions),
 * a form to add a webhook, workflow or source listener, a webhook's signing secret once, each
 * webhook's delivery log, and removal.
 */
import { useMutation, useQuery, useQueryClient, type UseQueryResult } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Link } from 'react-router';
import type { SubscribeQuery, SubscriptionT } from '../api/endpoints.js';
import { useApi } from '../auth/session.js';
import { ConfirmDialog } from './confirm-dialog.js';
import { CopyButton } from './copy-button.js';
import { Empty, ErrorState, QueryView } from './states.js';
import { RelativeTime } from './time.js';
import { useToast } from './toasts.js';

type ListenerKind = 'webhook' | 'workflow' | 'source';

export function Subscribers({ emitterId, emitterName }: { readonly emitterId: string; readonly emitterName: string }) {
  const api = useApi();
  const subscriptions = useQuery({ queryKey: ['subscriptions'], queryFn: () => api.listSubscriptions() });
  const mine = subscriptions.data?.filter((subscription) => subscription.emitter_id === emitterId) ?? [];
  // The list and form are drawn only while open: closed, the page holds no second set of fields.
  const [open, setOpen] = useState(false);
  return (
    <details className="card subscribers" onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>Subscribers{subscriptions.data ? ` (${mine.length})` : ''}</summary>
      {open ? (
        <SubscribersBody emitterId={emitterId} emitterName={emitterName} subscriptions={subscriptions} mine={mine} />
      ) : null}
    </details>
  );
}

function SubscribersBody({
  emitterId,
  emitterName,
  subscriptions,
  mine,
}: {
  readonly emitterId: string;
  readonly emitterName: string;
  /** Every subscription, as the summary's count read them; `mine` are this emitter's. */
  readonly subscriptions: UseQueryResult<SubscriptionT[]>;
  readonly mine: readonly SubscriptionT[];
}) {
  return (
    <>
      <p className="muted small">
        {emitterId.startsWith('wf_')
          ? "Each event this workflow's steps send with $.send.emit goes to every subscriber of its channel."
          : 'Each event this source emits (after its dedupe) goes to every subscriber of its channel.'}
      </p>
      <QueryView query={subscriptions} loadingLabel="Loading subscribers…">
        {() =>
          mine.length === 0 ? (
            <Empty title="No subscribers">
              <p>Add a webhook, a workflow or a source below.</p>
            </Empty>
          ) : (
            <div className="table-wrap">
              <table className="table stack-table" aria-label={`Subscribers of ${emitterName}`}>
                <thead>
                  <tr>
                    <th scope="col">Listener</th>
                    <th scope="col">Channel</th>
                    <th scope="col">Since</th>
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {mine.map((subscription) => (
                    <SubscriberRow key={subscription.id} subscription={subscription} />
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </QueryView>
      <AddSubscriber emitterId={emitterId} />
    </>
  );
}

function Listener({ subscription }: { readonly subscription: SubscriptionT }) {
  const id = subscription.listener_id;
  if (id === null) return <span className="mono">{subscription.listener_url}</span>;
  const to = id.startsWith('wf_') ? `/workflows/${encodeURIComponent(id)}` : `/sources/${encodeURIComponent(id)}`;
  return (
    <Link to={to} className="mono">
      {id}
    </Link>
  );
}

function SubscriberRow({ subscription }: { readonly subscription: SubscriptionT }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const toast = useToast();
  const [showing, setShowing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation({
    mutationFn: () => api.removeSubscription(subscription.id),
    onSuccess: async () => {
      setConfirming(false);
      toast({ message: `Removed the subscription ${subscription.id}` });
      await queryClient.invalidateQueries({ queryKey: ['subscriptions'] });
    },
  });
  const webhook = subscription.listener_url !== null;
  return (
    <>
      <tr data-testid="subscriber">
        <td data-label="Listener">
          <span className="muted small">
            {webhook ? 'Webhook' : subscription.listener_id?.startsWith('wf_') ? 'Workflow' : 'Source'}
          </span>{' '}
          <Listener subscription={subscription} />
        </td>
        <td data-label="Channel">{subscription.event_name === '' ? 'default' : subscription.event_name}</td>
        <td data-label="Since">
          <RelativeTime ms={subscription.created_at * 1000} />
        </td>
        <td data-label="Actions">
          {webhook ? (
            <button
              type="button"
              className="button button-small"
              onClick={() => setShowing(!showing)}
              aria-expanded={showing}
            >
              {showing ? 'Hide deliveries' : 'Deliveries'}
            </button>
          ) : null}{' '}
          <button
            type="button"
            className="button button-small button-danger"
            onClick={() => setConfirming(true)}
            aria-label={`Remove subscription ${subscription.id}`}
          >
            Remove
          </button>
          <ConfirmDialog
            open={confirming}
            title={`Remove subscription ${subscription.id}?`}
            confirmLabel="Remove subscription"
            busy={remove.isPending}
            onCancel={() => setConfirming(false)}
            onConfirm={() => remove.mutate()}
          >
            <p>
              Later events no longer go to {subscription.listener_url ?? subscription.listener_id}. A webhook subscribed
              again gets a new signing secret.
            </p>
            {remove.error ? <p className="field-error">{remove.error.message}</p> : null}
          </ConfirmDialog>
        </td>
      </tr>
      {showing ? (
        <tr>
          <td colSpan={4}>
            <DeliveryLog subscriptionId={subscription.id} />
          </td>
        </tr>
      ) : null}
    </>
  );
}

/** A webhook's last deliveries, newest first, refreshed while shown. */
function DeliveryLog({ subscriptionId }: { readonly subscriptionId: string }) {
  const api = useApi();
  const deliveries = useQuery({
    queryKey: ['subscription-deliveries', subscriptionId],
    queryFn: () => api.subscriptionDeliveries(subscriptionId),
    refetchInterval: 3000,
  });
  return (
    <QueryView query={deliveries} loadingLabel="Loading deliveries…">
      {(data) =>
        data.length === 0 ? (
          <p className="muted">No deliveries yet: the events emitted from now on are sent.</p>
        ) : (
          <table className="table stack-table" aria-label={`Deliveries of ${subscriptionId}`}>
            <thead>
              <tr>
                <th scope="col">Queued</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last error</th>
              </tr>
            </thead>
            <tbody>
              {data.map((delivery) => (
                <tr key={delivery.id} data-testid="subscription-delivery">
                  <td data-label="Queued">
                    <RelativeTime ms={delivery.created_at} />
                  </td>
                  <td data-label="Status">
                    <span className={`badge status-${delivery.status}`}>{delivery.status}</span>
                  </td>
                  <td data-label="Attempts">
                    {delivery.attempts} / {delivery.max_attempts}
                  </td>
                  <td data-label="Last error" className="muted small">
                    {delivery.last_error ?? ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      }
    </QueryView>
  );
}

function AddSubscriber({ emitterId }: { readonly emitterId: string }) {
  const id = useId();
  const api = useApi();
  const queryClient = useQueryClient();
  const toast = useToast();
  const [kind, setKind] = useState<ListenerKind>('webhook');
  const [url, setUrl] = useState('');
  const [listener, setListener] = useState('');
  const [channel, setChannel] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const workflows = useQuery({
    queryKey: ['workflows'],
    queryFn: () => api.listWorkflows(),
    enabled: kind === 'workflow',
  });
  const sources = useQuery({ queryKey: ['sources'], queryFn: () => api.listSources(), enabled: kind === 'source' });
  const choices =
    kind === 'workflow'
      ? (workflows.data?.data ?? []).map((workflow) => ({ id: workflow.id, name: workflow.name }))
      : (sources.data?.data ?? []).map((source) => ({ id: source.id, name: source.name }));
  const subscribe = useMutation({
    mutationFn: () => {
      const query: SubscribeQuery = {
        emitter_id: emitterId,
        ...(kind === 'webhook' ? { listener_url: url.trim() } : { listener_id: listener }),
        ...(channel.trim() ? { event_name: channel.trim() } : {}),
      };
      return api.subscribe(query);
    },
    onSuccess: async (created) => {
      setSecret(created.secret ?? null);
      toast({ message: `Subscribed ${created.listener_url ?? created.listener_id ?? ''}` });
      setUrl('');
      await queryClient.invalidateQueries({ queryKey: ['subscriptions'] });
    },
  });
  const ready = kind === 'webhook' ? url.trim() !== '' : listener !== '';
  return (
    <form
      className="add-subscriber"
      onSubmit={(event) => {
        event.preventDefault();
        subscribe.mutate();
      }}
    >
      <h3>Add a subscriber</h3>
      <div className="field">
        <label className="field-label" htmlFor={`${id}-kind`}>
          Send each event to
        </label>
        <select
          id={`${id}-kind`}
          value={kind}
          onChange={(event) => {
            setKind(event.target.value as ListenerKind);
            setListener('');
          }}
        >
          <option value="webhook">A webhook (POST, signed)</option>
          <option value="workflow">A workflow (starts a run)</option>
          <option value="source">A source (runs it)</option>
        </select>
      </div>
      {kind === 'webhook' ? (
        <div className="field">
          <label className="field-label" htmlFor={`${id}-url`}>
            Webhook URL
          </label>
          <input
            id={`${id}-url`}
            type="url"
            value={url}
            onChange={(event) => setUrl(event.target.value)}
            placeholder="https://hooks.example.com/orders"
          />
        </div>
      ) : (
        <div className="field">
          <label className="field-label" htmlFor={`${id}-listener`}>
            {kind === 'workflow' ? 'Workflow' : 'Source'}
          </label>
          <select id={`${id}-listener`} value={listener} onChange={(event) => setListener(event.target.value)}>
            <option value="">Choose…</option>
            {choices
              .filter((choice) => choice.id !== emitterId)
              .map((choice) => (
                <option key={choice.id} value={choice.id}>
                  {choice.name} ({choice.id})
                </option>
              ))}
          </select>
        </div>
      )}
      <div className="field">
        <label className="field-label" htmlFor={`${id}-channel`}>
          Channel (optional)
        </label>
        <input
          id={`${id}-channel`}
          value={channel}
          onChange={(event) => setChannel(event.target.value)}
          placeholder="the default channel"
        />
      </div>
      {subscribe.error ? <ErrorState error={subscribe.error} /> : null}
      <button type="submit" className="button button-primary" disabled={!ready || subscribe.isPending}>
        Subscribe
      </button>
      {secret ? (
        <div className="notice notice-info" role="status">
          <p>
            The webhook's signing secret: copy it now, it is not shown again. Check each delivery's{' '}
            <code>X-Tributary-Signature</code> with it (Docs: REST API, Verifying a delivery).
          </p>
          <p className="endpoint">
            <code className="mono" data-testid="webhook-secret">
              {secret}
            </code>{' '}
            <CopyButton value={secret} label="Copy secret" />
          </p>
        </div>
      ) : null}
      <p className="muted small">Only the events emitted after subscribing are sent.</p>
    </form>
  );
}
