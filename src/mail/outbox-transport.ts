import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SentMessageInfo, Transport } from 'nodemailer';
import type MailMessage from 'nodemailer/lib/mailer/mail-message';
import StreamTransport from 'nodemailer/lib/stream-transport';

/**
 * The development outbox (no SMTP_URL): nodemailer's stream transport builds the message, which is written
 * as one .eml file to `dir` (DATA_DIR/outbox), named by time and a random suffix.
 */
export class OutboxTransport implements Transport<SentMessageInfo> {
  readonly name = 'outbox';
  readonly version = '1';
  private readonly stream = new StreamTransport({ streamTransport: true, buffer: true, newline: 'unix' });

  constructor(private readonly dir: string) {}

  send(mail: MailMessage<SentMessageInfo>, callback: (error: Error | null, info: SentMessageInfo) => void): void {
    this.stream.send(mail as MailMessage<StreamTransport.SentMessageInfo>, (error, info) => {
      if (error || !info) return callback(error ?? new Error('The message could not be built'), info as SentMessageInfo);
      const file = join(this.dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`);
      writeFile(file, info.message as Buffer).then(
        () => callback(null, info),
        (failure: Error) => callback(failure, info),
      );
    });
  }
}
