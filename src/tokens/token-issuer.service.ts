import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { TransactionalConnection } from '../database/transactional-connection';
import { TransactionScope } from '../database/transaction-scope';
import { RelatedLinks } from '../related';
import { Token } from './entities/token.entity';
import { TokenTemplate } from './entities/token-template.entity';
import { TOKEN_ROW_SELECT, TokenRow, tokenRow } from './token-rows';
import { TOKEN_TRANSITIONS, TokenStatus } from './token-transitions';

/** An IsDigital order item to issue tokens for (one per unit). */
export interface DigitalItem {
  orderId: number;
  orderItemId: number;
  productVersionId: number;
  productMasterId: number;
  quantity: number;
  gift: boolean;
}

/** What a product's tokens start with: its linked template, or the spec's defaults without one. */
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
 * Issues digital access tokens for order completion (SPEC "Token status", issue 11 item 2), inside the
 * caller's transaction: one token per unit of each item, keyed by (order_item_id, item_unit) with
 * ON CONFLICT DO NOTHING, so a repeated or concurrent completion of the same order issues nothing new.
 */
@Injectable()
export class TokenIssuer {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly links: RelatedLinks,
  ) {}

  /** In the caller's transaction: one token per unit of each item; a repeated call for the same items issues nothing new. */
  async issue(scope: TransactionScope, appId: number, purchaserId: number | null, items: DigitalItem[]): Promise<TokenRow[]> {
    return this.connection.inTransaction(scope, async () => {
      for (const item of items) await this.issueItem(scope, appId, purchaserId, item);
      return this.ofOrderItems(
        scope,
        appId,
        items.map((i) => i.orderItemId),
      );
    });
  }

  /**
   * A refund in full or a cancellation: every token of the order that is not expired yet becomes expired
   * (expireToken's transition), in the caller's transaction; how many changed.
   */
  async expireOrderTokens(scope: TransactionScope, appId: number, orderId: number): Promise<number> {
    const result = await this.connection
      .repository(scope, Token)
      .createQueryBuilder()
      .update()
      .set({ status: TOKEN_TRANSITIONS.expire.to })
      .where('app_id = :appId AND order_id = :orderId AND status IN (:...from) AND status <> :to', {
        appId,
        orderId,
        from: [...TOKEN_TRANSITIONS.expire.from],
        to: TOKEN_TRANSITIONS.expire.to,
      })
      .execute();
    return result.affected ?? 0;
  }

  /** The tokens issued for these order items of the app (gift tokens of an order, for orderStatus and the confirmation mail). */
  async ofOrderItems(scope: TransactionScope, appId: number, orderItemIds: number[]): Promise<TokenRow[]> {
    if (orderItemIds.length === 0) return [];
    const rows = await this.connection.repository(scope, Token).find({
      select: TOKEN_ROW_SELECT,
      where: { app_id: appId, order_item_id: In([...new Set(orderItemIds)]) },
      order: { order_item_id: 'ASC', item_unit: 'ASC' },
    });
    return rows.map(tokenRow);
  }

  private async issueItem(scope: TransactionScope, appId: number, purchaserId: number | null, item: DigitalItem): Promise<void> {
    const terms = await this.termsOf(scope, appId, item.productMasterId);
    const status = item.gift ? TOKEN_TRANSITIONS.issueGift.to : terms.status;
    const owner = item.gift ? null : purchaserId;
    const days = terms.expiryDays;
    for (let first = 1; first <= item.quantity; first += CHUNK) {
      const units = Array.from({ length: Math.min(CHUNK, item.quantity - first + 1) }, (_, i) => first + i);
      const result = await this.connection
        .repository(scope, Token)
        .createQueryBuilder()
        .insert()
        .values(
          units.map((unit) => ({
            app_id: appId,
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
        )
        .orUpdate([], ['order_item_id', 'item_unit']) // ON CONFLICT (order_item_id, item_unit) DO NOTHING
        .returning(['id'])
        .updateEntity(false)
        .execute();
      const issued = (result.raw as { id: number }[]).map((r) => r.id);
      if (owner === null) continue;
      for (const id of issued) {
        await this.links.insert(scope, {
          app_id: appId,
          parent_table: 'core_customers',
          parent_id: owner,
          name: OWNERSHIP_LINK,
          linked: id,
          master_id: owner,
        });
      }
    }
  }

  /** The template linked to the product (the newest link to a template of the app), or the defaults. */
  private async termsOf(scope: TransactionScope, appId: number, productMasterId: number): Promise<TokenTerms> {
    const linked = await this.links.linkedFrom(scope, appId, 'core_products', productMasterId, TEMPLATE_LINK);
    if (linked.length === 0) return DEFAULT_TERMS;
    const templates = await this.connection.repository(scope, TokenTemplate).find({ where: { app_id: appId, id: In(linked) } });
    const template = linked.map((id) => templates.find((t) => t.id === id)).find((t) => t !== undefined);
    if (!template) return DEFAULT_TERMS;
    return { status: template.status_default, maximumActivations: template.maximum_activations, expiryDays: template.expiry_days };
  }
}
