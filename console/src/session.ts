import { createClient, type Schemas } from '@platform-service/client';
import { useSyncExternalStore } from 'react';
import { ApiFailure } from './api-failure';
import { queryClient } from './queryClient';

/**
 * The staff member's session, as the browser needs it (src/console's session routes): the refresh token is
 * an HttpOnly cookie the console never sees; the access token lives here, in memory only, and is renewed
 * before it runs out. A reload restores the session through /console/session/refresh. After the server's idle
 * time (`idleMinutes`, CONSOLE_IDLE_MINUTES) without any input the console signs out (the server ends a session
 * not refreshed for as long by itself).
 */
export type SessionData = Schemas['ConsoleSessionData'];
export type Staff = SessionData['staff'];
export type SessionApp = SessionData['app'];
export type Permission = Staff['permissions'][number];
export type SignInInput = Schemas['ConsoleSignInRequest'];

export type SessionState = { status: 'loading' } | { status: 'signedOut'; notice?: string } | { status: 'signedIn'; data: SessionData };

/** While the staff member is active, the session is refreshed at least this often: the server ends one not refreshed for its idle time. */
const KEEPALIVE_MS = 5 * 60 * 1000;

/** The session routes (/console/session/*, outside the API's base path), typed by the same client. */
const sessionApi = createClient({ baseUrl: window.location.origin, credentials: 'same-origin', cache: 'no-store' });

let state: SessionState = { status: 'loading' };
const listeners = new Set<() => void>();
let csrfToken: string | null = null;
let refreshing: Promise<boolean> | null = null;
let refreshTimer: ReturnType<typeof setTimeout> | undefined;
let lastActivity = Date.now();
let lastRefresh = 0;

function setState(next: SessionState) {
  state = next;
  listeners.forEach((listener) => listener());
}

export function useSession(): SessionState {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => state,
  );
}

/** The signed-in session, for the API client's headers (null when signed out). */
export function currentSession(): SessionData | null {
  return state.status === 'signedIn' ? state.data : null;
}

async function csrf(force = false): Promise<string> {
  if (!csrfToken || force) {
    const { data, error, response } = await sessionApi.GET('/console/session/csrf');
    if (!data) throw ApiFailure.from(response.status, error);
    csrfToken = data.data.csrfToken;
  }
  return csrfToken;
}

type Answer<T> = { data?: T; error?: unknown; response: Response };

/** A session POST with the CSRF token; a refused token (a new secret cookie) is fetched again once. */
async function withCsrf<T>(post: (headers: { 'x-csrf-token': string }) => Promise<Answer<T>>): Promise<Answer<T>> {
  for (let attempt = 0; ; attempt++) {
    const answer = await post({ 'x-csrf-token': await csrf(attempt > 0) });
    const message = (answer.error as { message?: unknown } | undefined)?.message;
    if (answer.response.status === 403 && attempt === 0 && typeof message === 'string' && /csrf/i.test(message)) continue;
    return answer;
  }
}

function signedIn(data: SessionData) {
  lastRefresh = Date.now();
  setState({ status: 'signedIn', data });
  clearTimeout(refreshTimer);
  // Renew a minute before the token runs out (halfway for short-lived tokens).
  const lifetime = Math.max(1, data.expiresIn) * 1000;
  const delay = lifetime > 120_000 ? lifetime - 60_000 : lifetime / 2;
  refreshTimer = setTimeout(() => {
    if (idleFor() >= idleMs(data)) void signOut(idleNotice(data));
    else void refresh();
  }, delay);
}

function signedOut(notice?: string) {
  clearTimeout(refreshTimer);
  queryClient.clear();
  setState({ status: 'signedOut', notice });
}

function idleMs(data: SessionData): number {
  return data.idleMinutes * 60_000;
}

function idleNotice(data: SessionData): string {
  return `You were signed out after ${data.idleMinutes} minute${data.idleMinutes === 1 ? '' : 's'} without activity.`;
}

/** Renews the access token with the cookie; false when there is no session (the console then shows sign-in). */
export function refresh(): Promise<boolean> {
  refreshing ??= (async () => {
    try {
      const answer = await withCsrf((header) => sessionApi.POST('/console/session/refresh', { params: { header } }));
      if (answer.data) {
        signedIn(answer.data.data);
        return true;
      }
      const status = answer.response.status;
      const wasSignedIn = state.status === 'signedIn';
      if (status >= 500 && wasSignedIn) return false; // keep the session; the next call tries again
      // On start a 401 only means "not signed in"; otherwise the server's words say why (idle, no staff role…).
      signedOut(status === 401 && !wasSignedIn ? undefined : ApiFailure.from(status, answer.error).message);
      return false;
    } catch {
      // No answer at all: keep a live session (the next call tries again); on start, show sign-in.
      if (state.status !== 'signedIn') signedOut('Could not reach the server. Check the connection and try again.');
      return false;
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

export async function signIn(input: SignInInput): Promise<void> {
  const answer = await withCsrf((header) => sessionApi.POST('/console/session/sign-in', { params: { header }, body: input }));
  if (!answer.data) throw ApiFailure.from(answer.response.status, answer.error);
  lastActivity = Date.now();
  signedIn(answer.data.data);
}

export async function signOut(notice?: string): Promise<void> {
  try {
    await withCsrf((header) => sessionApi.POST('/console/session/sign-out', { params: { header } }));
  } catch {
    // Signed out here either way; the server ends an idle session by itself.
  }
  signedOut(notice);
}

function idleFor(): number {
  return Date.now() - lastActivity;
}

/** Starts the session: the CSRF token, then the refresh that restores a session the cookie holds. */
export function startSession(): void {
  const touch = () => {
    lastActivity = Date.now();
  };
  for (const type of ['pointerdown', 'keydown', 'wheel', 'touchstart'] as const)
    window.addEventListener(type, touch, { passive: true, capture: true });
  const checkIdle = () => {
    if (state.status !== 'signedIn') return;
    if (idleFor() >= idleMs(state.data)) void signOut(idleNotice(state.data));
    // Active since the last refresh, and that was a while ago: refresh, so the server sees the activity too.
    else if (lastActivity > lastRefresh && Date.now() - lastRefresh >= Math.min(KEEPALIVE_MS, idleMs(state.data) / 2)) void refresh();
  };
  setInterval(checkIdle, 15_000);
  // A sleeping laptop pauses timers: check as soon as the page is seen again.
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') checkIdle();
  });
  void refresh();
}
