import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/request-context';
import { addressList, MergeData } from '../placeholders';
import { NotificationTemplate, NotificationTemplateRepository } from '../repositories/notification-template.repository';
import { renderTemplate } from './template-render';

/** A mail of the service merged from the app's own template. */
export interface OwnMail {
  subject: string;
  html: string;
  /** The plain-text part, derived from the HTML. */
  text: string;
  /** The template's `from`, when it has one. */
  from: string | null;
  /** The template's `bcc` addresses. */
  bcc: string[];
}

/**
 * The app's own templates of the service's mails (order-mail-events.ts): a mail writer asks for the app's
 * enabled templates of its events (one read) and merges the one it finds, else renders its default file.
 */
@Injectable()
export class TenantMailTemplates {
  constructor(private readonly templates: NotificationTemplateRepository) {}

  /** The app's enabled templates of `events`, by event (none: the defaults apply). */
  own(ctx: RequestContext, events: string[]): Promise<Map<string, NotificationTemplate>> {
    return this.templates.enabledOf(ctx, events);
  }

  /** `template` (of `event`) merged with `data`. */
  mail(event: string, template: NotificationTemplate, data: MergeData): OwnMail {
    const rendered = renderTemplate(event, template, data);
    return {
      subject: rendered.subject,
      html: rendered.html,
      text: rendered.text,
      from: template.from?.trim() || null,
      bcc: addressList(template.bcc),
    };
  }
}
