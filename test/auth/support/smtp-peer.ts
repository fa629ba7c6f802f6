import { AddressInfo } from 'node:net';
import { ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  envelopeTo: string[];
  mail: ParsedMail;
}

/** A real SMTP server on 127.0.0.1 that keeps what it receives, parsed with mailparser. */
export class SmtpPeer {
  readonly received: ReceivedMail[] = [];
  private waiters: (() => void)[] = [];
  private server!: SMTPServer;
  port = 0;

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData: (stream, session, callback) => {
        simpleParser(stream)
          .then((mail) => {
            this.received.push({ envelopeTo: session.envelope.rcptTo.map((r) => r.address), mail });
            for (const wake of this.waiters.splice(0)) wake();
            callback();
          })
          .catch(callback);
      },
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.port = (this.server.server.address() as AddressInfo).port;
    return this;
  }

  /** The first mail to `to` received after `since` mails, waiting up to `timeoutMs`. */
  async mailTo(to: string, since = 0, timeoutMs = 5000): Promise<ReceivedMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.slice(since).find((m) => m.envelopeTo.includes(to));
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** The reset link in a mail's text part. */
export function linkIn(mail: ParsedMail): URL {
  const match = /(https?:\/\/\S+)/.exec(mail.text ?? '');
  if (!match) throw new Error('no link in mail');
  return new URL(match[1]);
}
