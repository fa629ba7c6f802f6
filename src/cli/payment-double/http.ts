import { IncomingMessage, ServerResponse } from 'node:http';
import { apiError, token } from './answers';
import { Answer } from './types';

// The provider's HTTP conventions: form-encoded bodies, secret-key authentication, idempotent POSTs.

/** Answers a request with `answer` (unless its connection is gone). */
export function send(res: ServerResponse, answer: Answer): void {
  if (res.destroyed) return;
  res.writeHead(answer.status, { 'content-type': 'application/json', 'request-id': `req_${token(14)}`, ...answer.headers });
  res.end(JSON.stringify(answer.body));
}

/** The secret key of `Authorization: Bearer <key>`, or of basic auth with the key as user name (`curl -u sk_test_…:`). */
export function secretKeyOf(authorization: string | undefined): string | null {
  const [scheme, value] = (authorization ?? '').split(' ');
  if (scheme === 'Bearer' && value) return value;
  if (scheme === 'Basic' && value) return Buffer.from(value, 'base64').toString('utf8').split(':')[0] || null;
  return null;
}

export function header(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  return typeof value === 'string' ? value : null;
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** The SDK's form encoding (`a=1&metadata[appID]=7&types[0]=card`) as nested objects and arrays; also a query string. */
export function parseForm(raw: string): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [name, value] of new URLSearchParams(raw)) {
    const [head, ...rest] = name.split('[');
    const path = [head, ...rest.map((part) => part.replace(/]$/, ''))];
    let node: Record<string, unknown> = result;
    path.forEach((key, i) => {
      if (i === path.length - 1) node[key] = value;
      else node = (node[key] ??= /^\d+$/.test(path[i + 1]) ? [] : {}) as Record<string, unknown>;
    });
  }
  return result;
}

/** The provider's 401 for a missing or malformed secret key, or null for a good one. */
export function unauthenticated(apiKey: string | null): Answer | null {
  if (!apiKey) {
    const message =
      'You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth ' +
      "(e.g. 'Authorization: Bearer YOUR_SECRET_KEY').";
    return { status: 401, body: apiError('invalid_request_error', message) };
  }
  if (!/^sk_(test|live)_\w+$/.test(apiKey))
    return {
      status: 401,
      body: apiError('invalid_request_error', `Invalid API Key provided: ${apiKey.slice(0, 8)}****${apiKey.slice(-4)}`),
    };
  return null;
}

/**
 * The provider's idempotent requests: the first answer to a POST, as it was then, is replayed for the same
 * Idempotency-Key (per secret key), endpoint and parameters; a replay changes nothing and delivers nothing.
 * The same key on another endpoint or with other parameters is a 400 idempotency_error.
 */
export class IdempotentReplays {
  private readonly replays = new Map<string, { endpoint: string; params: string; status: number; body: string }>(); // `${key} ${idempotency key}`

  answer(apiKey: string, idempotencyKey: string, path: string, raw: string, route: () => Answer): Answer {
    const slot = `${apiKey} ${idempotencyKey}`;
    const saved = this.replays.get(slot);
    const retry = `Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`;
    if (saved && saved.endpoint !== path) {
      const message =
        'Keys for idempotent requests can only be used for the same endpoint they were first used for ' +
        `('${saved.endpoint}' vs '${path}'). ${retry}`;
      return { status: 400, body: apiError('idempotency_error', message) };
    }
    if (saved && saved.params !== raw) {
      const message = `Keys for idempotent requests can only be used with the same parameters they were first used with. ${retry}`;
      return { status: 400, body: apiError('idempotency_error', message) };
    }
    if (saved) return { status: saved.status, body: JSON.parse(saved.body), headers: { 'idempotent-replayed': 'true' } };
    const answer = route();
    this.replays.set(slot, { endpoint: path, params: raw, status: answer.status, body: JSON.stringify(answer.body) });
    return answer;
  }
}
