/**
 * The banner of a source or workflow whose connected account needs reconnecting (docs/accounts.md):
 * its runs fail with ACCOUNT_NEEDS_RECONNECT until the account is connected again, so the screen
 * says which account, why, and links to the app's page where "Reconnect" is.
 */
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { ApiError } from '../api/client.js';
import type { AccountT } from '../api/endpoints.js';
import { useApi } from '../auth/session.js';

/** The `apn_` ids that configured props (of a source, or of a workflow's steps) point at. */
export function accountIdsOf(propSets: readonly (Readonly<Record<string, unknown>> | undefined)[]): string[] {
  const ids = new Set<string>();
  for (const props of propSets)
    for (const value of Object.values(props ?? {}))
      if (
        value &&
        typeof value === 'object' &&
        typeof (value as { authProvisionId?: unknown }).authProvisionId === 'string'
      )
        ids.add((value as { authProvisionId: string }).authProvisionId);
  return [...ids].sort();
}

export function ReconnectBanner({ accountIds }: { readonly accountIds: readonly string[] }) {
  const api = useApi();
  const accounts = useQuery({
    queryKey: ['accounts-used', ...accountIds],
    enabled: accountIds.length > 0,
    queryFn: async (): Promise<AccountT[]> => {
      const found: (AccountT | null)[] = await Promise.all(
        // An account deleted since is not this banner's business (the run reports the prop unset).
        accountIds.map((id) =>
          api.getAccount(id).catch((error: unknown): null => {
            if (error instanceof ApiError && error.status === 404) return null;
            throw error;
          }),
        ),
      );
      return found.filter((account): account is AccountT => account !== null);
    },
  });
  const broken = (accounts.data ?? []).filter((account) => account.status === 'needs_reconnect');
  if (broken.length === 0) return null;
  return (
    <>
      {broken.map((account) => (
        <div key={account.id} className="notice notice-warning" role="alert" data-testid="reconnect-banner">
          <p>
            Account <strong>{account.name}</strong> ({account.app}) needs reconnecting
            {account.status_message ? `: ${account.status_message}` : ''}. Runs that use it fail until it is connected
            again.
          </p>
          <p>
            <Link to={`/apps/${encodeURIComponent(account.app)}`}>Reconnect {account.name}</Link>
          </p>
        </div>
      ))}
    </>
  );
}
