/** Sign in with an API key: the server checks it and answers with the session cookie (POST /v1/session). */
import { useState, type FormEvent } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { useSession } from '../auth/session.js';
import { useTitle } from '../components/use-title.js';

export function SignInScreen() {
  useTitle('Sign in');
  const { signedIn, signIn } = useSession();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const next = safeNext(params.get('next'));
  if (signedIn && !busy) return <Navigate to={next} replace />;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const candidate = key.trim();
    try {
      await signIn(candidate);
      navigate(next, { replace: true });
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
      setBusy(false);
    }
  };

  return (
    <section className="page page-narrow">
      <h1>Sign in</h1>
      <p className="muted">
        Use an API key of this server: the admin key <code>tributary start</code> printed on first start (or{' '}
        <code>TRIBUTARY_ADMIN_KEY</code>), or one made under Settings. This browser then stays signed in, in every tab,
        for 7 days or until you sign out; the key itself is not stored in it.
      </p>
      <form onSubmit={(event) => void submit(event)} className="card form">
        <div className="field">
          <label className="field-label" htmlFor="api-key">
            API key
          </label>
          <input
            id="api-key"
            name="api-key"
            type="password"
            autoComplete="current-password"
            required
            value={key}
            onChange={(event) => setKey(event.target.value)}
            aria-describedby="sign-in-error"
          />
          <p id="sign-in-error" className="field-error" role={error ? 'alert' : undefined}>
            {error ?? ''}
          </p>
        </div>
        <button type="submit" className="button button-primary" disabled={busy || key.trim() === ''}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </section>
  );
}

/** Only paths inside the app, so a crafted link cannot send the user elsewhere after sign-in. */
function safeNext(value: string | null): string {
  return value && value.startsWith('/') && !value.startsWith('//') ? value : '/sources';
}
