import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:https';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tls from 'node:tls';

// oidc-provider ships no types: the little the peer uses, typed here.
interface ProviderGrant {
  addOIDCScope(scope: string): void;
  save(): Promise<string>;
}
interface ProviderContext {
  oidc: {
    client?: { clientId: string };
    session?: { accountId?: string; grantIdFor(clientId: string): string | undefined };
    provider: {
      Grant: {
        new (options: { clientId: string; accountId: string }): ProviderGrant;
        find(id: string): Promise<ProviderGrant | undefined>;
      };
    };
  };
}
interface ProviderInstance {
  proxy: boolean;
  callback(): (req: unknown, res: unknown) => void;
}
const { default: Provider } = require('oidc-provider') as {
  default: new (issuer: string, configuration: Record<string, unknown>) => ProviderInstance;
};

/** The claims of an account at the peer (besides `sub`, its id). */
export interface PeerAccount {
  email?: string;
  email_verified?: boolean;
  given_name?: string;
  family_name?: string;
  name?: string;
  picture?: string;
}

export interface PeerClient {
  client_id: string;
  client_secret?: string;
  token_endpoint_auth_method: 'client_secret_basic' | 'client_secret_post' | 'none';
  redirect_uris: string[];
  post_logout_redirect_uris?: string[];
}

export interface PeerOptions {
  clients: PeerClient[];
  /** Listen on this port (a restart after `stop`); default any free port. */
  port?: number;
  /** False puts the email and profile claims into the ID token (oidc-provider 9 keeps them in UserInfo otherwise). */
  conformIdTokenClaims?: boolean;
}

/**
 * A real OpenID Connect provider (`oidc-provider` 9) on 127.0.0.1 over HTTPS, with a certificate made by
 * openssl for this run (SAN IP:127.0.0.1). Logins go through its own development interaction pages
 * (devInteractions: any password), driven headlessly by `PeerBrowser`. Consent is granted by
 * `loadExistingGrant`, as a first-party IdP would. PKCE is required of public clients only; the claims
 * parameter is supported, so the ID token carries `sid` when the service asks for it.
 *
 * The certificate is not trusted by Node: `trustInProcess()` adds it to this process's default CA
 * certificates (what NODE_EXTRA_CA_CERTS does for a process started with it), and `caFile` is the PEM for
 * a child process's NODE_EXTRA_CA_CERTS.
 */
export class OidcPeer {
  readonly accounts = new Map<string, PeerAccount>();
  private server: Server;
  private readonly handler: (req: unknown, res: unknown) => void;

  private constructor(
    readonly port: number,
    readonly certPem: string,
    private readonly keyPem: string,
    readonly caFile: string,
    private readonly dir: string,
    server: Server,
    options: PeerOptions,
  ) {
    this.server = server;
    const accounts = this.accounts;
    const provider = quietly(
      () =>
        new Provider(this.issuer, {
          clients: options.clients,
          conformIdTokenClaims: options.conformIdTokenClaims ?? false,
          claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['given_name', 'family_name', 'name', 'picture'] },
          findAccount: async (_ctx: unknown, id: string) => {
            const account = accounts.get(id);
            return account ? { accountId: id, claims: async () => ({ sub: id, ...account }) } : undefined;
          },
          loadExistingGrant: async (ctx: ProviderContext) => {
            const { client, session, provider: p } = ctx.oidc;
            if (!client || !session?.accountId) return undefined;
            const existing = session.grantIdFor(client.clientId);
            if (existing) return p.Grant.find(existing);
            const grant = new p.Grant({ clientId: client.clientId, accountId: session.accountId });
            grant.addOIDCScope('openid email profile');
            await grant.save();
            return grant;
          },
          pkce: { required: (_ctx: unknown, client: { clientAuthMethod: string }) => client.clientAuthMethod === 'none' },
          features: {
            devInteractions: { enabled: true },
            claimsParameter: { enabled: true },
            rpInitiatedLogout: {
              enabled: true,
              logoutSource: (ctx: { body: string }, form: string) => {
                ctx.body = `<!doctype html><html><body>${form}<button type="submit" form="op.logoutForm" value="yes" name="logout">Sign out</button></body></html>`;
              },
            },
          },
          cookies: { keys: ['oidc-peer-cookie-key-0123456789'] },
          ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Interaction: 600, Session: 3600, Grant: 3600 },
        }),
    );
    const handle = provider.callback();
    // The token endpoint can be made silent (an IdP that does not answer in time): the request is held, then dropped unserved.
    this.handler = (req, res) => {
      const delay = this.tokenDelayMs;
      if (delay > 0 && (req as { url?: string }).url?.startsWith('/token')) {
        this.delayed.push(
          new Promise<void>((resolve) => setTimeout(resolve, delay)).then(() => void (res as { destroy(): void }).destroy()),
        );
      } else handle(req, res);
    };
    server.on('request', this.handler);
  }

  /** Milliseconds the token endpoint holds a request before dropping it unanswered (0: it answers at once). */
  tokenDelayMs = 0;
  private readonly delayed: Promise<void>[] = [];

  /** Waits until every held request was dropped. */
  async settled(): Promise<void> {
    await Promise.all(this.delayed.splice(0));
  }

  get issuer(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  static async start(options: PeerOptions): Promise<OidcPeer> {
    const dir = mkdtempSync(join(tmpdir(), 'oidc-peer-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-days',
        '1',
      ],
      { stdio: 'ignore' },
    );
    const keyPem = readFileSync(join(dir, 'key.pem'), 'utf8');
    const certPem = readFileSync(join(dir, 'cert.pem'), 'utf8');
    const caFile = join(dir, 'ca.pem');
    writeFileSync(caFile, certPem);
    const server = await listen(keyPem, certPem, options.port ?? 0);
    return new OidcPeer((server.address() as AddressInfo).port, certPem, keyPem, caFile, dir, server, options);
  }

  /** Trusts the peer's certificate in this process, as NODE_EXTRA_CA_CERTS would at start. */
  trustInProcess(): void {
    const current = tls.getCACertificates('default');
    if (!current.includes(this.certPem)) tls.setDefaultCACertificates([...current, this.certPem]);
  }

  account(id: string, claims: PeerAccount): string {
    this.accounts.set(id, claims);
    return id;
  }

  /** Stops listening (the IdP is down); `resume` listens again on the same port with the same keys and sessions. */
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  async resume(): Promise<void> {
    this.server = await listen(this.keyPem, this.certPem, this.port);
    this.server.on('request', this.handler);
  }

  async close(): Promise<void> {
    if (this.server.listening) await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Runs `build` without oidc-provider's start-up notices about its development defaults (in-memory store, dev keys and pages). */
function quietly<T>(build: () => T): T {
  const { warn, info } = console;
  const filter =
    (write: (...args: unknown[]) => void) =>
    (...args: unknown[]) => {
      if (!/oidc-provider (WARNING|NOTICE)/.test(String(args[0]))) write(...args);
    };
  console.warn = filter(warn);
  console.info = filter(info);
  try {
    return build();
  } finally {
    console.warn = warn;
    console.info = info;
  }
}

function listen(key: string, cert: string, port: number): Promise<Server> {
  const server = createServer({ key, cert });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

/**
 * A browser at the peer: follows its redirects by hand with a cookie jar, fills the login form, confirms the
 * logout, and stops at the first redirect that leaves the peer (to the service's relay), returning it.
 */
export class PeerBrowser {
  private readonly jar = new Map<string, string>();

  constructor(private readonly peer: OidcPeer) {}

  /** Opens the authorization URL, logs in as `accountId`, and returns the redirect to the relay (code, state, iss). */
  async login(authorizationUrl: string, accountId: string): Promise<URL> {
    let response = await this.go(authorizationUrl);
    let location = this.location(response);
    if (location.origin !== this.peer.issuer) return location; // already logged in at the peer
    response = await this.go(location.href);
    const form = formOf(await response.text());
    if (!form) throw new Error(`no login form at ${location.href}`);
    response = await this.go(form.action, new URLSearchParams({ ...form.fields, prompt: 'login', login: accountId, password: 'any' }));
    for (let hops = 0; hops < 10; hops++) {
      location = this.location(response);
      if (location.origin !== this.peer.issuer) return location;
      response = await this.go(location.href);
    }
    throw new Error('too many redirects at the peer');
  }

  /** Opens the IdP logout URL, confirms, and returns where the IdP sends the browser afterwards. */
  async logout(logoutUrl: string): Promise<URL> {
    let response = await this.go(logoutUrl);
    if (response.status === 200) {
      const form = formOf(await response.text());
      if (!form) throw new Error('no logout form at the peer');
      response = await this.go(form.action, new URLSearchParams({ ...form.fields, logout: 'yes' }));
    }
    return this.location(response);
  }

  private location(response: Response): URL {
    const location = response.headers.get('location');
    if (!location || response.status < 300 || response.status >= 400)
      throw new Error(`expected a redirect from the peer, got ${response.status}`);
    return new URL(location, this.peer.issuer);
  }

  private async go(url: string, form?: URLSearchParams): Promise<Response> {
    const headers: Record<string, string> = { cookie: [...this.jar].map(([name, value]) => `${name}=${value}`).join('; ') };
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await fetch(url, { method: form ? 'POST' : 'GET', headers, body: form?.toString(), redirect: 'manual' });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const index = pair.indexOf('=');
      const value = pair.slice(index + 1);
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(cookie)) this.jar.delete(pair.slice(0, index));
      else this.jar.set(pair.slice(0, index), value);
    }
    return response;
  }
}

/** The first form of a page: its action and hidden (and pre-filled) inputs. */
function formOf(html: string): { action: string; fields: Record<string, string> } | null {
  const form = /<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/i.exec(html);
  if (!form) return null;
  const fields: Record<string, string> = {};
  for (const input of form[2].matchAll(/<input[^>]*>/gi)) {
    const name = /name="([^"]*)"/.exec(input[0])?.[1];
    const value = /value="([^"]*)"/.exec(input[0])?.[1];
    if (name && value !== undefined) fields[name] = value.replace(/&amp;/g, '&');
  }
  return { action: form[1].replace(/&amp;/g, '&'), fields };
}
