import { Injectable, Module } from '@nestjs/common';
import { MailerOptions } from '@nestjs-modules/mailer';
import { HandlebarsAdapter } from '@nestjs-modules/mailer/adapters/handlebars.adapter';
import { join } from 'node:path';
import { projectRoot } from '../common/paths';

type TemplateOptions = NonNullable<MailerOptions['template']>;

/**
 * Handlebars for mails sent with a `template` (templates/*); a mail that brings its own `html` (a
 * notification, merged at request time, even an empty one) passes untouched.
 */
class TemplateMailAdapter extends HandlebarsAdapter {
  override compile(mail: { data: { template?: string } }, callback: (error?: unknown) => void, options: MailerOptions): void {
    if (!mail.data.template) return void callback();
    super.compile(mail, callback, options);
  }
}

/**
 * The mail templates in templates/: @nestjs-modules/mailer's handlebars adapter in strict mode (a missing
 * field is an error, every value escaped). MailerService renders with it at send time; `render` gives the
 * same HTML ahead of time, for mails written to the outbox inside a transaction.
 */
@Injectable()
export class MailTemplates {
  readonly options: TemplateOptions = { dir: join(projectRoot(), 'templates'), adapter: new TemplateMailAdapter(), options: { strict: true } };

  /** templates/<template> (`confirmation.html`; no extension means `.hbs`) rendered with `context`. */
  render(template: string, context: Record<string, unknown>): Promise<string> {
    const mail = { data: { template, context } as { template: string; context: Record<string, unknown>; html?: string } };
    return new Promise((resolve, reject) => {
      try {
        this.options.adapter!.compile(mail, (error?: unknown) => (error ? reject(error) : resolve(String(mail.data.html ?? ''))), { template: this.options });
      } catch (error) {
        reject(error); // the adapter throws (rather than calling back) for a template file it cannot read
      }
    });
  }
}

@Module({ providers: [MailTemplates], exports: [MailTemplates] })
export class MailTemplatesModule {}
