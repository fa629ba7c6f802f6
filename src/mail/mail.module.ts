import { Global, Module } from '@nestjs/common';
import { MailerModule, MailerOptions } from '@nestjs-modules/mailer';
import type { TransportOptions } from 'nodemailer';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { outboxDir } from '../database/embedded-database';
import { MailTemplatesModule } from './mail-templates';
import { OutboxTransport } from './outbox-transport';

/** Where mail goes: SMTP_URL through nodemailer, or, without it, an .eml file per message in DATA_DIR/outbox (development). */
export function mailerOptions(config: AppConfig): MailerOptions {
  const transport = config.smtpUrl
    ? // Pooled connections for the notification sender's throughput; bounded timeouts so a hung server
      // cannot hold a claimed log row past its lease (NOTIFY_LEASE_MS).
      ({
        url: config.smtpUrl,
        pool: true,
        maxConnections: 5,
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 60_000,
      } as TransportOptions)
    : new OutboxTransport(outboxDir(config, 'outbox'));
  return { transport };
}

/**
 * The one way mail leaves the service: MailerService (@nestjs-modules/mailer) on nodemailer's transport;
 * templated mails are rendered first by MailTemplates. Callers send after their transaction commits.
 */
@Global()
@Module({
  imports: [
    MailTemplatesModule,
    MailerModule.forRootAsync({ imports: [], inject: [APP_CONFIG], useFactory: (config: AppConfig) => mailerOptions(config) }),
  ],
  exports: [MailerModule, MailTemplatesModule],
})
export class MailModule {}
