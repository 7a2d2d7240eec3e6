/**
 * The signed-in browser session. Signing in trades the API key for an HttpOnly, SameSite=Strict
 * cookie (POST /v1/session), so the key is never kept in page storage and every tab of this
 * browser, and every reload, is signed in until the session expires or the user signs out.
 * Scripts cannot read the cookie, so whether we are signed in is asked of GET /v1/session.
 */
import { useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { createHttp } from '../api/client.js';
import { createApi, type Api } from '../api/endpoints.js';

/** `checking` until GET /v1/session answers on load. */
export type SessionState = 'checking' | 'signed-in' | 'signed-out';

interface Session {
  readonly state: SessionState;
  readonly signedIn: boolean;
  readonly api: Api;
  /** Trades an API key for the session cookie; rejects with the server's error for a bad key. */
  signIn(apiKey: string): Promise<void>;
  signOut(): Promise<void>;
}

const SessionContext = createContext<Session | null>(null);

export function SessionProvider({ children }: { readonly children: ReactNode }) {
  const queryClient = useQueryClient();
  const [state, setState] = useState<SessionState>('checking');
  // Any 401 means the session ended elsewhere (signed out in another tab, expired, key revoked).
  const ended = useCallback(() => {
    setState('signed-out');
    queryClient.clear();
  }, [queryClient]);
  const api = useMemo(() => createApi(createHttp({ baseUrl: '', onUnauthorized: ended })), [ended]);
  useEffect(() => {
    let live = true;
    api.session().then(
      () => live && setState('signed-in'),
      () => live && setState('signed-out'),
    );
    return () => {
      live = false;
    };
  }, [api]);
  const signIn = useCallback(
    async (apiKey: string) => {
      await api.signIn(apiKey);
      setState('signed-in');
    },
    [api],
  );
  const signOut = useCallback(async () => {
    try {
      await api.signOut();
    } finally {
      ended();
    }
  }, [api, ended]);
  const value = useMemo(
    () => ({ state, signedIn: state === 'signed-in', api, signIn, signOut }),
    [state, api, signIn, signOut],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}

/** The API client for screens that need a signed-in user. */
export function useApi(): Api {
  return useSession().api;
}
