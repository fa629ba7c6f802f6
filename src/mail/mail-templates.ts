import { Injectable, Module } from '@nestjs/common';
import type { MailerOptions } from '@nestjs-modules/mailer';
import { join } from 'node:path';
import { projectRoot } from '../common/paths';

type TemplateOptions = NonNullable<MailerOptions['template']>;

/**
 * The mail templates in templates/: @nestjs-modules/mailer's handlebars adapter in strict mode (a missing
 * field is an error, every value escaped). Mails are rendered ahead with `render` and sent as HTML: the
 * MailerService itself has no template adapter, since with one it loads preview-email (and with it pug and
 * babel, some 10 MB of memory) at start. The adapter itself (handlebars and the native CSS inliner, ~20 MB
 * resident and ~0.1 s) is loaded at the first render, like the other libraries only some requests need.
 */
@Injectable()
export class MailTemplates {
  private templateOptions?: TemplateOptions;

  private get options(): TemplateOptions {
    if (!this.templateOptions) {
      const { HandlebarsAdapter } =
        require('@nestjs-modules/mailer/adapters/handlebars.adapter') as typeof import('@nestjs-modules/mailer/adapters/handlebars.adapter');
      this.templateOptions = { dir: join(projectRoot(), 'templates'), adapter: new HandlebarsAdapter(), options: { strict: true } };
    }
    return this.templateOptions;
  }

  /** templates/<template> (`confirmation.html`; no extension means `.hbs`) rendered with `context`. */
  render(template: string, context: Record<string, unknown>): Promise<string> {
    const mail = { data: { template, context } as { template: string; context: Record<string, unknown>; html?: string } };
    return new Promise((resolve, reject) => {
      try {
        const options = this.options;
        options.adapter!.compile(mail, (error?: unknown) => (error ? reject(error) : resolve(String(mail.data.html ?? ''))), {
          template: options,
        });
      } catch (error) {
        reject(error); // the adapter throws (rather than calling back) for a template file it cannot read
      }
    });
  }
}

@Module({ providers: [MailTemplates], exports: [MailTemplates] })
export class MailTemplatesModule {}
