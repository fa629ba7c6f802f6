import { Injectable } from '@nestjs/common';
import { In, QueryDeepPartialEntity, UpdateQueryBuilder } from 'typeorm';
import { RequestContext } from '../../common/request-context';
import { prepared } from '../../database/prepared-statements';
import { TransactionalConnection } from '../../database/transactional-connection';
import { Token } from '../entities/token.entity';
import { TOKEN_ROW_COLUMNS, TOKEN_ROW_SELECT, TokenRow, tokenRow } from '../token-rows';
import {
  fromStatuses,
  OrderExpiryReason,
  RESTORABLE_EXPIRY,
  TOKEN_TRANSITIONS,
  TokenExpiryReason,
  TokenStatus,
  TokenTransition,
  TokenTrigger,
} from '../token-transitions';

/** A token as the checks read it: its row, whether it was issued as a gift, and whether its expiry_date has passed by the database's clock. */
export type RawTokenState = TokenRow & { due: boolean; gift: boolean };

const ROW_SELECT = `SELECT ${TOKEN_ROW_COLUMNS.join(', ')}, gift, (expiry_date IS NOT NULL AND expiry_date <= now()) AS due FROM core_tokens`;
// Named prepared statements: validateToken's one query is parsed and planned once per connection, not at every
// call, which multiplies the rate this select runs at.
const READ_BY_VALUE = prepared(`${ROW_SELECT} WHERE token_value = $1 AND app_id = $2`);
const READ_BY_ID = prepared(`${ROW_SELECT} WHERE id = $1 AND app_id = $2`);

/** SQL: the token is an unredeemed gift (issued as a gift, no owner yet). Its JavaScript twin is TokensService's `state`. */
const UNREDEEMED_GIFT = '(gift AND customer_id IS NULL)';

/** SQL: the condition under which the status table lets `trigger` change a token (its from-statuses, and whether it is an unredeemed gift). */
function applies(trigger: TokenTrigger): string {
  const { unredeemedGift }: TokenTransition = TOKEN_TRANSITIONS[trigger];
  const status = `status IN (${fromStatuses(trigger)
    .map((s) => `'${s}'`)
    .join(', ')})`; // the table's constants, never input
  return unredeemedGift === undefined ? status : `${status} AND ${unredeemedGift ? '' : 'NOT '}${UNREDEEMED_GIFT}`;
}

const ACTIVATE = applies('activate');
const REACH_EXPIRY = applies('reachExpiry');
const EXPIRE = applies('expire');
/** SQL: extendToken's new status; a status the table does not change (pending, gift_pending, active) stays. */
const EXTENDED_STATUS =
  `CASE WHEN ${applies('extendGift')} THEN '${TOKEN_TRANSITIONS.extendGift.to}' ` +
  `WHEN ${applies('extend')} THEN '${TOKEN_TRANSITIONS.extend.to}' ELSE status END`;

type TokenUpdate = UpdateQueryBuilder<Token>;

/** SQL: a pending or active token whose expiry date has passed: the first check that reads it makes it expired. */
const DUE = `(${REACH_EXPIRY} AND COALESCE(expiry_date <= now(), false))`;

/**
 * listTokens' status filter, as the list shows a token's status: a token whose expiry date has passed counts
 * as `expired` (validateToken and activateToken would make it so on their first read), so `active` and
 * `pending` are only those whose date has not.
 */
const LISTED_STATUS: Record<TokenStatus, string> = {
  expired: `(status = 'expired' OR ${DUE})`,
  active: `(status = 'active' AND NOT ${DUE})`,
  pending: `(status = 'pending' AND NOT ${DUE})`,
  gift_pending: `status = 'gift_pending'`,
};

/** listTokens' filters and page. `productVersions`: the content rows of the product's versions (none: nothing matches). */
export interface TokenListQuery {
  productVersions?: number[];
  customerId?: number;
  orderId?: number;
  status?: TokenStatus;
  offset: number;
  limit: number;
}

/**
 * The SET of a change to expired for `reason` (a parameter of the statement, `:reason`): when and why, and
 * the status it had. A token expired already keeps when it expired and the status it had, and takes the new
 * reason (an admin's expireToken of a token a refund expired makes that expiry final).
 */
function expiredFor(): QueryDeepPartialEntity<Token> {
  return {
    status: TOKEN_TRANSITIONS.expire.to,
    expired_reason: () => ':reason',
    expired_at: () => `CASE WHEN status = 'expired' THEN COALESCE(expired_at, now()) ELSE now() END`,
    status_before_expiry: () => `CASE WHEN status = 'expired' THEN status_before_expiry ELSE status END`,
  };
}

/** The SET that leaves a token not expired: no reason, time or status before. */
const NOT_EXPIRED: QueryDeepPartialEntity<Token> = { expired_reason: null, expired_at: null, status_before_expiry: null };

/**
 * core_tokens. Every statement names the context's app. A status change is one conditional UPDATE whose
 * WHERE holds every condition of its row of the status table (token-transitions.ts), so concurrent requests
 * cannot both pass a check only one may pass; null when it matched nothing.
 */
@Injectable()
export class TokenRepository {
  constructor(private readonly connection: TransactionalConnection) {}

  /**
   * The app's token by value or by id (`lock`: FOR UPDATE, in the caller's transaction). Raw SQL:
   * validateToken's hot path (building this select with the query builder took a measurable share of the
   * service's CPU per validation); the statement is fixed text.
   */
  async read(ctx: RequestContext, key: { tokenValue: string } | { id: number }, lock = false): Promise<RawTokenState | null> {
    const [sql, value] = 'id' in key ? [READ_BY_ID, key.id] : [READ_BY_VALUE, key.tokenValue];
    const rows = lock // a lock outside a transaction would end at once
      ? ((await this.connection.transactionManager(ctx).query(`${sql} FOR UPDATE`, [value, ctx.appId])) as RawTokenState[])
      : await this.connection.query<RawTokenState>(ctx, sql, [value, ctx.appId]);
    return rows[0] ?? null;
  }

  /** The customer's tokens of the app, oldest first. */
  ofCustomer(ctx: RequestContext, customerId: number): Promise<RawTokenState[]> {
    const qb = this.connection.repository(ctx, Token).createQueryBuilder('t').select([]);
    for (const column of TOKEN_ROW_COLUMNS) qb.addSelect(`t.${column}`, column);
    return qb
      .addSelect('t.gift', 'gift')
      .addSelect('(t.expiry_date IS NOT NULL AND t.expiry_date <= now())', 'due')
      .where('t.app_id = :appId', { appId: ctx.appId })
      .andWhere('t.customer_id = :customerId', { customerId })
      .orderBy('t.id', 'ASC')
      .getRawMany<RawTokenState>();
  }

  /**
   * One page of the app's tokens, newest first (id DESC), with `gift` and `due`. Each filter has an index that
   * starts with app_id (migration 1764002370000: by id, by order, by product; by customer since the tokens migration).
   */
  list(ctx: RequestContext, query: TokenListQuery): Promise<RawTokenState[]> {
    const qb = this.connection.repository(ctx, Token).createQueryBuilder('t').select([]);
    for (const column of TOKEN_ROW_COLUMNS) qb.addSelect(`t.${column}`, column);
    qb.addSelect('t.gift', 'gift')
      .addSelect('(t.expiry_date IS NOT NULL AND t.expiry_date <= now())', 'due')
      .where('t.app_id = :appId', { appId: ctx.appId })
      .orderBy('t.id', 'DESC')
      .offset(query.offset)
      .limit(query.limit);
    if (query.productVersions) {
      if (query.productVersions.length === 0) return Promise.resolve([]);
      qb.andWhere('t.product_id IN (:...versions)', { versions: query.productVersions });
    }
    if (query.customerId !== undefined) qb.andWhere('t.customer_id = :customerId', { customerId: query.customerId });
    if (query.orderId !== undefined) qb.andWhere('t.order_id = :orderId', { orderId: query.orderId });
    if (query.status) qb.andWhere(LISTED_STATUS[query.status]);
    return qb.getRawMany<RawTokenState>();
  }

  /** The tokens issued for these order items of the app, by item and unit. */
  async ofOrderItems(ctx: RequestContext, orderItemIds: number[]): Promise<TokenRow[]> {
    const rows = await this.connection.repository(ctx, Token).find({
      select: TOKEN_ROW_SELECT,
      where: { app_id: ctx.appId, order_item_id: In([...new Set(orderItemIds)]) },
      order: { order_item_id: 'ASC', item_unit: 'ASC' },
    });
    return rows.map(tokenRow);
  }

  /**
   * New tokens of the app, keyed by (order_item_id, item_unit): a unit that has its token already is
   * skipped (ON CONFLICT DO NOTHING). The tokens inserted, by unit.
   */
  async insertUnits(ctx: RequestContext, units: QueryDeepPartialEntity<Token>[]): Promise<TokenRow[]> {
    const result = await this.connection
      .repository(ctx, Token)
      .createQueryBuilder()
      .insert()
      .values(units.map((unit) => ({ ...unit, app_id: ctx.appId })))
      .orUpdate([], ['order_item_id', 'item_unit']) // ON CONFLICT (order_item_id, item_unit) DO NOTHING
      .returning([...TOKEN_ROW_COLUMNS, 'item_unit'])
      .updateEntity(false)
      .execute();
    return (result.raw as (TokenRow & { item_unit: number })[]).sort((a, b) => a.item_unit - b.item_unit).map(tokenRow);
  }

  /** activateToken's validation and increment: status pending or active, not expired by date, activations below the maximum. */
  activate(ctx: RequestContext, id: number): Promise<TokenRow | null> {
    return this.update(
      ctx,
      id,
      { activations: () => 'activations + 1', last_activated: () => 'now()', status: TOKEN_TRANSITIONS.activate.to },
      (qb) => qb.andWhere(ACTIVATE).andWhere('(expiry_date IS NULL OR expiry_date > now())').andWhere('activations < maximum_activations'),
    );
  }

  /** A pending or active token whose expiry date has passed becomes expired. */
  reachExpiry(ctx: RequestContext, id: number): Promise<TokenRow | null> {
    return this.update(ctx, id, expiredFor(), (qb) =>
      qb
        .andWhere(REACH_EXPIRY)
        .andWhere('expiry_date <= now()')
        .setParameter('reason', 'expiry' satisfies TokenExpiryReason),
    );
  }

  /** expireToken: any status becomes expired (reason `admin`, final). */
  expire(ctx: RequestContext, id: number): Promise<TokenRow | null> {
    return this.update(ctx, id, expiredFor(), (qb) => qb.andWhere(EXPIRE).setParameter('reason', 'admin' satisfies TokenExpiryReason));
  }

  /** extendToken: the later of now and the expiry, plus `days`; the status decided on the row it changes. */
  extend(ctx: RequestContext, id: number, days: number): Promise<TokenRow | null> {
    return this.update(
      ctx,
      id,
      { expiry_date: () => 'GREATEST(now(), expiry_date) + make_interval(days => :days)', status: () => EXTENDED_STATUS, ...NOT_EXPIRED },
      (qb) => qb.setParameter('days', days),
    );
  }

  /** redeemToken's change, on a token the caller locked and checked: it moves to the customer, activations 1. */
  redeem(ctx: RequestContext, id: number, customerId: number): Promise<TokenRow | null> {
    return this.update(ctx, id, {
      customer_id: customerId,
      activations: 1,
      last_activated: () => 'now()',
      status: TOKEN_TRANSITIONS.redeem.to,
    });
  }

  /**
   * A refund in full, a cancellation or a dispute lost: every token of the order that is not expired yet
   * becomes expired for `reason`; a token a refund expired takes a final reason (cancel, dispute) too, so a
   * failure of that refund later leaves it expired. How many became expired now.
   */
  async expireOfOrder(ctx: RequestContext, orderId: number, reason: OrderExpiryReason): Promise<number> {
    const where = 'app_id = :appId AND order_id = :orderId';
    const params = { appId: ctx.appId, orderId, reason, from: fromStatuses('expire'), to: TOKEN_TRANSITIONS.expire.to };
    const repository = this.connection.repository(ctx, Token);
    const result = await repository
      .createQueryBuilder()
      .update()
      .set(expiredFor())
      .where(`${where} AND status IN (:...from) AND status <> :to`, params)
      .execute();
    if (reason !== RESTORABLE_EXPIRY) {
      await repository
        .createQueryBuilder()
        .update()
        .set({ expired_reason: () => ':reason' })
        .where(`${where} AND status = :to AND expired_reason = :restorable`, { ...params, restorable: RESTORABLE_EXPIRY })
        .execute();
    }
    return result.affected ?? 0;
  }

  /**
   * A refund in full of the order failed at the provider: the tokens it expired (reason `refund`, and only
   * those) get back the status they had (the `restore` transition). How many.
   */
  async restoreOfOrder(ctx: RequestContext, orderId: number): Promise<number> {
    const result = await this.connection
      .repository(ctx, Token)
      .createQueryBuilder()
      .update()
      .set({ status: () => 'status_before_expiry', ...NOT_EXPIRED })
      .where(
        'app_id = :appId AND order_id = :orderId AND status IN (:...from) AND expired_reason = :restorable AND status_before_expiry IS NOT NULL',
        { appId: ctx.appId, orderId, from: fromStatuses('restore'), restorable: RESTORABLE_EXPIRY },
      )
      .execute();
    return result.affected ?? 0;
  }

  /** One UPDATE of the app's token `id`, with `conditions` added to its WHERE; the row it leaves, or null when it matched nothing. */
  private async update(
    ctx: RequestContext,
    id: number,
    set: QueryDeepPartialEntity<Token>,
    conditions: (qb: TokenUpdate) => unknown = () => undefined,
  ): Promise<TokenRow | null> {
    const qb = this.connection
      .repository(ctx, Token)
      .createQueryBuilder()
      .update()
      .set(set)
      .where('id = :id AND app_id = :appId', { id, appId: ctx.appId });
    conditions(qb);
    const result = await qb
      .returning([...TOKEN_ROW_COLUMNS])
      .updateEntity(false)
      .execute();
    const rows = result.raw as TokenRow[];
    return rows[0] ? tokenRow(rows[0]) : null;
  }
}
