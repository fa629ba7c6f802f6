import { useEffect, useId, useState, type FormEvent } from 'react';
import { asFailure } from '../api-failure';
import { ErrorMessage, TextField } from '../components/ui';
import { signIn } from '../session';

const LOCAL = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

/** Sign-in: the tenant (by its domain or app id) and the staff account. */
export function SignIn({ notice }: { notice?: string }) {
  const host = window.location.hostname;
  const [by, setBy] = useState<'domain' | 'appID'>(LOCAL.has(host) ? 'appID' : 'domain');
  const [domain, setDomain] = useState(LOCAL.has(host) ? '' : host);
  const [appID, setAppID] = useState('');
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
      const tenant = by === 'domain' ? { domain: domain.trim() } : { appID: Number(appID) };
      await signIn({ ...tenant, email: email.trim(), password });
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
        <fieldset className="choice">
          <legend>Find the shop by</legend>
          <label>
            <input type="radio" name="by" value="domain" checked={by === 'domain'} onChange={() => setBy('domain')} /> Domain
          </label>
          <label>
            <input type="radio" name="by" value="appID" checked={by === 'appID'} onChange={() => setBy('appID')} /> App ID
          </label>
        </fieldset>
        {by === 'domain' ? (
          <TextField
            label="Shop domain"
            field="domain"
            error={error}
            value={domain}
            onChange={(e) => setDomain(e.target.value)}
            required
            autoComplete="url"
            inputMode="url"
            placeholder="shop.example.com"
          />
        ) : (
          <TextField
            label="App ID"
            field="appID"
            error={error}
            value={appID}
            onChange={(e) => setAppID(e.target.value)}
            required
            inputMode="numeric"
            pattern="[0-9]+"
          />
        )}
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
