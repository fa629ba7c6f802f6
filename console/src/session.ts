import { useSyncExternalStore } from 'react';
import { ApiFailure } from './api-failure';
import { queryClient } from './queryClient';

/**
 * The staff member's session, as the browser needs it (src/console's session routes): the refresh token is
 * an HttpOnly cookie the console never sees; the access token lives here, in memory only, and is renewed
 * before it runs out. A reload restores the session through /console/session/refresh. After IDLE_MS
 * without any input the console signs out (the server enforces its own idle limit too).
 */
export interface Staff {
  id: number;
  email: string;
  firstname: string | null;
  lastname: string | null;
  roles: string[];
  permissions: string[];
}

export interface SessionApp {
  appID: number;
  name: string;
  domain: string;
}

export interface SessionData {
  accessToken: string;
  expiresIn: number;
  staff: Staff;
  app: SessionApp;
}

export type SessionState = { status: 'loading' } | { status: 'signedOut'; notice?: string } | { status: 'signedIn'; data: SessionData };

export interface SignInInput {
  domain?: string;
  appID?: number;
  email: string;
  password: string;
}

export const IDLE_MS = 30 * 60 * 1000;
const SESSION_BASE = `${import.meta.env.BASE_URL}session`;

let state: SessionState = { status: 'loading' };
const listeners = new Set<() => void>();
let csrfToken: string | null = null;
let refreshing: Promise<boolean> | null = null;
let refreshTimer: ReturnType<typeof setTimeout> | undefined;
let lastActivity = Date.now();

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
    const response = await fetch(`${SESSION_BASE}/csrf`, { credentials: 'same-origin', cache: 'no-store' });
    const body = (await response.json().catch(() => null)) as { data?: { csrfToken?: string } } | null;
    if (!response.ok || !body?.data?.csrfToken) throw ApiFailure.from(response.status, body);
    csrfToken = body.data.csrfToken;
  }
  return csrfToken;
}

/** A POST to a session route with the CSRF token; a refused token (expired secret) is fetched again once. */
async function sessionPost(route: string, body: object = {}): Promise<{ status: number; body: unknown }> {
  for (let attempt = 0; ; attempt++) {
    const token = await csrf(attempt > 0);
    const response = await fetch(`${SESSION_BASE}/${route}`, {
      method: 'POST',
      credentials: 'same-origin',
      cache: 'no-store',
      headers: { 'content-type': 'application/json', 'x-csrf-token': token },
      body: JSON.stringify(body),
    });
    const parsed: unknown = await response.json().catch(() => null);
    const message = (parsed as { message?: unknown } | null)?.message;
    if (response.status === 403 && attempt === 0 && typeof message === 'string' && /csrf/i.test(message)) continue;
    return { status: response.status, body: parsed };
  }
}

function sessionData(body: unknown): SessionData | null {
  const data = (body as { status?: string; data?: SessionData } | null)?.data;
  return data && typeof data.accessToken === 'string' && data.staff && data.app ? data : null;
}

function signedIn(data: SessionData) {
  setState({ status: 'signedIn', data });
  clearTimeout(refreshTimer);
  // Renew a minute before the token runs out (halfway for short-lived tokens).
  const lifetime = Math.max(1, data.expiresIn) * 1000;
  const delay = lifetime > 120_000 ? lifetime - 60_000 : lifetime / 2;
  refreshTimer = setTimeout(() => {
    if (idleFor() >= IDLE_MS) void signOut(idleNotice);
    else void refresh();
  }, delay);
}

function signedOut(notice?: string) {
  clearTimeout(refreshTimer);
  queryClient.clear();
  setState({ status: 'signedOut', notice });
}

const idleNotice = 'You were signed out after 30 minutes without activity.';

/** Renews the access token with the cookie; false when there is no session (the console then shows sign-in). */
export function refresh(): Promise<boolean> {
  refreshing ??= (async () => {
    try {
      const answer = await sessionPost('refresh');
      const data = answer.status === 200 ? sessionData(answer.body) : null;
      if (data) {
        signedIn(data);
        return true;
      }
      const lost = state.status === 'signedIn' ? 'Your session has ended. Sign in again.' : undefined;
      signedOut(answer.status === 401 ? lost : ApiFailure.from(answer.status, answer.body).message);
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
  const answer = await sessionPost('sign-in', input);
  const data = answer.status === 200 ? sessionData(answer.body) : null;
  if (!data) throw ApiFailure.from(answer.status, answer.body);
  lastActivity = Date.now();
  signedIn(data);
}

export async function signOut(notice?: string): Promise<void> {
  try {
    await sessionPost('sign-out');
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
    if (state.status === 'signedIn' && idleFor() >= IDLE_MS) void signOut(idleNotice);
  };
  setInterval(checkIdle, 15_000);
  // A sleeping laptop pauses timers: check as soon as the page is seen again.
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') checkIdle();
  });
  void refresh();
}
