import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { CUSTOMER_TABLE } from '../common/access-guards';
import { RequestContext } from '../common/request-context';
import { TransactionalConnection } from '../database/transactional-connection';
import { RelatedLinksService } from '../related';
import { TokenTemplateRepository } from './repositories/token-template.repository';
import { TokenRepository } from './repositories/token.repository';
import { TokenRow } from './token-rows';
import { OrderExpiryReason, TOKEN_TRANSITIONS, TokenStatus } from './token-transitions';

/** An IsDigital order item to issue tokens for (one per unit). */
export interface DigitalItem {
  orderId: number;
  orderItemId: number;
  productVersionId: number;
  productMasterId: number;
  quantity: number;
  gift: boolean;
}

/** What a product's tokens start with: its linked template, or the defaults (pending, 3 activations, no expiry) without one. */
interface TokenTerms {
  status: TokenStatus;
  maximumActivations: number;
  expiryDays: number | null;
}

const DEFAULT_TERMS: TokenTerms = { status: TOKEN_TRANSITIONS.issue.to, maximumActivations: 3, expiryDays: null };
export const TEMPLATE_LINK = 'core_token_template';
export const OWNERSHIP_LINK = 'core_tokens';
/** Units per INSERT statement (14 parameters each, well below PostgreSQL's 65,535). */
const CHUNK = 500;

/**
 * Issues digital access tokens for order completion (the `issue` and `issueGift` transitions), inside the
 * caller's transaction: one token per unit of each item, keyed by (order_item_id, item_unit) with
 * ON CONFLICT DO NOTHING, so a repeated or concurrent completion of the same order issues nothing new.
 */
@Injectable()
export class TokenIssuerService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly tokens: TokenRepository,
    private readonly templates: TokenTemplateRepository,
    private readonly links: RelatedLinksService,
  ) {}

  /** In the caller's transaction: one token per unit of each item; a repeated call for the same items issues nothing new. */
  async issue(ctx: RequestContext, purchaserId: number | null, items: DigitalItem[]): Promise<TokenRow[]> {
    this.connection.transactionManager(ctx); // the tokens and their links commit with the completion, or not at all
    const issued: TokenRow[] = [];
    for (const item of [...items].sort((a, b) => a.orderItemId - b.orderItemId))
      issued.push(...(await this.issueItem(ctx, purchaserId, item)));
    // Every unit got its token now (an order's first completion): those are the items' tokens, in ofOrderItems'
    // order. Otherwise some were issued before (REDO), and the items' tokens are read.
    if (issued.length === items.reduce((units, item) => units + item.quantity, 0)) return issued;
    return this.ofOrderItems(
      ctx,
      items.map((i) => i.orderItemId),
    );
  }

  /**
   * A refund in full (`refund`), a cancellation (`cancel`, the default: cancelOrder) or a dispute lost
   * (`dispute`): every token of the order that is not expired yet becomes expired (expireToken's transition)
   * with the reason, in the caller's transaction; how many changed. Only a `refund` expiry can be undone
   * (restoreOrderTokens); cancel and dispute also make a refund's expiry final.
   */
  expireOrderTokens(ctx: RequestContext, orderId: number, reason: OrderExpiryReason): Promise<number> {
    return this.tokens.expireOfOrder(ctx, orderId, reason);
  }

  /**
   * The refund in full that expired the order's tokens failed at the provider: the tokens it expired, and
   * only those, get back the status they had, in the caller's transaction; how many.
   */
  restoreOrderTokens(ctx: RequestContext, orderId: number): Promise<number> {
    return this.tokens.restoreOfOrder(ctx, orderId);
  }

  /** The tokens issued for these order items of the app (gift tokens of an order, for orderStatus and the confirmation mail). */
  async ofOrderItems(ctx: RequestContext, orderItemIds: number[]): Promise<TokenRow[]> {
    if (orderItemIds.length === 0) return [];
    return this.tokens.ofOrderItems(ctx, orderItemIds);
  }

  /** The item's tokens inserted now, by unit. */
  private async issueItem(ctx: RequestContext, purchaserId: number | null, item: DigitalItem): Promise<TokenRow[]> {
    const terms = await this.termsOf(ctx, item.productMasterId);
    const status = item.gift ? TOKEN_TRANSITIONS.issueGift.to : terms.status;
    const owner = item.gift ? null : purchaserId;
    const days = terms.expiryDays;
    const inserted: TokenRow[] = [];
    for (let first = 1; first <= item.quantity; first += CHUNK) {
      const units = Array.from({ length: Math.min(CHUNK, item.quantity - first + 1) }, (_, i) => first + i);
      const issued = await this.tokens.insertUnits(
        ctx,
        units.map((unit) => ({
          token_value: randomBytes(32).toString('hex'),
          product_id: item.productVersionId,
          customer_id: owner,
          order_id: item.orderId,
          order_item_id: item.orderItemId,
          item_unit: unit,
          status,
          gift: item.gift,
          // The database's clock, as every other expiry; `days` is an integer column of the template.
          expiry_date: days === null ? null : () => `now() + make_interval(days => ${Math.trunc(days)})`,
          activations: 0,
          maximum_activations: terms.maximumActivations,
        })),
      );
      inserted.push(...issued);
      if (owner === null) continue;
      for (const { id } of issued) {
        await this.links.insert(ctx, {
          parent_table: CUSTOMER_TABLE,
          parent_id: owner,
          name: OWNERSHIP_LINK,
          linked: id,
          master_id: owner,
        });
      }
    }
    return inserted;
  }

  /** The template linked to the product (the newest link to a template of the app), or the defaults. */
  private async termsOf(ctx: RequestContext, productMasterId: number): Promise<TokenTerms> {
    const linked = await this.links.linkedFrom(ctx, 'core_products', productMasterId, TEMPLATE_LINK);
    if (linked.length === 0) return DEFAULT_TERMS;
    const templates = await this.templates.findMany(ctx, linked);
    const template = linked.map((id) => templates.find((t) => t.id === id)).find((t) => t !== undefined);
    if (!template) return DEFAULT_TERMS;
    return { status: template.status_default, maximumActivations: template.maximum_activations, expiryDays: template.expiry_days };
  }
}
