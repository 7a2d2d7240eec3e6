/** The app catalog: search, each app's auth mode, its OAuth client and redirect URI, and its accounts. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useMemo, useState } from 'react';
import { Link, useParams } from 'react-router';
import { AccountTestButton } from '../accounts/account-test-button.js';
import type { AppT } from '../api/endpoints.js';
import { useApi } from '../auth/session.js';
import { CopyButton } from '../components/copy-button.js';
import { Empty, ErrorState, Loading } from '../components/states.js';
import { RelativeTime } from '../components/time.js';
import { useTitle } from '../components/use-title.js';
import { AccountForm } from '../props/account-picker.js';
import { OAuthConnectButton } from '../props/oauth-connect.js';

const MODE_LABELS: Record<AppT['auth_mode'], string> = {
  oauth2_authorization_code: 'OAuth 2',
  oauth2_client_credentials: 'OAuth 2 (client credentials)',
  api_key: 'API key',
  basic: 'User name and password',
  none: 'No credentials',
};
const SHOWN = 100;

export function AppsScreen() {
  useTitle('Apps');
  const api = useApi();
  const apps = useQuery({ queryKey: ['apps'], queryFn: () => api.listApps() });
  const [query, setQuery] = useState('');
  const searchId = useId();
  const found = useMemo(() => {
    const needle = query.trim().toLowerCase();
    return (apps.data?.data ?? []).filter(
      (app) => needle === '' || app.slug.includes(needle) || app.name.toLowerCase().includes(needle),
    );
  }, [apps.data, query]);
  return (
    <section className="page">
      <h1>Apps</h1>
      <div className="field">
        <label className="field-label" htmlFor={searchId}>
          Search {apps.data ? `${apps.data.data.length} apps` : 'apps'}
        </label>
        <input id={searchId} type="search" value={query} onChange={(event) => setQuery(event.target.value)} />
      </div>
      {apps.isPending ? <Loading label="Loading apps…" /> : null}
      {apps.error ? <ErrorState error={apps.error} retry={() => void apps.refetch()} /> : null}
      {apps.data && found.length === 0 ? <Empty title={`No app matches "${query}"`} /> : null}
      {found.length > 0 ? (
        <div className="table-wrap">
          <table className="table stack-table">
            <thead>
              <tr>
                <th scope="col">App</th>
                <th scope="col">Slug</th>
                <th scope="col">Auth</th>
                <th scope="col">OAuth client</th>
              </tr>
            </thead>
            <tbody>
              {found.slice(0, SHOWN).map((app) => (
                <tr key={app.slug}>
                  <td data-label="App">
                    <Link to={`/apps/${encodeURIComponent(app.slug)}`}>{app.name}</Link>
                  </td>
                  <td data-label="Slug">
                    <code>{app.slug}</code>
                  </td>
                  <td data-label="Auth">{MODE_LABELS[app.auth_mode]}</td>
                  <td data-label="OAuth client">{app.oauth ? (app.oauth_client ?? 'not set') : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {found.length > SHOWN ? (
        <p className="small muted">
          Showing {SHOWN} of {found.length}; search to narrow the list.
        </p>
      ) : null}
    </section>
  );
}

export function AppScreen() {
  const { slug = '' } = useParams();
  const api = useApi();
  const app = useQuery({ queryKey: ['app', slug], queryFn: () => api.getApp(slug) });
  useTitle(app.data ? app.data.name : 'App');
  if (app.isPending) return <Loading label={`Loading ${slug}…`} />;
  if (app.error) return <ErrorState error={app.error} />;
  const entry = app.data;
  return (
    <section className="page">
      <p className="small">
        <Link to="/apps">Apps</Link>
      </p>
      <h1>{entry.name}</h1>
      <dl className="details">
        <dt>Slug</dt>
        <dd>
          <code>{entry.slug}</code>
        </dd>
        <dt>Auth</dt>
        <dd>{MODE_LABELS[entry.auth_mode]}</dd>
        {entry.base_url ? (
          <>
            <dt>API</dt>
            <dd>
              <code>{entry.base_url}</code>
            </dd>
          </>
        ) : null}
      </dl>
      {entry.oauth ? <OAuthClientSection app={entry} /> : null}
      <AppAccounts app={entry} />
    </section>
  );
}

function OAuthClientSection({ app }: { readonly app: AppT }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const id = useId();
  const client = useQuery({
    queryKey: ['oauth-client', app.slug],
    queryFn: () => api.getOAuthClient(app.slug),
    enabled: app.oauth_client !== null,
  });
  const [clientId, setClientId] = useState('');
  const [secret, setSecret] = useState('');
  const save = useMutation({
    mutationFn: () => api.putOAuthClient(app.slug, { client_id: clientId.trim(), client_secret: secret }),
    onSuccess: async () => {
      setSecret('');
      await queryClient.invalidateQueries({ queryKey: ['app', app.slug] });
      await queryClient.invalidateQueries({ queryKey: ['oauth-client', app.slug] });
      await queryClient.invalidateQueries({ queryKey: ['apps'] });
    },
  });
  const redirectUri = client.data?.redirect_uri ?? `${window.location.origin}/v1/oauth/callback`;
  return (
    <section aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>OAuth client</h2>
      <p>
        Register this redirect URI at {app.name}: <code data-testid="redirect-uri">{redirectUri}</code>{' '}
        <CopyButton value={redirectUri} label="Copy" ariaLabel="Copy the redirect URI" />
      </p>
      {client.data ? (
        <p className="small muted">
          Client {client.data.client_id}, set in {client.data.source}.
        </p>
      ) : (
        <p className="small muted">No OAuth client yet: accounts can only be connected with a pasted token.</p>
      )}
      <div className="inline-form">
        <div className="field">
          <label className="field-label" htmlFor={`${id}-client-id`}>
            Client id
          </label>
          <input id={`${id}-client-id`} value={clientId} onChange={(event) => setClientId(event.target.value)} />
        </div>
        <div className="field">
          <label className="field-label" htmlFor={`${id}-secret`}>
            Client secret
          </label>
          <input
            id={`${id}-secret`}
            type="password"
            autoComplete="off"
            value={secret}
            onChange={(event) => setSecret(event.target.value)}
          />
        </div>
        <button
          type="button"
          className="button"
          disabled={save.isPending || clientId.trim() === '' || secret === ''}
          onClick={() => save.mutate()}
        >
          Save client
        </button>
      </div>
      {save.error ? (
        <p className="field-error" role="alert">
          {save.error.message}
        </p>
      ) : null}
    </section>
  );
}

function AppAccounts({ app }: { readonly app: AppT }) {
  const api = useApi();
  const id = useId();
  const accounts = useQuery({ queryKey: ['accounts', app.slug], queryFn: () => api.listAccounts(app.slug) });
  const [adding, setAdding] = useState(false);
  const viaOAuth = app.oauth !== null && app.oauth_client !== null;
  return (
    <section aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>Accounts</h2>
      {viaOAuth ? (
        <OAuthConnectButton app={app} />
      ) : (
        <button type="button" className="button" aria-expanded={adding} onClick={() => setAdding(!adding)}>
          {adding ? 'Cancel' : 'Connect account'}
        </button>
      )}
      {adding && !viaOAuth ? <AccountForm app={app} onConnected={() => setAdding(false)} /> : null}
      {accounts.error ? <ErrorState error={accounts.error} /> : null}
      {accounts.data && accounts.data.data.length === 0 ? (
        <p className="muted">No accounts of {app.name} yet.</p>
      ) : null}
      {accounts.data && accounts.data.data.length > 0 ? (
        <div className="table-wrap">
          <table className="table stack-table">
            <thead>
              <tr>
                <th scope="col">Account</th>
                <th scope="col">Signed in as</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
                <th scope="col">Test</th>
              </tr>
            </thead>
            <tbody>
              {accounts.data.data.map((account) => (
                <tr key={account.id} data-testid={`account-${account.id}`}>
                  <td data-label="Account">
                    {account.name} <code className="small">{account.id}</code>
                  </td>
                  <td data-label="Signed in as">{account.oauth?.uid ?? '—'}</td>
                  <td data-label="Status">
                    {account.status === 'needs_reconnect' ? (
                      <>
                        <strong className="field-error">Needs reconnect</strong>
                        {account.status_message ? <span className="small muted"> {account.status_message}</span> : null}
                        {viaOAuth ? <OAuthConnectButton app={app} account={account.id} label="Reconnect" /> : null}
                      </>
                    ) : (
                      'OK'
                    )}
                  </td>
                  <td data-label="Created">
                    <RelativeTime ms={account.created_at * 1000} />
                  </td>
                  <td data-label="Test">
                    <AccountTestButton account={account} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
