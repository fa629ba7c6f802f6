import { Injectable } from '@nestjs/common';
import { SelectQueryBuilder } from 'typeorm';
import { TransactionalConnection } from '../database/transactional-connection';
import { TransactionScope } from '../database/transaction-scope';
import { RelatedLinks } from '../related';
import { ContentService } from '../versioning';
import { Token } from './entities/token.entity';
import { OWNERSHIP_LINK } from './token-issuer.service';
import { TOKEN_ROW_COLUMNS, TokenRow, tokenRow } from './token-rows';
import { fromStatuses, statusAfter, TOKEN_TRANSITIONS, TokenTransition, TokenTrigger } from './token-transitions';
import { TokenFailure, tokensError } from './tokens.errors';

/** A token as the checks read it: its row, whether its expiry_date has passed by the database's clock, and whether it is an unredeemed gift. */
interface TokenState {
  row: TokenRow;
  due: boolean;
  unredeemedGift: boolean;
}

type RawTokenState = TokenRow & { due: boolean; gift: boolean };

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

const ROW_SELECT = `SELECT ${TOKEN_ROW_COLUMNS.join(', ')}, gift, (expiry_date IS NOT NULL AND expiry_date <= now()) AS due FROM core_tokens`;
const READ_BY_VALUE = `${ROW_SELECT} WHERE token_value = $1 AND app_id = $2`;
const READ_BY_ID = `${ROW_SELECT} WHERE id = $1 AND app_id = $2`;

/** SQL: the token is an unredeemed gift (issued as a gift, no owner yet). Its JavaScript twin is `state`. */
const UNREDEEMED_GIFT = '(gift AND customer_id IS NULL)';

/** SQL: the condition under which the status table lets `trigger` change a token (its from-statuses, and whether it is an unredeemed gift). */
function applies(trigger: TokenTrigger): string {
  const { unredeemedGift }: TokenTransition = TOKEN_TRANSITIONS[trigger];
  const status = `status IN (${fromStatuses(trigger)
    .map((s) => `'${s}'`)
    .join(', ')})`; // the table's constants, never input
  return unredeemedGift === undefined ? status : `${status} AND ${unredeemedGift ? '' : 'NOT '}${UNREDEEMED_GIFT}`;
}

/** SQL: extendToken's new status; a status the table does not change (pending, gift_pending, active) stays. */
const EXTENDED_STATUS = `CASE WHEN ${applies('extendGift')} THEN '${TOKEN_TRANSITIONS.extendGift.to}' WHEN ${applies('extend')} THEN '${TOKEN_TRANSITIONS.extend.to}' ELSE status END`;

/**
 * The token endpoints' use cases (SPEC "Digital access tokens"). Every query names the app. Each status
 * change either is one conditional UPDATE whose WHERE holds every condition checked (from the transition
 * table), explained afterwards by re-reading the token when it changed nothing, or runs under the token's
 * row lock (redeem), so concurrent requests cannot both pass a check that only one may pass.
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
      const activated = await this.update(
        scope,
        appId,
        id,
        { activations: () => 'activations + 1', last_activated: () => 'now()', status: TOKEN_TRANSITIONS.activate.to },
        (qb) =>
          qb
            .andWhere(applies('activate'))
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
   * redeemToken, under the token's row lock: a concurrent redeem, extend or expire happens wholly before or
   * after it (a conditional UPDATE alone would find a row that an uncommitted extend is changing still
   * expired, and its explanation would read it extended). The gift moves to the customer with activations
   * 1 and status active, and gets the ownership link; of two customers at once the second finds it active.
   */
  async redeem(scope: TransactionScope, appId: number, customerId: number, tokenValue: string, productId?: number): Promise<RedeemOutcome> {
    return this.connection.inTransaction<RedeemOutcome>(scope, async () => {
      const token = await this.read(scope, appId, { tokenValue }, { lock: true });
      if (!token) return { ok: false, failure: 'TOKEN_NOT_FOUND' };
      const master = await this.masterOf(scope, appId, token.row);
      if (master === null) return { ok: false, failure: 'PRODUCT_VERSION_NOT_FOUND' };
      if (productId !== undefined && master !== productId) return { ok: false, failure: 'TOKEN_NOT_FOUND' };
      const refusal = redeemRefusal(token);
      if (refusal) return { ok: false, failure: refusal };
      const set = { customer_id: customerId, activations: 1, last_activated: () => 'now()', status: TOKEN_TRANSITIONS.redeem.to };
      const { id, token_value, status, activations } = (await this.update(scope, appId, token.row.id, set))!;
      await this.links.insert(scope, {
        app_id: appId,
        parent_table: 'core_customers',
        parent_id: customerId,
        name: OWNERSHIP_LINK,
        linked: id,
        master_id: customerId,
      });
      return { ok: true, token: { id, token_value, customer_id: customerId, status, activations, master_product_id: master } };
    });
  }

  /** expireToken: any status becomes expired. 404 for a token that is not the app's. */
  async expire(scope: TransactionScope, appId: number, tokenId: number): Promise<TokenRow> {
    const expired = await this.update(scope, appId, tokenId, { status: TOKEN_TRANSITIONS.expire.to }, (qb) =>
      qb.andWhere(applies('expire')),
    );
    if (!expired) throw tokensError('UNKNOWN_TOKEN', { body: { data: null } });
    return expired;
  }

  /**
   * extendToken: expiry = the later of now and the expiry (now when it had none), plus `days`; an expired
   * token becomes active, or gift_pending when it is an unredeemed gift. One UPDATE: the status is decided
   * on the row it changes.
   */
  async extend(scope: TransactionScope, appId: number, tokenId: number, days: number): Promise<TokenRow> {
    const extended = await this.update(
      scope,
      appId,
      tokenId,
      { expiry_date: () => 'GREATEST(now(), expiry_date) + make_interval(days => :days)', status: () => EXTENDED_STATUS },
      (qb) => qb.setParameter('days', days),
    );
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
        qb.andWhere(applies('reachExpiry')).andWhere('expiry_date <= now()'),
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
    const rows = await this.select(scope, appId)
      .andWhere('t.customer_id = :customerId', { customerId })
      .orderBy('t.id', 'ASC')
      .getRawMany<RawTokenState>();
    return rows.map(state);
  }

  /**
   * The app's token by value or by id (`lock`: FOR UPDATE, for the caller's transaction). Raw SQL:
   * validateToken's hot path (measured: building this select with the query builder took ~10% of the
   * service's CPU per validation); the statement is fixed text.
   */
  private async read(
    scope: TransactionScope,
    appId: number,
    key: { tokenValue: string } | { id: number },
    { lock = false } = {},
  ): Promise<TokenState | null> {
    const [sql, value] = 'id' in key ? [READ_BY_ID, key.id] : [READ_BY_VALUE, key.tokenValue];
    const rows: RawTokenState[] = await this.connection.manager(scope).query(lock ? `${sql} FOR UPDATE` : sql, [value, appId]);
    return rows[0] ? state(rows[0]) : null;
  }

  private select(scope: TransactionScope, appId: number): SelectQueryBuilder<Token> {
    const qb = this.connection.repository(scope, Token).createQueryBuilder('t').select([]);
    for (const column of TOKEN_ROW_COLUMNS) qb.addSelect(`t.${column}`, column);
    return qb
      .addSelect('t.gift', 'gift')
      .addSelect('(t.expiry_date IS NOT NULL AND t.expiry_date <= now())', 'due')
      .where('t.app_id = :appId', { appId });
  }

  /** One UPDATE of the app's token `id`, with `conditions` added to its WHERE; the row it leaves, or null when it matched nothing. */
  private async update(
    scope: TransactionScope,
    appId: number,
    id: number,
    set: Parameters<ReturnType<SelectQueryBuilder<Token>['update']>['set']>[0],
    conditions: (qb: ReturnType<ReturnType<SelectQueryBuilder<Token>['update']>['set']>) => unknown = () => undefined,
  ): Promise<TokenRow | null> {
    const qb = this.connection
      .repository(scope, Token)
      .createQueryBuilder()
      .update()
      .set(set)
      .where('id = :id AND app_id = :appId', { id, appId });
    conditions(qb);
    const result = await qb
      .returning([...TOKEN_ROW_COLUMNS])
      .updateEntity(false)
      .execute();
    const rows = result.raw as TokenRow[];
    return rows[0] ? tokenRow(rows[0]) : null;
  }
}

function state(raw: RawTokenState): TokenState {
  return { row: tokenRow(raw), due: raw.due === true, unredeemedGift: raw.gift === true && raw.customer_id === null };
}

/** Why redeemToken refuses the token, or null when it may redeem it. */
function redeemRefusal({ row, due, unredeemedGift }: TokenState): TokenFailure | null {
  if (statusAfter('redeem', row.status, unredeemedGift) === null)
    return row.status === 'expired' && unredeemedGift ? 'TOKEN_EXPIRED' : 'NOT_A_GIFT';
  if (due) return 'TOKEN_EXPIRED';
  if (row.activations >= row.maximum_activations) return 'ACTIVATION_LIMIT';
  return null;
}
