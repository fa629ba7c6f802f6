import { Injectable, Module } from '@nestjs/common';
import { MailerOptions } from '@nestjs-modules/mailer';
import { HandlebarsAdapter } from '@nestjs-modules/mailer/adapters/handlebars.adapter';
import { join } from 'node:path';
import { projectRoot } from '../common/paths';

type TemplateOptions = NonNullable<MailerOptions['template']>;

/**
 * The mail templates in templates/: @nestjs-modules/mailer's handlebars adapter in strict mode (a missing
 * field is an error, every value escaped). Mails are rendered ahead with `render` and sent as HTML: the
 * MailerService itself has no template adapter, since with one it loads preview-email (and with it pug and
 * babel, some 10 MB of memory) at start.
 */
@Injectable()
export class MailTemplates {
  readonly options: TemplateOptions = {
    dir: join(projectRoot(), 'templates'),
    adapter: new HandlebarsAdapter(),
    options: { strict: true },
  };

  /** templates/<template> (`confirmation.html`; no extension means `.hbs`) rendered with `context`. */
  render(template: string, context: Record<string, unknown>): Promise<string> {
    const mail = { data: { template, context } as { template: string; context: Record<string, unknown>; html?: string } };
    return new Promise((resolve, reject) => {
      try {
        this.options.adapter!.compile(mail, (error?: unknown) => (error ? reject(error) : resolve(String(mail.data.html ?? ''))), {
          template: this.options,
        });
      } catch (error) {
        reject(error); // the adapter throws (rather than calling back) for a template file it cannot read
      }
    });
  }
}

@Module({ providers: [MailTemplates], exports: [MailTemplates] })
export class MailTemplatesModule {}
