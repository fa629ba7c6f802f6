/*
 * A small HTML tokenizer for the staff's mail templates (docs/messaging.md "Templates per tenant"): enough of
 * HTML's syntax (tags with quoted attributes, comments, doctype, raw-text elements, void elements and the end
 * tags HTML lets a writer omit) to refuse markup that is not balanced when a template is saved, and to derive
 * the plain-text part of a mail from its HTML.
 */

/** Elements that never have content or an end tag. */
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
/** Elements whose end tag HTML lets a writer leave out: closed by their parent's end tag or the document's end. */
const OPTIONAL_END = new Set([
  'html',
  'head',
  'body',
  'p',
  'li',
  'dt',
  'dd',
  'tr',
  'td',
  'th',
  'thead',
  'tbody',
  'tfoot',
  'option',
  'colgroup',
]);
/** Elements whose content is text up to their own end tag. */
const RAW_TEXT = new Set(['script', 'style', 'title', 'textarea']);
const NAME = /^[A-Za-z][A-Za-z0-9-]*/;

type Token =
  | { kind: 'text'; text: string }
  | { kind: 'open'; name: string; attributes: Record<string, string>; line: number; selfClosing: boolean }
  | { kind: 'close'; name: string; line: number }
  | { kind: 'raw'; name: string; text: string };

/** A markup problem, with the 1-based line where it starts. */
export class MarkupError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`${message} (line ${line})`);
  }
}

function lineAt(source: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (source.charCodeAt(i) === 10) line++;
  return line;
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let text = '';
  const flush = () => {
    if (text) tokens.push({ kind: 'text', text });
    text = '';
  };
  while (i < source.length) {
    const c = source[i];
    if (c !== '<') {
      text += c;
      i++;
      continue;
    }
    if (source.startsWith('<!--', i)) {
      const end = source.indexOf('-->', i + 4);
      if (end < 0) throw new MarkupError('Comment <!-- is never closed with -->', lineAt(source, i));
      flush();
      i = end + 3;
      continue;
    }
    if (source[i + 1] === '!' || source[i + 1] === '?') {
      const end = source.indexOf('>', i);
      if (end < 0) throw new MarkupError('Declaration <! is never closed with >', lineAt(source, i));
      flush();
      i = end + 1;
      continue;
    }
    if (source[i + 1] === '/') {
      const name = NAME.exec(source.slice(i + 2, i + 102))?.[0];
      if (!name) throw new MarkupError('An end tag "</" without an element name', lineAt(source, i));
      const end = source.indexOf('>', i);
      if (end < 0 || /[<]/.test(source.slice(i + 2, end)))
        throw new MarkupError(`End tag </${name} is never closed with >`, lineAt(source, i));
      flush();
      tokens.push({ kind: 'close', name: name.toLowerCase(), line: lineAt(source, i) });
      i = end + 1;
      continue;
    }
    const name = NAME.exec(source.slice(i + 1, i + 101))?.[0];
    if (!name) {
      text += c; // a lone "<" (as in "a < b") is text
      i++;
      continue;
    }
    const start = i;
    const attributes: Record<string, string> = {};
    i += 1 + name.length;
    let closed = false;
    let selfClosing = false;
    while (i < source.length) {
      const ch = source[i];
      if (ch === '>') {
        closed = true;
        i++;
        break;
      }
      if (ch === '/' && source[i + 1] === '>') {
        closed = selfClosing = true;
        i += 2;
        break;
      }
      if (ch === '<') break;
      if (/\s/.test(ch)) {
        i++;
        continue;
      }
      const attribute = /^[^\s"'<>/=]+/.exec(source.slice(i, i + 200))?.[0];
      if (!attribute) throw new MarkupError(`Tag <${name} has a malformed attribute`, lineAt(source, i));
      i += attribute.length;
      while (/\s/.test(source[i] ?? '')) i++;
      let value = '';
      if (source[i] === '=') {
        i++;
        while (/\s/.test(source[i] ?? '')) i++;
        const quote = source[i];
        if (quote === '"' || quote === "'") {
          const end = source.indexOf(quote, i + 1);
          if (end < 0) throw new MarkupError(`Attribute ${attribute} of <${name}> has an unclosed quote`, lineAt(source, i));
          value = source.slice(i + 1, end);
          i = end + 1;
        } else {
          value = /^[^\s>]*/.exec(source.slice(i))![0];
          i += value.length;
        }
      }
      attributes[attribute.toLowerCase()] = value;
    }
    if (!closed) throw new MarkupError(`Tag <${name} is never closed with >`, lineAt(source, start));
    flush();
    const lower = name.toLowerCase();
    tokens.push({ kind: 'open', name: lower, attributes, line: lineAt(source, start), selfClosing });
    if (RAW_TEXT.has(lower) && !selfClosing) {
      const end = source.toLowerCase().indexOf(`</${lower}`, i);
      if (end < 0) throw new MarkupError(`<${lower}> is never closed`, lineAt(source, start));
      tokens.push({ kind: 'raw', name: lower, text: source.slice(i, end) });
      i = end;
    }
  }
  flush();
  return tokens;
}

/**
 * Throws a MarkupError when `html` is not balanced: a tag or comment never closed, an end tag that closes an
 * element other than the one open (`<p><b>Hi</p>`), an end tag nothing opened, or an element left open at the
 * end (other than those whose end tag HTML makes optional, such as <p>, <li> and <td>).
 */
export function checkMarkup(html: string): void {
  const open: { name: string; line: number }[] = [];
  for (const token of tokenize(html)) {
    if (token.kind === 'open') {
      if (!VOID.has(token.name) && !token.selfClosing) open.push({ name: token.name, line: token.line });
    } else if (token.kind === 'close') {
      if (VOID.has(token.name)) continue; // </br> and the like: harmless
      const at = open.map((element) => element.name).lastIndexOf(token.name);
      if (at < 0) throw new MarkupError(`</${token.name}> closes an element that is not open`, token.line);
      for (const inner of open.slice(at + 1).reverse())
        if (!OPTIONAL_END.has(inner.name))
          throw new MarkupError(`</${token.name}> comes before <${inner.name}> (opened on line ${inner.line}) is closed`, token.line);
      open.length = at;
    }
  }
  const unclosed = open.reverse().find((element) => !OPTIONAL_END.has(element.name));
  if (unclosed) throw new MarkupError(`<${unclosed.name}> is never closed`, unclosed.line);
}

const BLOCK = new Set([
  'address',
  'article',
  'blockquote',
  'div',
  'dl',
  'dt',
  'dd',
  'footer',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'li',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'tr',
  'ul',
]);
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', copy: '©', reg: '®', middot: '·' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});/gi, (whole, entity: string) => {
    if (entity[0] === '#') {
      const code = entity[1] === 'x' || entity[1] === 'X' ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[entity.toLowerCase()] ?? whole;
  });
}

/**
 * The plain-text part of a mail whose HTML is `html`: the text with its whitespace collapsed, a line break for
 * <br> and around block elements, table cells separated by tabs, a link's address after its text when they
 * differ; scripts, styles and the head left out. Markup it cannot read gives the text with the tags removed.
 */
export function htmlToText(html: string): string {
  let tokens: Token[];
  try {
    tokens = tokenize(html);
  } catch {
    return decodeEntities(html.replace(/<[^>]*>/g, ' '))
      .replace(/\s+/g, ' ')
      .trim();
  }
  let out = '';
  const links: string[] = [];
  let linkText = '';
  let hidden = 0;
  for (const token of tokens) {
    if (token.kind === 'raw') continue;
    if (token.kind === 'text') {
      if (hidden) continue;
      const text = decodeEntities(token.text.replace(/\s+/g, ' '));
      out += text;
      if (links.length) linkText += text;
    } else if (token.kind === 'open') {
      if (token.name === 'head' && !token.selfClosing) hidden++;
      else if (token.name === 'br') out += '\n';
      else if (BLOCK.has(token.name)) out += '\n';
      else if (token.name === 'td' || token.name === 'th') out += '\t';
      else if (token.name === 'a' && !token.selfClosing) {
        links.push(token.attributes.href ?? '');
        linkText = '';
      }
    } else {
      if (token.name === 'head') hidden = Math.max(0, hidden - 1);
      else if (BLOCK.has(token.name)) out += '\n';
      else if (token.name === 'a' && links.length) {
        const href = links.pop()!;
        if (href && !/^(mailto:|#)/i.test(href) && linkText.trim() !== href) out += ` (${href})`;
      }
    }
  }
  return out
    .split('\n')
    .map((line) => line.replace(/[ ]+/g, ' ').replace(/^[ \t]+|[ \t]+$/g, ''))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
