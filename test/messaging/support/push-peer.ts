import { execFileSync } from 'node:child_process';
import { createECDH, ECDH, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, Server } from 'node:https';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const ece = require('http_ece') as { decrypt(body: Buffer, params: Record<string, unknown>): Buffer };

export interface ReceivedPush {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The decrypted payload, parsed as JSON. */
  payload: Record<string, unknown>;
}

/** A browser-side subscription: the keys a push service would hand to the service worker. */
export interface TestSubscription {
  endpoint: string;
  p256dh: string;
  auth: string;
  ecdh: ECDH;
  authSecret: Buffer;
}

/**
 * A push service over HTTPS with a self-signed certificate (made with openssl) that decrypts every
 * payload with http_ece, as a browser would. Paths under /gone/ answer 410 Gone.
 */
export class PushPeer {
  readonly received: ReceivedPush[] = [];
  private readonly subscriptions = new Map<string, TestSubscription>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(): Promise<PushPeer> {
    const dir = mkdtempSync(join(tmpdir(), 'push-peer-'));
    try {
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
          '-days',
          '1',
        ],
        { stdio: 'ignore' },
      );
      const key = readFileSync(join(dir, 'key.pem'));
      const cert = readFileSync(join(dir, 'cert.pem'));
      let peer: PushPeer;
      const server = createServer({ key, cert }, (req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const path = req.url ?? '';
          if (path.startsWith('/gone/')) {
            res.writeHead(410).end();
            return;
          }
          const sub = peer.subscriptions.get(path);
          if (!sub) {
            res.writeHead(404).end();
            return;
          }
          try {
            const plain = ece.decrypt(Buffer.concat(chunks), { version: 'aes128gcm', privateKey: sub.ecdh, authSecret: sub.authSecret });
            peer.received.push({ path, headers: req.headers, payload: JSON.parse(plain.toString('utf8')) });
            res.writeHead(201).end();
          } catch {
            res.writeHead(400).end();
          }
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      peer = new PushPeer(server, (server.address() as AddressInfo).port);
      return peer;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  subscribe(path = `/push/${randomBytes(6).toString('hex')}`): TestSubscription {
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const authSecret = randomBytes(16);
    const sub = {
      endpoint: `https://127.0.0.1:${this.port}${path}`,
      p256dh: ecdh.getPublicKey().toString('base64url'),
      auth: authSecret.toString('base64url'),
      ecdh,
      authSecret,
    };
    this.subscriptions.set(path, sub);
    return sub;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
