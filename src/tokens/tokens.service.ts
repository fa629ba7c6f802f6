import { Injectable } from '@nestjs/common';
import { CUSTOMER_TABLE } from '../common/access-guards';
import { RequestContext } from '../common/request-context';
import { RelatedLinksService } from '../related';
import { ContentService } from '../versioning';
import { RawTokenState, TokenRepository } from './repositories/token.repository';
import { OWNERSHIP_LINK } from './token-issuer.service';
import { TokenRow, tokenRow } from './token-rows';
import { statusAfter, tokenMachine, TokenStatus } from './token-transitions';
import { TokenFailure, tokensError } from './tokens.errors';

/** A token as the checks read it: its row, whether its expiry_date has passed by the database's clock, and whether it is an unredeemed gift. */
interface TokenState {
  row: TokenRow;
  due: boolean;
  unredeemedGift: boolean;
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

/** listTokens' filters: `productID` a product master id. */
export interface TokenListFilters {
  productID?: number;
  customerId?: number;
  orderId?: number;
  status?: TokenStatus;
}

/** A token as listTokens (and the staff's customer page) shows it: its row, whether it was issued as a gift, and its product's master id. */
export type ListedToken = TokenRow & { gift: boolean; productID: number | null };

export type RedeemOutcome = { ok: true; token: RedeemedToken } | { ok: false; failure: TokenFailure };

const PRODUCTS = 'core_products';
/** How often a check re-reads a token that changed under it before answering 'Error validating token'. */
const REREADS = 2;
/** Mappings masterOf keeps before it starts over. */
const MASTER_CACHE_SIZE = 10_000;

/** Why validateToken and activateToken refuse a token whose status activation does not apply to (in the order the checks run). */
const NOT_ACTIVATABLE: Partial<Record<TokenStatus, TokenFailure>> = { gift_pending: 'GIFT_NOT_REDEEMED', expired: 'TOKEN_EXPIRED' };

/**
 * The token endpoints' use cases. Every query names the app. Each status
 * change either is one conditional UPDATE whose WHERE holds every condition checked (from the transition
 * table), explained afterwards by re-reading the token when it changed nothing, or runs under the token's
 * row lock (redeem), so concurrent requests cannot both pass a check that only one may pass.
 */
@Injectable()
export class TokensService {
  constructor(
    private readonly tokens: TokenRepository,
    private readonly content: ContentService,
    private readonly links: RelatedLinksService,
  ) {}

  /** Product version id → master id, per app (see masterOf). */
  private readonly masters = new Map<string, number>();

  /** validateToken mode 1: the token checks, in order, on the token `tokenValue` for the product `productId` (a master id). */
  async validate(ctx: RequestContext, tokenValue: string, productId: number): Promise<TokenOutcome> {
    const token = await this.read(ctx, { tokenValue });
    const product = await this.checkProduct(ctx, token, productId);
    if (!product.ok) return product;
    return this.checkState(ctx, token!);
  }

  /**
   * validateToken mode 2: a token of the customer for the product that passes the checks (the oldest
   * first). None of the product: 'No valid token found for customer and product'; some, none valid: the
   * failure of the newest, with its row.
   */
  async validateForCustomer(ctx: RequestContext, customerId: number, productId: number): Promise<TokenOutcome> {
    const candidates = await this.ofProduct(ctx, await this.ofCustomer(ctx, customerId), productId);
    let outcome: TokenOutcome = { ok: false, failure: 'NO_CUSTOMER_TOKEN', row: null };
    for (const token of candidates) {
      outcome = await this.checkState(ctx, token);
      if (outcome.ok) return outcome;
    }
    return outcome;
  }

  /**
   * activateToken: the product check, then validation and increment in one conditional UPDATE (status
   * pending or active, not expired by date, activations below the maximum). When it changes nothing, the
   * token is re-read to say why (and turned `expired` when its date passed).
   */
  async activate(ctx: RequestContext, tokenValue: string, productId: number): Promise<TokenOutcome> {
    const token = await this.read(ctx, { tokenValue });
    const product = await this.checkProduct(ctx, token, productId);
    if (!product.ok) return product;
    const id = token!.row.id;
    for (let attempt = 0; attempt <= REREADS; attempt++) {
      const activated = await this.tokens.activate(ctx, id);
      if (activated) return { ok: true, row: activated };
      const now = await this.read(ctx, { id });
      if (!now) return { ok: false, failure: 'TOKEN_NOT_FOUND', row: null };
      const why = await this.checkState(ctx, now);
      if (!why.ok) return why;
      // It passes now: it changed between the UPDATE and the read (extended, say). Try again.
    }
    return { ok: false, failure: 'VALIDATION_FAILED', row: null };
  }

  /**
   * redeemToken, under the token's row lock (the route's transaction; the locking read refuses to run outside one): a concurrent redeem, extend or
   * expire happens wholly before or after it (a conditional UPDATE alone would find a row that an
   * uncommitted extend is changing still expired, and its explanation would read it extended). The gift
   * moves to the customer with activations 1 and status active, and gets the ownership link; of two
   * customers at once the second finds it active.
   */
  async redeem(ctx: RequestContext, customerId: number, tokenValue: string, productId?: number): Promise<RedeemOutcome> {
    const token = await this.read(ctx, { tokenValue }, true);
    if (!token) return { ok: false, failure: 'TOKEN_NOT_FOUND' };
    const master = await this.masterOf(ctx, token.row);
    if (master === null) return { ok: false, failure: 'PRODUCT_VERSION_NOT_FOUND' };
    if (productId !== undefined && master !== productId) return { ok: false, failure: 'TOKEN_NOT_FOUND' };
    const refusal = redeemRefusal(token);
    if (refusal) return { ok: false, failure: refusal };
    const { id, token_value, status, activations } = (await this.tokens.redeem(ctx, token.row.id, customerId))!;
    await this.links.insert(ctx, {
      parent_table: CUSTOMER_TABLE,
      parent_id: customerId,
      name: OWNERSHIP_LINK,
      linked: id,
      master_id: customerId,
    });
    return { ok: true, token: { id, token_value, customer_id: customerId, status, activations, master_product_id: master } };
  }

  /** expireToken: any status becomes expired. 404 for a token that is not the app's. */
  async expire(ctx: RequestContext, tokenId: number): Promise<TokenRow> {
    const expired = await this.tokens.expire(ctx, tokenId);
    if (!expired) throw tokensError('UNKNOWN_TOKEN', { body: { data: null } });
    return expired;
  }

  /**
   * extendToken: expiry = the later of now and the expiry (now when it had none), plus `days`; an expired
   * token becomes active, or gift_pending when it is an unredeemed gift. One UPDATE: the status is decided
   * on the row it changes.
   */
  async extend(ctx: RequestContext, tokenId: number, days: number): Promise<TokenRow> {
    const extended = await this.tokens.extend(ctx, tokenId, days);
    if (!extended) throw tokensError('UNKNOWN_TOKEN', { body: { data: null } });
    return extended;
  }

  /** getToken: the app's token `id`, or 404. */
  async get(ctx: RequestContext, id: number): Promise<TokenRow> {
    const token = await this.read(ctx, { id });
    if (!token) throw tokensError('UNKNOWN_TOKEN', { body: { data: null } });
    return token.row;
  }

  /** getCustomerTokens: the customer's tokens of the app, oldest first, of the product `productId` (a master id) when given. */
  async customerTokens(ctx: RequestContext, customerId: number, productId?: number): Promise<TokenRow[]> {
    const tokens = await this.ofCustomer(ctx, customerId);
    return (productId === undefined ? tokens : await this.ofProduct(ctx, tokens, productId)).map((t) => t.row);
  }

  /**
   * listTokens: one page of the app's tokens, newest first, with each token's product master id. The status
   * is the one the list shows (TokenRepository's LISTED_STATUS): a token whose expiry date has passed is expired.
   */
  async list(ctx: RequestContext, query: TokenListFilters & { offset: number; limit: number }): Promise<ListedToken[]> {
    const productVersions = query.productID === undefined ? undefined : await this.content.versionRowIds(ctx, PRODUCTS, query.productID);
    const rows = await this.tokens.list(ctx, { ...query, productVersions });
    const listed: ListedToken[] = [];
    for (const raw of rows) {
      const { row, due, unredeemedGift } = state(raw);
      const status = due ? (statusAfter('reachExpiry', row.status, unredeemedGift) ?? row.status) : row.status;
      listed.push({ ...row, status, gift: raw.gift === true, productID: await this.masterOf(ctx, row) });
    }
    return listed;
  }

  /** The checks after the product's: not gift_pending, not expired, expiry not passed (then it becomes expired), activations below the maximum. */
  private async checkState(ctx: RequestContext, token: TokenState, rereads = REREADS): Promise<TokenOutcome> {
    const { row } = token;
    if (!tokenMachine.allows('activate', row.status))
      return { ok: false, failure: NOT_ACTIVATABLE[row.status] ?? 'VALIDATION_FAILED', row };
    if (token.due) {
      const expired = await this.tokens.reachExpiry(ctx, row.id);
      if (expired) return { ok: false, failure: 'TOKEN_EXPIRED', row: expired };
      // Changed under us (expired, extended or activated meanwhile): check it as it is now.
      const now = await this.read(ctx, { id: row.id });
      if (!now) return { ok: false, failure: 'TOKEN_NOT_FOUND', row: null };
      if (rereads === 0) return { ok: false, failure: 'VALIDATION_FAILED', row: now.row };
      return this.checkState(ctx, now, rereads - 1);
    }
    if (row.activations >= row.maximum_activations) return { ok: false, failure: 'ACTIVATION_LIMIT', row };
    return { ok: true, row };
  }

  /** The token exists and its product version maps to the master id `productId`. A token of another product is 'Token not found'. */
  private async checkProduct(ctx: RequestContext, token: TokenState | null, productId: number): Promise<TokenOutcome> {
    if (!token) return { ok: false, failure: 'TOKEN_NOT_FOUND', row: null };
    const master = await this.masterOf(ctx, token.row);
    if (master === null) return { ok: false, failure: 'PRODUCT_VERSION_NOT_FOUND', row: token.row };
    if (master !== productId) return { ok: false, failure: 'TOKEN_NOT_FOUND', row: null };
    return { ok: true, row: token.row };
  }

  /**
   * The product master id of the token's product version (core_data, source_table core_products), or null.
   * A version row never changes its record, so a found mapping is kept (per app and version, bounded):
   * validateToken's hot path then costs one query for the token instead of two. Misses are not kept.
   */
  private async masterOf(ctx: RequestContext, row: TokenRow): Promise<number | null> {
    const appId = ctx.appId;
    const key = `${appId}:${row.product_id}`;
    const known = this.masters.get(key);
    if (known !== undefined) return known;
    const master = await this.content.masterIdOf(ctx, PRODUCTS, row.product_id);
    if (master !== null) {
      if (this.masters.size >= MASTER_CACHE_SIZE) this.masters.clear();
      this.masters.set(key, master);
    }
    return master;
  }

  /** The tokens whose product version maps to the master id `productId`. */
  private async ofProduct(ctx: RequestContext, tokens: TokenState[], productId: number): Promise<TokenState[]> {
    const masters = new Map<number, number | null>();
    const out: TokenState[] = [];
    for (const token of tokens) {
      const version = token.row.product_id;
      if (!masters.has(version)) masters.set(version, await this.masterOf(ctx, token.row));
      if (masters.get(version) === productId) out.push(token);
    }
    return out;
  }

  private async ofCustomer(ctx: RequestContext, customerId: number): Promise<TokenState[]> {
    return (await this.tokens.ofCustomer(ctx, customerId)).map(state);
  }

  /** The app's token by value or by id (`lock`: FOR UPDATE, for the caller's transaction). */
  private async read(ctx: RequestContext, key: { tokenValue: string } | { id: number }, lock = false): Promise<TokenState | null> {
    const raw = await this.tokens.read(ctx, key, lock);
    return raw ? state(raw) : null;
  }
}

function state(raw: RawTokenState): TokenState {
  return { row: tokenRow(raw), due: raw.due === true, unredeemedGift: raw.gift === true && raw.customer_id === null };
}

/** Why redeemToken refuses the token, or null when it may redeem it. */
function redeemRefusal({ row, due, unredeemedGift }: TokenState): TokenFailure | null {
  // An expired gift nobody redeemed (what extendToken makes redeemable again) has expired; anything else is no gift to redeem.
  if (statusAfter('redeem', row.status, unredeemedGift) === null)
    return statusAfter('extendGift', row.status, unredeemedGift) !== null ? 'TOKEN_EXPIRED' : 'NOT_A_GIFT';
  if (due) return 'TOKEN_EXPIRED';
  if (row.activations >= row.maximum_activations) return 'ACTIVATION_LIMIT';
  return null;
}
