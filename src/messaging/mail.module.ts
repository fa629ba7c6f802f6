import { Global, Module } from '@nestjs/common';
import { MailerModule, MailerOptions } from '@nestjs-modules/mailer';
import { HandlebarsAdapter } from '@nestjs-modules/mailer/adapters/handlebars.adapter';
import { join } from 'node:path';
import type { TransportOptions } from 'nodemailer';
import { projectRoot } from '../common/paths';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { outboxDir } from '../database/embedded-database';
import { OutboxTransport } from './outbox-transport';

/**
 * Handlebars for mails sent with a `template` (templates/*.hbs); a mail that brings its own `html` (a
 * notification, merged at request time, even an empty one) passes untouched.
 */
class TemplateMailAdapter extends HandlebarsAdapter {
  override compile(mail: { data: { template?: string } }, callback: (error?: unknown) => void, options: MailerOptions): void {
    if (!mail.data.template) return void callback();
    super.compile(mail, callback, options);
  }
}

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
  return {
    transport,
    template: { dir: join(projectRoot(), 'templates'), adapter: new TemplateMailAdapter(), options: { strict: true } },
  };
}

/**
 * The one way mail leaves the service: MailerService (@nestjs-modules/mailer) on nodemailer's transport.
 * Callers send after their transaction commits.
 */
@Global()
@Module({
  imports: [MailerModule.forRootAsync({ imports: [], inject: [APP_CONFIG], useFactory: (config: AppConfig) => mailerOptions(config) })],
  exports: [MailerModule],
})
export class MailModule {}
