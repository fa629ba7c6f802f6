import { Inject, Injectable, Logger } from '@nestjs/common';
import { idFromText } from '../../common/id-cipher.service';
import { RequestContext, TenantSite } from '../../common/request-context';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { TransactionalConnection } from '../../database/transactional-connection';
import { Order, Refund } from '../entities';
import { PaymentNoticesService } from '../checkout/payment-notices.service';
import { PaidIntent } from '../checkout/payment-match';
import { PaymentGatewayService, RefundRequestFailed, RefundView } from '../checkout/payment-gateway.service';
import { RefundRepository } from '../repositories/refund.repository';

/** Provider statuses of money on its way back (as RefundsService counts them). */
const COUNTED = new Set(['succeeded', 'pending', 'requires_action']);

/** How long an automatic refund may stay unanswered before the reconciliation asks the provider again. */
export const AUTO_REFUND_RESUME_AFTER_MS = 60_000;

/**
 * Money that arrives for an order that cannot take it goes back, whole and by itself (README "Payment
 * events": every payment ends as goods delivered or money returned): an intent that succeeded for an order
 * cancelled meanwhile, for a cart that changed (another amount, another version), in a mode or currency the
 * order does not take, or for an order already paid otherwise.
 *
 *  1. `refund`, in the transaction that applies the payment's event: a core_refunds row (source `auto`,
 *     `reserved`, keyed by the intent so that it is made once) and a notice to the app's administrators;
 *  2. after that commit, `send`: the provider refunds the intent in full (idempotency key
 *     `refund-<app>-<row>`), and the row is settled with its answer, on the system pool;
 *  3. an answer that never came leaves the row held: the reconciliation job sends it again (`resume`),
 *     with the same key, so the provider refunds once.
 *
 * These rows never count in the order's refunded_total: the order was not paid with that money.
 */
@Injectable()
export class StrayPaymentsFlow {
  private readonly logger = new Logger('StrayPayments');

  constructor(
    private readonly connection: TransactionalConnection,
    private readonly refunds: RefundRepository,
    private readonly gateway: PaymentGatewayService,
    private readonly notices: PaymentNoticesService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Step 1, in the caller's transaction: `intent`'s money, paid for `order` that could not take it (`why`), refunded. */
  async refund(ctx: RequestContext, order: Order, intent: PaidIntent, why: string): Promise<void> {
    const rowId = await this.refunds.insertAuto(ctx, {
      order_id: order.id,
      payment_intent_id: intent.id,
      amount: intent.amount,
      currency: intent.currency.toLowerCase(),
      reason: why.slice(0, 500),
    });
    if (rowId === null) return; // this intent's money is going back already
    this.logger.warn(
      { appId: ctx.appId, orderId: order.id, intentId: intent.id, amount: intent.amount, why },
      'payment refunded automatically',
    );
    await this.notices.autoRefund(ctx, order, intent, why);
    const site = ctx.app;
    await ctx.afterCommit(() => this.send(site, rowId, intent.livemode));
  }

  /**
   * Step 2 (and the resumption): asks the provider to refund the row's payment with `site`'s key of the
   * intent's mode and settles the row, on the system pool. Never throws.
   */
  async send(site: TenantSite, rowId: number, live: boolean): Promise<void> {
    const appId = site.id;
    const ctx = RequestContext.background(`auto-refund ${rowId}`, this.config.production, site);
    try {
      const row = await this.connection.inTransaction(
        ctx,
        (em) => em.findOneBy(Refund, { id: rowId, app_id: appId, source: 'auto' }),
        'system',
      );
      if (!row || (row.status !== 'reserved' && row.status !== 'unknown')) return;
      let refund: RefundView;
      try {
        refund = await this.gateway.createRefund(ctx, live, {
          paymentIntentId: row.payment_intent_id,
          amount: row.amount,
          metadata: { appID: String(appId), orderID: String(row.order_id), refundRowID: String(row.id), automatic: 'true' },
          idempotencyKey: `refund-${appId}-${row.id}`,
        });
      } catch (error) {
        if (!(error instanceof RefundRequestFailed)) throw error;
        const status = error.refused ? 'failed' : 'unknown';
        await this.connection.inTransaction(ctx, () => this.refunds.update(ctx, row.id, { status }), 'system');
        const log = { appId, rowId, intentId: row.payment_intent_id, err: error.message };
        if (error.refused) this.logger.error(log, 'automatic refund refused by the provider: refund it by hand');
        else this.logger.warn(log, 'automatic refund unanswered: the reconciliation sends it again');
        return;
      }
      await this.connection.inTransaction(ctx, () => this.settle(ctx, row, refund), 'system');
    } catch (error) {
      this.logger.error({ appId, rowId, err: (error as Error)?.message }, 'automatic refund not sent: the reconciliation sends it again');
    }
  }

  /**
   * A provider refund (its answer, or its refund event) of an automatic refund: the row's status, and true;
   * false when `refund` is not one (RefundsService records it then).
   */
  async settleReported(ctx: RequestContext, refund: RefundView): Promise<boolean> {
    const rowId = refund.metadata.appID === String(ctx.appId) ? idFromText(refund.metadata.refundRowID) : null;
    const row = (await this.refunds.findByRefundId(ctx, refund.id)) ?? (rowId ? await this.refunds.findOne(ctx, rowId) : null);
    if (!row || row.source !== 'auto') return false;
    await this.settle(ctx, row, refund);
    return true;
  }

  private async settle(ctx: RequestContext, row: Refund, refund: RefundView): Promise<void> {
    const status = COUNTED.has(refund.status) ? 'succeeded' : 'failed';
    await this.refunds.update(ctx, row.id, { status, refund_id: refund.id });
    if (status === 'failed')
      this.logger.error(
        { appId: ctx.appId, rowId: row.id, refundId: refund.id },
        'automatic refund failed at the provider: refund it by hand',
      );
  }
}
