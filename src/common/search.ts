import { Transform } from 'class-transformer';
import { TextField } from './dto-fields';

/*
 * The staff lists' free-text search (listOrders, /staff/customers): a term matches the start of an indexed,
 * lower-cased text column (`lower(col) LIKE 'term%'` over an index with text_pattern_ops, an index range
 * whatever the database's collation), never a substring, which no btree index can serve.
 */

/** A search term: trimmed, inner whitespace collapsed, blank means no search; at most 200 characters. */
export function SearchField(name: string, description: string): PropertyDecorator {
  return (target, key) => {
    TextField(name, 200, { doc: { description } })(target, key);
    Transform(({ value }) => (typeof value === 'string' ? value.trim().replace(/\s+/g, ' ') || undefined : value))(target, key);
  };
}

/** `term` as the pattern of a prefix LIKE, lower-cased (`%`, `_` and the escape character `\` taken literally). */
export function prefixPattern(term: string): string {
  return `${term.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The row id a search term names (`42`, `00000042`, `#42`), or null. */
export function idOfTerm(term: string): number | null {
  const match = /^#?(\d{1,10})$/.exec(term);
  const id = match ? Number(match[1]) : 0;
  return id >= 1 && id <= 2_147_483_647 ? id : null;
}
