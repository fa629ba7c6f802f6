import { FindOptionsSelect } from 'typeorm';
import { Token } from './entities/token.entity';

/**
 * The core_tokens columns of a token as the other modules and the answers see it, in the order the answers
 * list them. The one list of them: the row's type, every select and RETURNING, and the copies below derive from it.
 */
export const TOKEN_ROW_COLUMNS = [
  'id',
  'token_value',
  'product_id',
  'customer_id',
  'order_id',
  'order_item_id',
  'status',
  'expiry_date',
  'activations',
  'maximum_activations',
  'created_date',
  'last_activated',
] as const satisfies readonly (keyof Token)[];

export type TokenRowColumn = (typeof TOKEN_ROW_COLUMNS)[number];

/** A token as the other modules see it (the orders module: orderStatus gift tokens, the confirmation mail): the entity's row columns. */
export type TokenRow = Pick<Token, TokenRowColumn>;

/** The same columns for a repository's `find`. */
export const TOKEN_ROW_SELECT: FindOptionsSelect<Token> = Object.fromEntries(TOKEN_ROW_COLUMNS.map((c) => [c, true]));

/** What validateToken and activateToken leave out of a row. */
export const PUBLIC_HIDDEN = ['order_item_id'] as const satisfies readonly TokenRowColumn[];
/** What getCustomerTokens leaves out of a row: the customer is the caller. */
export const CUSTOMER_HIDDEN = ['customer_id', 'order_item_id'] as const satisfies readonly TokenRowColumn[];

const PUBLIC_COLUMNS = shownColumns(PUBLIC_HIDDEN);
const CUSTOMER_COLUMNS = shownColumns(CUSTOMER_HIDDEN);

/** The token row validateToken and activateToken answer with. */
export type PublicTokenRow = Omit<TokenRow, (typeof PUBLIC_HIDDEN)[number]>;
/** A row of getCustomerTokens. */
export type CustomerTokenRow = Omit<TokenRow, (typeof CUSTOMER_HIDDEN)[number]>;

/** The row's columns of `row` (a raw row may carry more: gift, due, item_unit), in TOKEN_ROW_COLUMNS' order. */
export function tokenRow(row: TokenRow): TokenRow {
  return copied(row, TOKEN_ROW_COLUMNS) as TokenRow;
}

export function publicRow(row: TokenRow): PublicTokenRow {
  return copied(row, PUBLIC_COLUMNS) as PublicTokenRow;
}

export function customerRow(row: TokenRow): CustomerTokenRow {
  return copied(row, CUSTOMER_COLUMNS) as CustomerTokenRow;
}

/** The row's columns without `hidden`, in order: what an answer lists (also in the OpenAPI descriptions). */
export function shownColumns(hidden: readonly TokenRowColumn[]): TokenRowColumn[] {
  return TOKEN_ROW_COLUMNS.filter((column) => !hidden.includes(column));
}

function copied(row: TokenRow, columns: readonly TokenRowColumn[]): Partial<TokenRow> {
  const copy: Partial<Record<TokenRowColumn, unknown>> = {};
  for (const column of columns) copy[column] = row[column];
  return copy as Partial<TokenRow>;
}
