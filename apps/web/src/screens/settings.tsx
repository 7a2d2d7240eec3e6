/** Settings: server status, API keys (create, list, revoke), connected accounts (connect, list, remove) and dead letters. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import type { AccountT, ApiKeyT, CreatedApiKeyT, DeletedAccountT } from '../api/endpoints.js';
import { useApi } from '../auth/session.js';
import { AccountForm } from '../props/account-picker.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { CopyButton } from '../components/copy-button.js';
import { Empty, ErrorState, QueryView } from '../components/states.js';
import { RelativeTime } from '../components/time.js';
import { useTitle } from '../components/use-title.js';
import { useToast } from '../components/toasts.js';
import { DeadLetters } from './dead-letters.js';
import { ServerStatus } from './server-status.js';

export function SettingsScreen() {
  useTitle('Settings');
  return (
    <section className="page">
      <h1>Settings</h1>
      <ServerStatus />
      <ApiKeys />
      <Accounts />
      <DeadLetters />
    </section>
  );
}

function ApiKeys() {
  const api = useApi();
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: ['api-keys'], queryFn: () => api.listApiKeys() });
  const [name, setName] = useState('');
  const [created, setCreated] = useState<CreatedApiKeyT | null>(null);
  const [revoking, setRevoking] = useState<ApiKeyT | null>(null);
  const toast = useToast();
  const create = useMutation({
    mutationFn: () => api.createApiKey(name.trim()),
    onSuccess: async (key) => {
      setCreated(key);
      toast({ message: `Created the key ${key.name}: copy it now, it is shown once` });
      setName('');
      await queryClient.invalidateQueries({ queryKey: ['api-keys'] });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => api.revokeApiKey(id),
    onSuccess: async () => {
      if (revoking) toast({ message: `Revoked the key ${revoking.name}` });
      setRevoking(null);
      await queryClient.invalidateQueries({ queryKey: ['api-keys'] });
    },
  });
  return (
    <section className="card settings-section" aria-labelledby="api-keys-title">
      <h2 id="api-keys-title">API keys</h2>
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <label className="field-label" htmlFor="new-key-name">
          New key name
        </label>
        <input
          id="new-key-name"
          value={name}
          onChange={(event) => setName(event.target.value)}
          placeholder="ci, laptop…"
        />
        <button type="submit" className="button button-primary" disabled={!name.trim() || create.isPending}>
          Create key
        </button>
      </form>
      {create.error ? <ErrorState error={create.error} /> : null}
      {created ? (
        <div className="notice notice-info">
          <p>
            Key <strong>{created.name}</strong> created. Copy it now: it is not shown again.
          </p>
          <p className="endpoint">
            <code className="mono" data-testid="new-api-key">
              {created.key}
            </code>{' '}
            <CopyButton value={created.key} label="Copy key" />
          </p>
        </div>
      ) : null}
      <QueryView query={keys} loadingLabel="Loading API keys…">
        {(page) =>
          page.data.length === 0 ? (
            <Empty title="No API keys" />
          ) : (
            <div className="table-wrap">
              <table className="table stack-table">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Prefix</th>
                    <th scope="col">Created</th>
                    <th scope="col">Last used</th>
                    <th scope="col">Status</th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.map((key) => (
                    <tr key={key.id}>
                      <td data-label="Name">{key.name}</td>
                      <td data-label="Prefix" className="mono">
                        {key.prefix}…
                      </td>
                      <td data-label="Created">
                        <RelativeTime ms={key.created_at * 1000} />
                      </td>
                      <td data-label="Last used">
                        {key.last_used_at ? (
                          <RelativeTime ms={key.last_used_at * 1000} />
                        ) : (
                          <span className="muted">never</span>
                        )}
                      </td>
                      <td data-label="Status">
                        {key.revoked_at ? (
                          <span className="muted">revoked</span>
                        ) : (
                          <button
                            type="button"
                            className="button button-small button-danger"
                            onClick={() => setRevoking(key)}
                          >
                            Revoke<span className="visually-hidden"> {key.name}</span>
                          </button>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </QueryView>
      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke ${revoking?.name ?? ''}?`}
        confirmLabel="Revoke key"
        busy={revoke.isPending}
        onCancel={() => setRevoking(null)}
        onConfirm={() => revoking && revoke.mutate(revoking.id)}
      >
        <p>Requests with this key are refused from now on. Revoking the key you signed in with signs you out.</p>
        {revoke.error ? <p className="field-error">{revoke.error.message}</p> : null}
      </ConfirmDialog>
    </section>
  );
}

function Accounts() {
  const api = useApi();
  const queryClient = useQueryClient();
  const accounts = useQuery({ queryKey: ['accounts', 'all'], queryFn: () => api.listAccounts() });
  const apps = useQuery({ queryKey: ['apps'], queryFn: () => api.listApps() });
  const [appSlug, setAppSlug] = useState('');
  const [removing, setRemoving] = useState<AccountT | null>(null);
  const [removed, setRemoved] = useState<DeletedAccountT | null>(null);
  const remove = useMutation({
    mutationFn: (id: string) => api.deleteAccount(id),
    onSuccess: async (result) => {
      setRemoving(null);
      setRemoved(result);
      await queryClient.invalidateQueries({ queryKey: ['accounts'] });
    },
  });
  const app = apps.data?.data.find((candidate) => candidate.slug === appSlug) ?? null;
  return (
    <section className="card settings-section" aria-labelledby="accounts-title">
      <h2 id="accounts-title">Connected accounts</h2>
      <p className="muted small">
        An app prop is configured with one of these accounts; the component reads its credentials as{' '}
        <code>this.&lt;prop&gt;.$auth</code>.
      </p>
      <div className="field">
        <label className="field-label" htmlFor="connect-app">
          Connect an account of
        </label>
        <select id="connect-app" value={appSlug} onChange={(event) => setAppSlug(event.target.value)}>
          <option value="">{apps.isPending ? 'Loading apps…' : 'Choose an app…'}</option>
          {apps.data?.data.map((candidate) => (
            <option key={candidate.slug} value={candidate.slug}>
              {candidate.name} ({candidate.slug})
            </option>
          ))}
        </select>
        {apps.error ? <p className="field-error">{apps.error.message}</p> : null}
      </div>
      {app ? <AccountForm key={app.slug} app={app} onConnected={() => setAppSlug('')} /> : null}
      {removed ? (
        <p className="muted small" role="status">
          Removed {removed.id}.{' '}
          {removed.used_by.length > 0
            ? `Sources and workflows that used it: ${removed.used_by.map((source) => source.name).join(', ')}.`
            : 'No source used it.'}
        </p>
      ) : null}
      <QueryView query={accounts} loadingLabel="Loading accounts…">
        {(page) =>
          page.data.length === 0 ? (
            <Empty title="No connected accounts">
              <p className="muted">
                Connect one above, or with <code>tributary accounts create APP --field NAME=VALUE</code>.
              </p>
            </Empty>
          ) : (
            <div className="table-wrap">
              <table className="table stack-table">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">App</th>
                    <th scope="col">Fields</th>
                    <th scope="col">Created</th>
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.map((account) => (
                    <tr key={account.id}>
                      <td data-label="Name">
                        {account.name}
                        <div className="muted small mono">{account.id}</div>
                      </td>
                      <td data-label="App">
                        <Link to={`/apps/${encodeURIComponent(account.app)}`}>{account.app}</Link>
                        {account.status === 'needs_reconnect' ? (
                          <div className="field-error small">Needs reconnect</div>
                        ) : null}
                      </td>
                      <td data-label="Fields" className="small mono">
                        {Object.entries(account.fields)
                          .map(([field, value]) => `${field}: ${value}`)
                          .join(', ')}
                      </td>
                      <td data-label="Created">
                        <RelativeTime ms={account.created_at * 1000} />
                      </td>
                      <td className="stack-actions">
                        <button
                          type="button"
                          className="button button-small button-danger"
                          onClick={() => setRemoving(account)}
                        >
                          Remove<span className="visually-hidden"> {account.name}</span>
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </QueryView>
      <ConfirmDialog
        open={removing !== null}
        title={`Remove ${removing?.name ?? ''}?`}
        confirmLabel="Remove account"
        busy={remove.isPending}
        onCancel={() => setRemoving(null)}
        onConfirm={() => removing && remove.mutate(removing.id)}
      >
        <p>
          Its credentials are deleted. Sources whose app prop uses it will fail until they are given another account.
        </p>
        {remove.error ? <p className="field-error">{remove.error.message}</p> : null}
      </ConfirmDialog>
    </section>
  );
}
