import { FindOptionsSelect } from 'typeorm';
import { Token } from './entities/token.entity';
import type { TokenStatus } from './token-transitions';

/** A token as the other modules see it (the orders module: orderStatus gift tokens, the confirmation mail). */
export interface TokenRow {
  id: number;
  token_value: string;
  product_id: number;
  customer_id: number | null;
  order_id: number;
  order_item_id: number;
  status: TokenStatus;
  expiry_date: Date | null;
  activations: number;
  maximum_activations: number;
  created_date: Date;
  last_activated: Date | null;
}

/** The columns of a TokenRow, for the query builder's select. */
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

/** The same columns for a repository's `find`. */
export const TOKEN_ROW_SELECT: FindOptionsSelect<Token> = Object.fromEntries(TOKEN_ROW_COLUMNS.map((c) => [c, true]));

/** The token row validateToken and activateToken answer with (SPEC: without order_item_id). */
export type PublicTokenRow = Omit<TokenRow, 'order_item_id'>;
/** A row of getCustomerTokens (SPEC: without customer_id and order_item_id). */
export type CustomerTokenRow = Omit<TokenRow, 'customer_id' | 'order_item_id'>;

export function tokenRow(row: Pick<Token, (typeof TOKEN_ROW_COLUMNS)[number]>): TokenRow {
  return {
    id: row.id,
    token_value: row.token_value,
    product_id: row.product_id,
    customer_id: row.customer_id,
    order_id: row.order_id,
    order_item_id: row.order_item_id,
    status: row.status,
    expiry_date: row.expiry_date,
    activations: row.activations,
    maximum_activations: row.maximum_activations,
    created_date: row.created_date,
    last_activated: row.last_activated,
  };
}

export function publicRow(row: TokenRow): PublicTokenRow {
  const { order_item_id: _item, ...shown } = row;
  return shown;
}

export function customerRow(row: TokenRow): CustomerTokenRow {
  const { order_item_id: _item, customer_id: _customer, ...shown } = row;
  return shown;
}
