/**
 * The signed-in API key. It lives in sessionStorage only (gone when the tab closes) and is sent
 * as a Bearer header, or as `?token=` on the EventSource URL, never put in the page's own URL.
 */
import { useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import { createHttp } from '../api/client.js';
import { createApi, type Api } from '../api/endpoints.js';

const STORAGE_KEY = 'tributary.api_key';

export function readStoredKey(): string | null {
  try {
    return window.sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

interface Session {
  readonly token: string | null;
  readonly api: Api;
  signIn(token: string): void;
  signOut(): void;
}

const SessionContext = createContext<Session | null>(null);

export function SessionProvider({ children }: { readonly children: ReactNode }) {
  const queryClient = useQueryClient();
  const [token, setToken] = useState<string | null>(() => readStoredKey());
  const signOut = useCallback(() => {
    window.sessionStorage.removeItem(STORAGE_KEY);
    setToken(null);
    queryClient.clear();
  }, [queryClient]);
  const signIn = useCallback((value: string) => {
    window.sessionStorage.setItem(STORAGE_KEY, value);
    setToken(value);
  }, []);
  const api = useMemo(
    () => createApi(createHttp({ baseUrl: '', getToken: readStoredKey, onUnauthorized: signOut })),
    [signOut],
  );
  const value = useMemo(() => ({ token, api, signIn, signOut }), [token, api, signIn, signOut]);
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
