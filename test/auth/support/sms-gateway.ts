import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';

export interface ReceivedSms {
  to: string;
  body: string;
  authorization: string | undefined;
}

/** A real HTTP SMS gateway on 127.0.0.1: keeps every POSTed `{ to, body }`. */
export class SmsGateway {
  readonly received: ReceivedSms[] = [];
  private server!: Server;
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/sms`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk) => (raw += chunk));
      req.on('end', () => {
        const { to, body } = JSON.parse(raw);
        this.received.push({ to, body, authorization: req.headers.authorization });
        res.writeHead(202, { 'content-type': 'application/json' }).end('{"queued":true}');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /** The 6-digit code of the last SMS to `to`. */
  lastCodeTo(to: string): string {
    const sms = [...this.received].reverse().find((m) => m.to === to);
    const code = sms && /\b(\d{6})\b/.exec(sms.body)?.[1];
    if (!code) throw new Error(`no code sent to ${to}`);
    return code;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
