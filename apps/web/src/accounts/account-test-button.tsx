/** "Test" of an account row on an app's page: POST /v1/accounts/{id}/test, and what it found. */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { AccountT, AccountTestResultT } from '../api/endpoints.js';
import { useApi } from '../auth/session.js';

function describe(result: AccountTestResultT): string {
  switch (result.status) {
    case 'ok':
      return worked(result);
    case 'needs_reconnect':
    case 'error':
      return `${result.error?.code ?? 'INTERNAL'}: ${result.error?.message ?? ''}`;
  }
}

function worked(result: AccountTestResultT): string {
  switch (result.checked) {
    case 'test_request':
      return `Works (HTTP ${result.http_status ?? ''})`;
    case 'refresh':
      return 'Works (token refreshed)';
    case 'none':
      return 'Stored; this app has no test request';
  }
}

export function AccountTestButton({ account }: { readonly account: AccountT }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const test = useMutation({
    mutationFn: () => api.testAccount(account.id),
    // A refused refresh changed the account's status: the list (and any banner) shows it.
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['accounts', account.app] });
      await queryClient.invalidateQueries({ queryKey: ['accounts-used'] });
    },
  });
  const result = test.data;
  return (
    <span className="account-test">
      <button
        type="button"
        className="button button-small"
        aria-label={`Test ${account.name}`}
        disabled={test.isPending}
        onClick={() => test.mutate()}
      >
        {test.isPending ? 'Testing…' : 'Test'}
      </button>{' '}
      {result ? (
        <span
          role="status"
          data-testid={`account-test-${account.id}`}
          className={result.status === 'ok' ? 'small' : 'small field-error'}
        >
          {describe(result)}
        </span>
      ) : null}
      {test.error ? (
        <span role="alert" className="small field-error">
          {test.error.message}
        </span>
      ) : null}
    </span>
  );
}
