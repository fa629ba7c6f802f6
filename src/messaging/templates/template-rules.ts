import { ApiError } from '../../common/api-error';
import { FieldError } from '../../common/envelope';
import { addressList, isEmailAddress, placeholderNames } from '../placeholders';
import { checkMarkup, MarkupError } from './template-markup';
import { reservedEvent } from './order-mail-events';

/** Limits of a template's fields (docs/messaging.md "Templates per tenant"). */
export const TEMPLATE_LIMITS = { event: 100, subject: 500, content: 50_000, from: 320, bcc: 2000 } as const;

/** An event name: a letter, then letters, digits, `_`, `.` or `-`, at most 100 in all. */
export const EVENT_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,99}$/;

export interface TemplateText {
  event: string;
  subject: string;
  content: string;
  from: string | null;
  bcc: string | null;
}

/**
 * The checks of a template when it is saved, every failing field named (400 `Validation error`): the event
 * name's shape; sizes; the subject on one line; the content's markup balanced (template-markup.ts); for an
 * event of the service's own mails (order-mail-events.ts) only the merge fields that mail fills; `from` one
 * address and `bcc` a list of addresses.
 */
export function checkTemplate(template: TemplateText): void {
  const errors: FieldError[] = [];
  const fail = (field: string, message: string) => errors.push({ field, message });
  if (!EVENT_NAME.test(template.event))
    fail('event', 'event must start with a letter and hold only letters, digits, _, . and - (at most 100 characters)');
  if (template.subject.length > TEMPLATE_LIMITS.subject) fail('subject', `subject must be at most ${TEMPLATE_LIMITS.subject} characters`);
  else if (!template.subject.trim()) fail('subject', 'subject must not be empty');
  else if (/[\r\n]/.test(template.subject)) fail('subject', 'subject must be one line');
  if (template.content.length > TEMPLATE_LIMITS.content) fail('content', `content must be at most ${TEMPLATE_LIMITS.content} characters`);
  else if (!template.content.trim()) fail('content', 'content must not be empty');
  else {
    try {
      checkMarkup(template.content);
    } catch (error) {
      if (!(error instanceof MarkupError)) throw error;
      fail('content', `content has unbalanced markup: ${error.message}`);
    }
  }
  const reserved = reservedEvent(template.event);
  if (reserved) {
    for (const field of ['subject', 'content'] as const) {
      const unknown = placeholderNames(template[field]).filter((name) => !Object.hasOwn(reserved.fields, name));
      if (unknown.length)
        fail(
          field,
          `${field} uses unknown merge field${unknown.length > 1 ? 's' : ''} ${unknown.map((name) => `[${name}]`).join(', ')}; ` +
            `${template.event} has ${Object.keys(reserved.fields)
              .map((name) => `[${name}]`)
              .join(', ')}`,
        );
    }
  }
  if (template.from !== null && template.from.trim() && !isEmailAddress(template.from.trim()))
    fail('from', 'from must be an email address');
  if (template.bcc !== null && template.bcc.trim()) {
    const entries = template.bcc
      .split(/[,;]/)
      .map((entry) => entry.trim())
      .filter(Boolean);
    const invalid = entries.filter((entry) => !isEmailAddress(entry));
    if (invalid.length || addressList(template.bcc).length === 0)
      fail('bcc', `bcc must be email addresses separated by , or ; (not: ${invalid.slice(0, 3).join(', ')})`);
  }
  if (errors.length) throw ApiError.validation(errors);
}
