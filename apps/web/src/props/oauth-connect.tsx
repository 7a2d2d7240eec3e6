/**
 * "Connect account" for an OAuth app: starts an attempt, opens its start URL in a new window (the
 * server binds the sign-in to this browser there), and polls the attempt until the provider sent
 * the user back. With `account`, the sign-in reconnects that account.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { AppT } from '../api/endpoints.js';
import { useApi } from '../auth/session.js';

const POLL_MS = 1000;

export function OAuthConnectButton({
  app,
  account,
  label,
  onConnected,
}: {
  readonly app: AppT;
  readonly account?: string;
  readonly label?: string;
  readonly onConnected?: (id: string) => void;
}) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [state, setState] = useState<'idle' | 'waiting' | 'error'>('idle');
  const [message, setMessage] = useState('');
  const [startUrl, setStartUrl] = useState<string | null>(null);
  const cancelled = useRef(false);
  useEffect(
    () => () => {
      cancelled.current = true;
    },
    [],
  );

  const connect = async (): Promise<void> => {
    // Opened before the request, while the click still counts as a user gesture for popup blockers.
    const popup = window.open('about:blank', '_blank');
    setState('waiting');
    setMessage('');
    try {
      const attempt = await api.startConnect({ app: app.slug, ...(account ? { account } : {}) });
      if (attempt.status === 'pending' && attempt.start_url) {
        setStartUrl(attempt.start_url);
        if (popup) popup.location.href = attempt.start_url;
      } else popup?.close();
      let current = attempt;
      while (current.status === 'pending' && !cancelled.current) {
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        current = await api.getConnect(attempt.state);
      }
      if (current.status === 'failed') {
        setState('error');
        setMessage(`${current.error?.code ?? 'FAILED'}: ${current.error?.message ?? 'connecting failed'}`);
        return;
      }
      setState('idle');
      setStartUrl(null);
      await queryClient.invalidateQueries({ queryKey: ['accounts'] });
      if (current.account) onConnected?.(current.account);
    } catch (error) {
      popup?.close();
      setState('error');
      setMessage((error as Error).message);
    }
  };

  return (
    <div className="oauth-connect">
      <button
        type="button"
        className="button button-primary"
        disabled={state === 'waiting'}
        onClick={() => void connect()}
      >
        {state === 'waiting' ? `Waiting for ${app.name}…` : (label ?? `Connect ${app.name} account`)}
      </button>
      {state === 'waiting' && startUrl ? (
        <p className="small muted">
          Sign in at {app.name} in the window that opened, or{' '}
          <a href={startUrl} target="_blank" rel="noreferrer">
            open the sign-in page
          </a>
          .
        </p>
      ) : null}
      {state === 'error' ? (
        <p className="field-error" role="alert">
          {message}
        </p>
      ) : null}
    </div>
  );
}
