/** Merge values for `[fieldname]` placeholders in a template's subject and content (docs/messaging.md "POST /message/notification"). */
export type MergeData = Record<string, unknown>;

const PLACEHOLDER = /\[([A-Za-z0-9_.-]{1,100})\]/g;

/** Subject lines are plain text: values go in as text, without line breaks (no header injection). */
export function mergeSubject(template: string, data: MergeData): string {
  return merge(template, data, (v) => v).replace(/[\r\n]+/g, ' ');
}

/** Content is HTML: values are escaped so merge data cannot inject markup. */
export function mergeHtml(template: string, data: MergeData): string {
  return merge(template, data, escapeHtml);
}

/** The placeholder names `template` uses, each once, in the order they first appear. */
export function placeholderNames(template: string): string[] {
  return [...new Set(Array.from(template.matchAll(PLACEHOLDER), (match) => match[1]))];
}

/** As mergeHtml, with the line breaks of values written as `<br />` (a list given as lines, such as an order's items). */
export function mergeHtmlLines(template: string, data: MergeData): string {
  return merge(template, data, (value) => escapeHtml(value).replace(/\r?\n/g, '<br />\n'));
}

/** A placeholder without a value stays as written, so a missing field is visible rather than silently blank. */
function merge(template: string, data: MergeData, encode: (value: string) => string): string {
  return template.replace(PLACEHOLDER, (whole, name: string) => (Object.hasOwn(data, name) ? encode(asText(data[name])) : whole));
}

/** NUL cannot be stored in PostgreSQL text (and has no place in a mail): dropped from merged values. */
function asText(value: unknown): string {
  return toText(value).replace(/\u0000/g, '');
}

function toText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') {
    try {
      return JSON.stringify(value) ?? '';
    } catch {
      return ''; // too deep to print
    }
  }
  return String(value);
}

export function escapeHtml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const EMAIL = /^[^\s@<>,;:"()[\]\\]+@[^\s@<>,;:"()[\]\\]+\.[^\s@<>,;:"()[\]\\]+$/;

export function isEmailAddress(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 320 && EMAIL.test(value);
}

/** Addresses in a comma/semicolon separated list (the template's `bcc`), invalid entries dropped. */
export function addressList(value: string | null | undefined): string[] {
  if (!value) return [];
  return value
    .split(/[,;]/)
    .map((a) => a.trim())
    .filter(isEmailAddress);
}
