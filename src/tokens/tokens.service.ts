import { Injectable } from '@nestjs/common';
import { SelectQueryBuilder } from 'typeorm';
import { TransactionalConnection } from '../database/transactional-connection';
import { TransactionScope } from '../database/transaction-scope';
import { RelatedLinks } from '../related';
import { ContentService } from '../versioning';
import { Token } from './entities/token.entity';
import { OWNERSHIP_LINK } from './token-issuer.service';
import { TOKEN_ROW_COLUMNS, TokenRow, tokenRow } from './token-rows';
import { fromStatuses, TOKEN_TRANSITIONS } from './token-transitions';
import { TokenFailure, tokensError } from './tokens.errors';

/** A token as the checks read it: its row, and whether its expiry_date has passed by the database's clock. */
interface TokenState {
  row: TokenRow;
  due: boolean;
}

export type TokenOutcome = { ok: true; row: TokenRow } | { ok: false; failure: TokenFailure; row: TokenRow | null };

export interface RedeemedToken {
  id: number;
  token_value: string;
  customer_id: number;
  status: TokenRow['status'];
  activations: number;
  master_product_id: number;
}

export type RedeemOutcome = { ok: true; token: RedeemedToken } | { ok: false; failure: TokenFailure };

const PRODUCTS = 'core_products';
/** How often a check re-reads a token that changed under it before answering 'Error validating token'. */
const REREADS = 2;
/** Mappings masterOf keeps before it starts over. */
const MASTER_CACHE_SIZE = 10_000;

const ROW_SELECT = `SELECT ${TOKEN_ROW_COLUMNS.join(', ')}, (expiry_date IS NOT NULL AND expiry_date <= now()) AS due FROM core_tokens`;
const READ_BY_VALUE = `${ROW_SELECT} WHERE token_value = $1 AND app_id = $2`;
const READ_BY_ID = `${ROW_SELECT} WHERE id = $1 AND app_id = $2`;

/**
 * The token endpoints' use cases (SPEC "Digital access tokens"). Every query names the app. Status changes
 * are single conditional UPDATEs whose WHERE comes from the transition table, so concurrent activations or
 * redemptions cannot both pass a check that only one may pass; a failed UPDATE is explained afterwards by
 * re-reading the token.
 */
@Injectable()
export class TokensService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly content: ContentService,
    private readonly links: RelatedLinks,
  ) {}

  /** Product version id → master id, per app (see masterOf). */
  private readonly masters = new Map<string, number>();

  /** validateToken mode 1: the checks of the spec, in its order, on the token `tokenValue` for the product `productId` (a master id). */
  async validate(scope: TransactionScope, appId: number, tokenValue: string, productId: number): Promise<TokenOutcome> {
    const token = await this.read(scope, appId, { tokenValue });
    const product = await this.checkProduct(scope, appId, token, productId);
    if (!product.ok) return product;
    return this.checkState(scope, appId, token!);
  }

  /**
   * validateToken mode 2: a token of the customer for the product that passes the checks (the oldest
   * first). None of the product: 'No valid token found for customer and product'; some, none valid: the
   * failure of the newest, with its row.
   */
  async validateForCustomer(scope: TransactionScope, appId: number, customerId: number, productId: number): Promise<TokenOutcome> {
    const candidates = await this.ofProduct(scope, appId, await this.ofCustomer(scope, appId, customerId), productId);
    let outcome: TokenOutcome = { ok: false, failure: 'NO_CUSTOMER_TOKEN', row: null };
    for (const token of candidates) {
      outcome = await this.checkState(scope, appId, token);
      if (outcome.ok) return outcome;
    }
    return outcome;
  }

  /**
   * activateToken: the product check, then validation and increment in one conditional UPDATE (status
   * pending or active, not expired by date, activations below the maximum). When it changes nothing, the
   * token is re-read to say why (and turned `expired` when its date passed).
   */
  async activate(scope: TransactionScope, appId: number, tokenValue: string, productId: number): Promise<TokenOutcome> {
    const token = await this.read(scope, appId, { tokenValue });
    const product = await this.checkProduct(scope, appId, token, productId);
    if (!product.ok) return product;
    const id = token!.row.id;
    for (let attempt = 0; attempt <= REREADS; attempt++) {
      const activated = await this.update(scope, appId, id, { activations: () => 'activations + 1', last_activated: () => 'now()', status: TOKEN_TRANSITIONS.activate.to }, (qb) =>
        qb
          .andWhere('status IN (:...from)', { from: fromStatuses('activate') })
          .andWhere('(expiry_date IS NULL OR expiry_date > now())')
          .andWhere('activations < maximum_activations'),
      );
      if (activated) return { ok: true, row: activated };
      const now = await this.read(scope, appId, { id });
      if (!now) return { ok: false, failure: 'TOKEN_NOT_FOUND', row: null };
      const why = await this.checkState(scope, appId, now);
      if (!why.ok) return why;
      // It passes now: it changed between the UPDATE and the read (extended, say). Try again.
    }
    return { ok: false, failure: 'VALIDATION_FAILED', row: null };
  }

  /**
   * redeemToken: one conditional UPDATE moves a gift_pending token (not expired by date, below its
   * maximum) to the customer with activations 1 and status active, then writes the ownership link. Of two
   * customers redeeming one gift at once, the second UPDATE finds it active and changes nothing.
   */
  async redeem(scope: TransactionScope, appId: number, customerId: number, tokenValue: string, productId?: number): Promise<RedeemOutcome> {
    const token = await this.read(scope, appId, { tokenValue });
    if (!token) return { ok: false, failure: 'TOKEN_NOT_FOUND' };
    const master = await this.masterOf(scope, appId, token.row);
    if (master === null) return { ok: false, failure: 'PRODUCT_VERSION_NOT_FOUND' };
    if (productId !== undefined && master !== productId) return { ok: false, failure: 'TOKEN_NOT_FOUND' };
    const redeemed = await this.update(
      scope,
      appId,
      token.row.id,
      { customer_id: customerId, activations: 1, last_activated: () => 'now()', status: TOKEN_TRANSITIONS.redeem.to },
      (qb) =>
        qb
          .andWhere('status IN (:...from)', { from: fromStatuses('redeem') })
          .andWhere('(expiry_date IS NULL OR expiry_date > now())')
          .andWhere('activations < maximum_activations'),
    );
    if (redeemed) {
      await this.links.insert(scope, { app_id: appId, parent_table: 'core_customers', parent_id: customerId, name: OWNERSHIP_LINK, linked: redeemed.id, master_id: customerId });
      const { id, token_value, status, activations } = redeemed;
      return { ok: true, token: { id, token_value, customer_id: customerId, status, activations, master_product_id: master } };
    }
    const now = await this.read(scope, appId, { id: token.row.id });
    if (!now) return { ok: false, failure: 'TOKEN_NOT_FOUND' };
    if (!fromStatuses('redeem').includes(now.row.status)) return { ok: false, failure: 'NOT_A_GIFT' };
    if (now.due) return { ok: false, failure: 'TOKEN_EXPIRED' };
    if (now.row.activations >= now.row.maximum_activations) return { ok: false, failure: 'ACTIVATION_LIMIT' };
    return { ok: false, failure: 'VALIDATION_FAILED' };
  }

  /** expireToken: any status becomes expired. 404 for a token that is not the app's. */
  async expire(scope: TransactionScope, appId: number, tokenId: number): Promise<TokenRow> {
    const expired = await this.update(scope, appId, tokenId, { status: TOKEN_TRANSITIONS.expire.to }, (qb) => qb.andWhere('status IN (:...from)', { from: fromStatuses('expire') }));
    if (!expired) throw tokensError('UNKNOWN_TOKEN', { body: { data: null } });
    return expired;
  }

  /** extendToken: expiry = the later of now and the expiry (now when it had none), plus `days`; an expired token becomes active. */
  async extend(scope: TransactionScope, appId: number, tokenId: number, days: number): Promise<TokenRow> {
    const extended = await this.update(scope, appId, tokenId, {
      expiry_date: () => 'GREATEST(now(), expiry_date) + make_interval(days => :days)',
      status: () => 'CASE WHEN status IN (:...extendFrom) THEN :extendTo ELSE status END',
    }, (qb) => qb.setParameters({ days, extendFrom: fromStatuses('extend'), extendTo: TOKEN_TRANSITIONS.extend.to }));
    if (!extended) throw tokensError('UNKNOWN_TOKEN', { body: { data: null } });
    return extended;
  }

  /** getToken: the app's token `id`, or 404. */
  async get(scope: TransactionScope, appId: number, id: number): Promise<TokenRow> {
    const token = await this.read(scope, appId, { id });
    if (!token) throw tokensError('UNKNOWN_TOKEN', { body: { data: null } });
    return token.row;
  }

  /** getCustomerTokens: the customer's tokens of the app, oldest first, of the product `productId` (a master id) when given. */
  async customerTokens(scope: TransactionScope, appId: number, customerId: number, productId?: number): Promise<TokenRow[]> {
    const tokens = await this.ofCustomer(scope, appId, customerId);
    return (productId === undefined ? tokens : await this.ofProduct(scope, appId, tokens, productId)).map((t) => t.row);
  }

  /** The checks after the product's: not gift_pending, not expired, expiry not passed (then it becomes expired), activations below the maximum. */
  private async checkState(scope: TransactionScope, appId: number, token: TokenState, rereads = REREADS): Promise<TokenOutcome> {
    const { row } = token;
    if (row.status === 'gift_pending') return { ok: false, failure: 'GIFT_NOT_REDEEMED', row };
    if (row.status === 'expired') return { ok: false, failure: 'TOKEN_EXPIRED', row };
    if (token.due) {
      const expired = await this.update(scope, appId, row.id, { status: TOKEN_TRANSITIONS.reachExpiry.to }, (qb) =>
        qb.andWhere('status IN (:...from)', { from: fromStatuses('reachExpiry') }).andWhere('expiry_date <= now()'),
      );
      if (expired) return { ok: false, failure: 'TOKEN_EXPIRED', row: expired };
      // Changed under us (expired, extended or activated meanwhile): check it as it is now.
      const now = await this.read(scope, appId, { id: row.id });
      if (!now) return { ok: false, failure: 'TOKEN_NOT_FOUND', row: null };
      if (rereads === 0) return { ok: false, failure: 'VALIDATION_FAILED', row: now.row };
      return this.checkState(scope, appId, now, rereads - 1);
    }
    if (row.activations >= row.maximum_activations) return { ok: false, failure: 'ACTIVATION_LIMIT', row };
    return { ok: true, row };
  }

  /** The token exists and its product version maps to the master id `productId`. A token of another product is 'Token not found'. */
  private async checkProduct(scope: TransactionScope, appId: number, token: TokenState | null, productId: number): Promise<TokenOutcome> {
    if (!token) return { ok: false, failure: 'TOKEN_NOT_FOUND', row: null };
    const master = await this.masterOf(scope, appId, token.row);
    if (master === null) return { ok: false, failure: 'PRODUCT_VERSION_NOT_FOUND', row: token.row };
    if (master !== productId) return { ok: false, failure: 'TOKEN_NOT_FOUND', row: null };
    return { ok: true, row: token.row };
  }

  /**
   * The product master id of the token's product version (core_data, source_table core_products), or null.
   * A version row never changes its record, so a found mapping is kept (per app and version, bounded):
   * validateToken's hot path then costs one query for the token instead of two. Misses are not kept.
   */
  private async masterOf(scope: TransactionScope, appId: number, row: TokenRow): Promise<number | null> {
    const key = `${appId}:${row.product_id}`;
    const known = this.masters.get(key);
    if (known !== undefined) return known;
    const master = await this.content.masterIdOf(scope, appId, PRODUCTS, row.product_id);
    if (master !== null) {
      if (this.masters.size >= MASTER_CACHE_SIZE) this.masters.clear();
      this.masters.set(key, master);
    }
    return master;
  }

  /** The tokens whose product version maps to the master id `productId`. */
  private async ofProduct(scope: TransactionScope, appId: number, tokens: TokenState[], productId: number): Promise<TokenState[]> {
    const masters = new Map<number, number | null>();
    const out: TokenState[] = [];
    for (const token of tokens) {
      const version = token.row.product_id;
      if (!masters.has(version)) masters.set(version, await this.masterOf(scope, appId, token.row));
      if (masters.get(version) === productId) out.push(token);
    }
    return out;
  }

  private async ofCustomer(scope: TransactionScope, appId: number, customerId: number): Promise<TokenState[]> {
    const rows = await this.select(scope, appId).andWhere('t.customer_id = :customerId', { customerId }).orderBy('t.id', 'ASC').getRawMany<TokenRow & { due: boolean }>();
    return rows.map(state);
  }

  /**
   * The app's token by value or by id. Raw SQL: validateToken's hot path (measured: building this select
   * with the query builder took ~10% of the service's CPU per validation); the statement is fixed text.
   */
  private async read(scope: TransactionScope, appId: number, key: { tokenValue: string } | { id: number }): Promise<TokenState | null> {
    const [sql, value] = 'id' in key ? [READ_BY_ID, key.id] : [READ_BY_VALUE, key.tokenValue];
    const rows: (TokenRow & { due: boolean })[] = await this.connection.manager(scope).query(sql, [value, appId]);
    return rows[0] ? state(rows[0]) : null;
  }

  private select(scope: TransactionScope, appId: number): SelectQueryBuilder<Token> {
    const qb = this.connection.repository(scope, Token).createQueryBuilder('t').select([]);
    for (const column of TOKEN_ROW_COLUMNS) qb.addSelect(`t.${column}`, column);
    return qb.addSelect('(t.expiry_date IS NOT NULL AND t.expiry_date <= now())', 'due').where('t.app_id = :appId', { appId });
  }

  /** One conditional UPDATE of the app's token `id`; the row it leaves, or null when its conditions matched nothing. */
  private async update(
    scope: TransactionScope,
    appId: number,
    id: number,
    set: Parameters<ReturnType<SelectQueryBuilder<Token>['update']>['set']>[0],
    conditions: (qb: ReturnType<ReturnType<SelectQueryBuilder<Token>['update']>['set']>) => unknown,
  ): Promise<TokenRow | null> {
    const qb = this.connection.repository(scope, Token).createQueryBuilder().update().set(set).where('id = :id AND app_id = :appId', { id, appId });
    conditions(qb);
    const result = await qb.returning([...TOKEN_ROW_COLUMNS]).updateEntity(false).execute();
    const rows = result.raw as TokenRow[];
    return rows[0] ? tokenRow(rows[0]) : null;
  }
}

function state(raw: TokenRow & { due: boolean }): TokenState {
  return { row: tokenRow(raw), due: raw.due === true };
}
