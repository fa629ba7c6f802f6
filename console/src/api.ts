import { createClient, type Schemas } from '@platform-service/client';
import { ApiFailure } from './api-failure';
import { currentSession, refresh, signOut } from './session';

export type { Schemas };

/** The API's base path, written into index.html by the service ('' in development, /api/v2 in production). */
const basePath = document.querySelector<HTMLMetaElement>('meta[name="platform-api-base"]')?.content.replace(/\/$/, '') ?? '';

/** The typed client of the service (client/), with the staff member's bearer and app on every call. */
export const api = createClient({ baseUrl: window.location.origin + basePath });

const copies = new Map<string, Request>();

function authorize(request: Request): string | null {
  const session = currentSession();
  if (!session) return null;
  request.headers.set('authorization', `Bearer ${session.accessToken}`);
  request.headers.set('site-id', String(session.app.appID));
  return session.accessToken;
}

api.use({
  onRequest({ request, id }) {
    authorize(request);
    // Kept to send again after a 401 (the body of the one sent is consumed by then).
    copies.set(id, request.clone());
    return request;
  },
  async onResponse({ request, response, id }) {
    const copy = copies.get(id);
    copies.delete(id);
    if (response.status !== 401 || !copy) return undefined;
    // A 401: renew the access token once (unless another call already did) and send the request again.
    const sentWith = request.headers.get('authorization');
    const current = currentSession();
    const renewed = current && `Bearer ${current.accessToken}` !== sentWith ? true : await refresh();
    if (!renewed || !authorize(copy)) return undefined;
    const retried = await fetch(copy);
    if (retried.status === 401) void signOut('Your session has ended. Sign in again.');
    return retried;
  },
  onError({ id }) {
    copies.delete(id);
  },
});

/** The success envelope of a call, or an ApiFailure with the envelope's message and the fields it names. */
export async function call<T>(promise: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await promise;
  } catch (error) {
    if (error instanceof TypeError) throw new ApiFailure(0, 'Could not reach the server. Check the connection and try again.');
    throw error;
  }
  const { data, error, response } = result;
  if (response.ok && data !== undefined) return data;
  throw ApiFailure.from(response.status, error);
}
