import { useEffect, useId, useState, type FormEvent } from 'react';
import { asFailure } from '../api-failure';
import { ErrorMessage, TextField } from '../components/ui';
import { signIn } from '../session';

const LOCAL = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

/** Sign-in: the tenant (its domain, or its app id when a number is typed) and the staff account. */
export function SignIn({ notice }: { notice?: string }) {
  const host = window.location.hostname;
  const [tenant, setTenant] = useState(LOCAL.has(host) ? '' : host);
  const byAppID = /^\d+$/.test(tenant.trim());
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const titleId = useId();

  useEffect(() => {
    document.title = 'Sign in · Staff console';
  }, []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    setBusy(true);
    try {
      const shop = byAppID ? { appID: Number(tenant.trim()) } : { domain: tenant.trim() };
      await signIn({ ...shop, email: email.trim(), password });
    } catch (failure) {
      setError(asFailure(failure));
      setBusy(false);
    }
  };

  return (
    <main id="main" className="signin">
      <form className="panel signin-panel" onSubmit={submit} aria-labelledby={titleId} noValidate={false}>
        <h1 id={titleId}>Sign in to the staff console</h1>
        {notice && (
          <p className="notice" role="status">
            {notice}
          </p>
        )}
        <TextField
          label="Shop domain or app ID"
          field={byAppID ? 'appID' : 'domain'}
          error={error}
          value={tenant}
          onChange={(e) => setTenant(e.target.value)}
          required
          autoComplete="off"
          spellCheck={false}
          hint="The shop's domain (shop.example.com), or its app ID (a number)"
        />
        <TextField
          label="Email"
          field="email"
          error={error}
          type="email"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          required
          autoComplete="username"
        />
        <TextField
          label="Password"
          field="password"
          error={error}
          type="password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          required
          autoComplete="current-password"
        />
        <ErrorMessage error={error} shownFields={['domain', 'appID', 'email', 'password']} />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
