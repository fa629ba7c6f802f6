import { acceptsPaymentMode } from '../../app-context';
import { TenantSite } from '../../common/request-context';
import { Order } from '../entities';
import { CountedItem, orderTotal } from '../order-totals';

/** A payment intent that succeeded at the provider, as completion checks it. */
export interface PaidIntent {
  id: string;
  amount: number;
  currency: string;
  livemode: boolean;
  metadata: Record<string, string>;
}

/**
 * Why a succeeded intent does not pay for an order: it names another app or order, it was made in a mode
 * the app does not take, in another currency, for another amount, or for a cart that changed since.
 */
export type PaymentMismatch = 'not_for_order' | 'mode_mismatch' | 'currency_mismatch' | 'amount_mismatch' | 'cart_changed';

/**
 * Money is an amount, a currency and a mode: the intent pays for the order only when its metadata names
 * this app, this order and the cart version checkout priced, it was made in a mode the app takes, and its
 * amount and currency are the order's total and currency now. Run on the locked order and its items.
 */
export function paymentMismatch(
  intent: PaidIntent,
  site: TenantSite,
  productionInstance: boolean,
  order: Order,
  items: readonly CountedItem[],
): PaymentMismatch | null {
  const { appID, orderID, cartVersion } = intent.metadata ?? {};
  if (appID !== String(site.id) || orderID !== String(order.id)) return 'not_for_order';
  if (!acceptsPaymentMode(site, productionInstance, intent.livemode)) return 'mode_mismatch';
  if (intent.currency.toLowerCase() !== order.currency) return 'currency_mismatch';
  if (intent.amount !== orderTotal(items)) return 'amount_mismatch';
  if (cartVersion !== String(order.cart_version)) return 'cart_changed';
  return null;
}
