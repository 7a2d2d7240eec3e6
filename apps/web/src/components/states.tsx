/** Loading, empty and error states, so every screen says what is going on in the same words. */
import type { ReactNode } from 'react';
import { ApiError } from '../api/client.js';

export function Loading({ label = 'Loading…' }: { readonly label?: string }) {
  return (
    <p className="state state-loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> {label}
    </p>
  );
}

export function ErrorState({ error, retry }: { readonly error: unknown; readonly retry?: () => void }) {
  const message = error instanceof Error ? error.message : String(error);
  const code = error instanceof ApiError ? error.code : null;
  return (
    <div className="state state-error" role="alert">
      <p>
        {code ? <code className="error-code">{code}</code> : null} {message}
      </p>
      {retry ? (
        <button type="button" className="button" onClick={retry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

export function Empty({ title, children }: { readonly title: string; readonly children?: ReactNode }) {
  return (
    <div className="state state-empty">
      <h2>{title}</h2>
      {children}
    </div>
  );
}

/** A query's three states around its content. */
export function QueryView<T>({
  query,
  children,
  loadingLabel,
}: {
  readonly query: {
    readonly isPending: boolean;
    readonly error: unknown;
    readonly data: T | undefined;
    readonly refetch: () => unknown;
  };
  readonly children: (data: T) => ReactNode;
  readonly loadingLabel?: string;
}) {
  if (query.isPending) return <Loading {...(loadingLabel ? { label: loadingLabel } : {})} />;
  if (query.error || query.data === undefined)
    return <ErrorState error={query.error ?? 'No data'} retry={() => void query.refetch()} />;
  return <>{children(query.data)}</>;
}
