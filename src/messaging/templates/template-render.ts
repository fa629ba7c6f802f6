import { MergeData, mergeHtml, mergeHtmlLines, mergeSubject, placeholderNames } from '../placeholders';
import { reservedEvent } from './order-mail-events';
import { htmlToText } from './template-markup';

/** A template merged with data: what a mail of it says, and which of its merge fields had a value. */
export interface RenderedTemplate {
  subject: string;
  html: string;
  text: string;
  /** Merge fields the template uses that the data filled, in order of first use (subject, then content). */
  usedFields: string[];
  /** Merge fields the template uses that the data did not fill: they stay as written (`[name]`). */
  missingFields: string[];
}

/**
 * Merges `template` with `data` the way its mail is merged: the subject as plain text on one line (at most 1000
 * characters), the content HTML-escaped (as /message/notification does; the service's own mails, whose values
 * may hold lines such as an order's items, with those line breaks as <br />), and the text part derived from
 * that HTML.
 */
export function renderTemplate(event: string, template: { subject: string; content: string }, data: MergeData): RenderedTemplate {
  const html = reservedEvent(event) ? mergeHtmlLines(template.content, data) : mergeHtml(template.content, data);
  const names = [...new Set([...placeholderNames(template.subject), ...placeholderNames(template.content)])];
  return {
    subject: mergeSubject(template.subject, data).slice(0, 1000),
    html,
    text: htmlToText(html),
    usedFields: names.filter((name) => Object.hasOwn(data, name)),
    missingFields: names.filter((name) => !Object.hasOwn(data, name)),
  };
}

/** Sample merge data for a preview: the event's own samples for a mail of the service, else `<name>` for each field used. */
export function sampleData(event: string, template: { subject: string; content: string }): MergeData {
  const reserved = reservedEvent(event);
  if (reserved) return { ...reserved.sample };
  const names = new Set([...placeholderNames(template.subject), ...placeholderNames(template.content)]);
  return Object.fromEntries([...names].map((name) => [name, `<${name}>`]));
}
