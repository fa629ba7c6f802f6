import { Injectable, Module } from '@nestjs/common';
import type { MailerOptions } from '@nestjs-modules/mailer';
import { join } from 'node:path';
import { projectRoot } from '../common/paths';

type TemplateOptions = NonNullable<MailerOptions['template']>;

/**
 * The mail templates in templates/: @nestjs-modules/mailer's handlebars adapter in strict mode (a missing
 * field is an error, every value escaped). Mails are rendered ahead with `render` and sent as HTML: the
 * MailerService itself has no template adapter, since with one it loads preview-email (and with it pug and
 * babel, megabytes of memory) at start. The adapter itself (handlebars and the native CSS inliner, memory and
 * start time most instances would pay for nothing) is loaded at the first render, like the other libraries
 * only some requests need. CSS is inlined (css-inline, as the adapter would) only into a mail that has a
 * <style> element.
 */
@Injectable()
export class MailTemplates {
  private templateOptions?: TemplateOptions;

  private get options(): TemplateOptions {
    if (!this.templateOptions) {
      const { HandlebarsAdapter } =
        require('@nestjs-modules/mailer/adapters/handlebars.adapter') as typeof import('@nestjs-modules/mailer/adapters/handlebars.adapter');
      // CSS is inlined below, only for a mail that has any to inline (the adapter would parse every mail).
      const adapter = new HandlebarsAdapter(undefined, { inlineCssEnabled: false });
      this.templateOptions = { dir: join(projectRoot(), 'templates'), adapter, options: { strict: true } };
    }
    return this.templateOptions;
  }

  /** templates/<template> (`confirmation.html`; no extension means `.hbs`) rendered with `context`. */
  render(template: string, context: Record<string, unknown>): Promise<string> {
    const mail = { data: { template, context } as { template: string; context: Record<string, unknown>; html?: string } };
    return new Promise((resolve, reject) => {
      try {
        const options = this.options;
        options.adapter!.compile(
          mail,
          (error?: unknown) => (error ? reject(error) : resolve(withInlinedCss(String(mail.data.html ?? '')))),
          {
            template: options,
          },
        );
      } catch (error) {
        reject(error); // the adapter throws (rather than calling back) for a template file it cannot read
      }
    });
  }
}

/**
 * The mail with the rules of its <style> elements (the adapter turns a template's local stylesheet links into
 * such elements) written into the style attributes of the elements they select, as mail clients need; a
 * mail without one as it is (css-inline would give the same text back).
 */
function withInlinedCss(html: string): string {
  if (!/<style/i.test(html)) return html;
  const { inline } = require('@css-inline/css-inline') as typeof import('@css-inline/css-inline');
  return inline(html);
}

@Module({ providers: [MailTemplates], exports: [MailTemplates] })
export class MailTemplatesModule {}
