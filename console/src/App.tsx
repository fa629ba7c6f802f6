import { Suspense, useEffect, useRef, type MouseEvent } from 'react';
import { ErrorBoundary } from './components/ErrorBoundary';
import { Loading, useCan } from './components/ui';
import { Link, match, navigate, usePath } from './router';
import { nav, routes } from './routes';
import { NotFound } from './screens/NotFound';
import { SignIn } from './screens/SignIn';
import { signOut, useSession, type SessionData } from './session';

export function App() {
  const session = useSession();
  if (session.status === 'loading') return <Loading label="Opening the console…" />;
  if (session.status === 'signedOut') return <SignIn notice={session.notice} />;
  return <Shell session={session.data} />;
}

function Shell({ session }: { session: SessionData }) {
  const path = usePath();
  const can = useCan();
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  const allowed = nav.filter((entry) => can(entry.permission));

  // After a navigation, focus moves to the new screen (a screen reader reads it; the next Tab goes on from there).
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    main.current?.focus();
  }, [path]);

  // The console's home is the first screen the staff member may use.
  useEffect(() => {
    if (path === '/' && allowed.length > 0) navigate(allowed[0].to, { replace: true });
  }, [path, allowed]);

  const skip = (event: MouseEvent<HTMLAnchorElement>) => {
    event.preventDefault();
    main.current?.focus();
  };

  let content;
  if (path === '/') {
    content =
      allowed.length === 0 ? (
        <section className="panel">
          <h1>Welcome</h1>
          <p>Your roles grant no screens of this console yet. An owner of {session.app.name} can give you a role.</p>
        </section>
      ) : (
        <Loading />
      );
  } else {
    const found = routes.map((route) => ({ route, params: match(route.path, path) })).find((entry) => entry.params);
    if (!found || (found.route.permission && !can(found.route.permission))) content = <NotFound />;
    else {
      const Screen = found.route.screen;
      content = <Screen params={found.params!} />;
    }
  }

  const name = [session.staff.firstname, session.staff.lastname].filter(Boolean).join(' ');
  return (
    <div className="shell">
      <a className="skip-link" href="#main" onClick={skip}>
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand">
          {session.app.name} <span className="brand-sub">Staff console</span>
        </Link>
        <div className="who">
          <span className="who-email" title={name || undefined}>
            {session.staff.email}
          </span>
          <button type="button" className="secondary" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <div className="layout">
        <nav className="sidenav" aria-label="Main">
          <ul>
            {allowed.map((entry) => {
              const current = path === entry.prefix || path.startsWith(`${entry.prefix}/`);
              return (
                <li key={entry.to}>
                  <Link to={entry.to} aria-current={current ? 'page' : undefined}>
                    {entry.label}
                  </Link>
                </li>
              );
            })}
          </ul>
        </nav>
        <main id="main" ref={main} tabIndex={-1}>
          <ErrorBoundary key={path}>
            <Suspense fallback={<Loading />}>{content}</Suspense>
          </ErrorBoundary>
        </main>
      </div>
    </div>
  );
}
