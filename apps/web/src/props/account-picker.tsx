/**
 * An app prop: pick one of the app's connected accounts, or connect a new one with the fields
 * the app catalog asks for. The configured value is `{ authProvisionId: "apn_…" }`.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type KeyboardEvent } from 'react';
import { useApi } from '../auth/session.js';
import type { AppT } from '../api/endpoints.js';
import { OAuthConnectButton } from './oauth-connect.js';

interface Common {
  readonly id: string;
  readonly 'aria-describedby': string;
  readonly 'aria-invalid': true | undefined;
  readonly disabled: boolean | undefined;
}

export function AccountPicker(props: Common & { app: string; value: unknown; onChange: (value: unknown) => void }) {
  const { app, value, onChange, ...common } = props;
  const api = useApi();
  const accounts = useQuery({ queryKey: ['accounts', app], queryFn: () => api.listAccounts(app) });
  const [connecting, setConnecting] = useState(false);
  const current =
    value && typeof value === 'object' && 'authProvisionId' in value
      ? String((value as { authProvisionId: unknown }).authProvisionId)
      : '';
  return (
    <div className="account-picker">
      <div className="inline-form">
        <select
          {...common}
          value={current}
          onChange={(event) => onChange(event.target.value ? { authProvisionId: event.target.value } : undefined)}
        >
          <option value="">
            {accounts.isPending
              ? 'Loading accounts…'
              : accounts.data?.data.length
                ? 'Choose an account…'
                : `No ${app} accounts yet`}
          </option>
          {accounts.data?.data.map((account) => (
            <option key={account.id} value={account.id}>
              {account.name} ({account.id}){account.status === 'needs_reconnect' ? ' · needs reconnect' : ''}
            </option>
          ))}
        </select>
        <button
          type="button"
          className="button button-small"
          aria-expanded={connecting}
          onClick={() => setConnecting(!connecting)}
        >
          {connecting ? 'Cancel' : 'Connect account'}
        </button>
      </div>
      {accounts.error ? <p className="field-error">{accounts.error.message}</p> : null}
      {connecting ? (
        <ConnectAccount
          app={app}
          onConnected={(id) => {
            setConnecting(false);
            onChange({ authProvisionId: id });
          }}
        />
      ) : null}
    </div>
  );
}

/** The form for a new connected account of one app, from its catalog entry. */
export function ConnectAccount({
  app,
  onConnected,
}: {
  readonly app: string;
  readonly onConnected: (id: string) => void;
}) {
  const api = useApi();
  const entry = useQuery({ queryKey: ['app', app], queryFn: () => api.getApp(app) });
  if (entry.isPending) return <p className="muted">Loading {app}…</p>;
  if (entry.error) return <p className="field-error">{entry.error.message}</p>;
  // An OAuth app with a client signs in at the provider; without one, a pasted token still works.
  if (entry.data.oauth && entry.data.oauth_client)
    return (
      <div className="subform" role="group" aria-label={`Connect a ${entry.data.name} account`}>
        <OAuthConnectButton app={entry.data} onConnected={onConnected} />
      </div>
    );
  return <AccountForm app={entry.data} onConnected={onConnected} />;
}

export function AccountForm({ app, onConnected }: { readonly app: AppT; readonly onConnected: (id: string) => void }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const id = useId();
  const [name, setName] = useState('');
  const [fields, setFields] = useState<Record<string, string>>({});
  const create = useMutation({
    mutationFn: () =>
      api.createAccount({
        app: app.slug,
        ...(name ? { name } : {}),
        fields: Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== '')),
      }),
    onSuccess: async (account) => {
      await queryClient.invalidateQueries({ queryKey: ['accounts'] });
      onConnected(account.id);
    },
  });
  // This sits inside the props form: Enter here connects the account instead of submitting that form.
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    if (!create.isPending) create.mutate();
  };
  return (
    <div className="subform" role="group" aria-label={`Connect a ${app.name} account`}>
      <p className="small muted">
        {app.name} · auth: {app.auth_type}
      </p>
      <div className="field">
        <label className="field-label" htmlFor={`${id}-name`}>
          Account name <span className="muted">(optional)</span>
        </label>
        <input id={`${id}-name`} value={name} onChange={(event) => setName(event.target.value)} onKeyDown={onKeyDown} />
      </div>
      {app.fields.map((field) => (
        <div className="field" key={field.name}>
          <label className="field-label" htmlFor={`${id}-${field.name}`}>
            {field.label}
            {field.optional ? <span className="muted"> (optional)</span> : null}
          </label>
          <input
            id={`${id}-${field.name}`}
            type={field.secret ? 'password' : 'text'}
            autoComplete="off"
            value={fields[field.name] ?? ''}
            onChange={(event) => setFields({ ...fields, [field.name]: event.target.value })}
            onKeyDown={onKeyDown}
          />
          {field.description ? <p className="field-help">{field.description}</p> : null}
        </div>
      ))}
      {create.error ? (
        <p className="field-error" role="alert">
          {create.error.message}
        </p>
      ) : null}
      <button
        type="button"
        className="button button-primary"
        disabled={create.isPending}
        onClick={() => create.mutate()}
      >
        {create.isPending ? 'Connecting…' : `Connect ${app.name}`}
      </button>
    </div>
  );
}
