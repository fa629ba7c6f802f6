import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import nodemailer, { Transporter } from 'nodemailer';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { outboxDir } from '../database/embedded-database';

export interface MailMessage {
  from: string;
  to?: string | string[];
  cc?: string | string[];
  bcc?: string | string[];
  subject: string;
  html?: string;
  text?: string;
  attachments?: { filename: string; content: Buffer; cid?: string; contentType?: string }[];
  /** A stable Message-ID (`<...@...>`), so a receiver can recognise a redelivered message. */
  messageId?: string;
}

/**
 * The one way mail leaves the service: SMTP_URL through nodemailer, or, without it, each message written
 * as an .eml file to DATA_DIR/outbox (development). Callers send after their transaction commits.
 */
@Injectable()
export class MailTransport implements OnApplicationShutdown {
  private readonly transporter: Transporter;
  private readonly outbox: string | null;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    if (config.smtpUrl) {
      // Pooled connections for the notification sender's throughput; bounded timeouts so a hung server
      // cannot hold a claimed log row past its lease (NOTIFY_LEASE_MS).
      this.transporter = nodemailer.createTransport({
        url: config.smtpUrl,
        pool: true,
        maxConnections: 5,
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 60_000,
      } as Parameters<typeof nodemailer.createTransport>[0]);
      this.outbox = null;
    } else {
      this.transporter = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
      this.outbox = outboxDir(config, 'outbox');
    }
  }

  async send(message: MailMessage): Promise<{ messageId: string }> {
    const info = await this.transporter.sendMail(message);
    if (this.outbox) {
      const file = join(this.outbox, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`);
      await writeFile(file, info.message as Buffer);
    }
    return { messageId: info.messageId };
  }

  onApplicationShutdown(): void {
    this.transporter.close();
  }
}
