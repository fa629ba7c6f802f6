import { TenantSite } from '../../common/request-context';
import { Order } from '../entities';
import { CountedItem } from '../order-totals';
import { PaidIntent, paymentMismatch } from './payment-match';

/** App 7's order 42 at cart version 3, in AUD: 2 × 19.95 and a Cancelled 50.00, so 39.90 to pay. */
const site = (payment_test_mode = false) => ({ id: 7, payment_test_mode }) as TenantSite;
const order = (extra: Partial<Order> = {}) => ({ id: 42, app_id: 7, currency: 'aud', cart_version: 3, total: 3990, ...extra }) as Order;
const items: CountedItem[] = [
  { Qty: 2, Price: 1995, bond: 0, ItemStatus: 'Pending' },
  { Qty: 1, Price: 5000, bond: 0, ItemStatus: 'Cancelled' },
];
const intent = (extra: Partial<PaidIntent> = {}, metadata: Record<string, string> = {}): PaidIntent => ({
  id: 'pi_1',
  amount: 3990,
  currency: 'aud',
  livemode: true,
  metadata: { appID: '7', orderID: '42', cartVersion: '3', ...metadata },
  ...extra,
});

describe('paymentMismatch', () => {
  it('accepts the intent made for this order as checkout priced it', () => {
    expect(paymentMismatch(intent(), site(), true, order(), items)).toBeNull();
  });

  it('takes the currency in either case, as the provider may write it', () => {
    expect(paymentMismatch(intent({ currency: 'AUD' }), site(), true, order(), items)).toBeNull();
  });

  it('refuses an intent that names another app or another order, or names none', () => {
    expect(paymentMismatch(intent({}, { appID: '8' }), site(), true, order(), items)).toBe('not_for_order');
    expect(paymentMismatch(intent({}, { orderID: '43' }), site(), true, order(), items)).toBe('not_for_order');
    expect(paymentMismatch(intent({ metadata: {} }), site(), true, order(), items)).toBe('not_for_order');
    // An intent whose metadata was dropped entirely is not for any order either (no TypeError).
    const bare = { ...intent(), metadata: undefined } as unknown as PaidIntent;
    expect(paymentMismatch(bare, site(), true, order(), items)).toBe('not_for_order');
  });

  it("on a production instance, takes only the app's own mode: live, or test for a payment_test_mode app", () => {
    expect(paymentMismatch(intent({ livemode: false }), site(false), true, order(), items)).toBe('mode_mismatch');
    expect(paymentMismatch(intent({ livemode: true }), site(true), true, order(), items)).toBe('mode_mismatch');
    expect(paymentMismatch(intent({ livemode: false }), site(true), true, order(), items)).toBeNull();
  });

  it('outside production, takes either mode', () => {
    for (const livemode of [true, false]) {
      for (const testMode of [true, false]) expect(paymentMismatch(intent({ livemode }), site(testMode), false, order(), items)).toBeNull();
    }
  });

  it('refuses another currency, even for the same number', () => {
    expect(paymentMismatch(intent({ currency: 'usd' }), site(), true, order(), items)).toBe('currency_mismatch');
    expect(paymentMismatch(intent({ currency: 'nzd' }), site(), true, order({ currency: 'aud' }), items)).toBe('currency_mismatch');
    expect(paymentMismatch(intent({ currency: 'usd' }), site(), true, order({ currency: 'usd' }), items)).toBeNull();
  });

  it('refuses any amount but the total of the counted items, to the cent', () => {
    for (const amount of [3989, 3991, 0, 8990 /* the Cancelled item counted */, 39.9 /* dollars, not cents */, 3990.0001]) {
      expect(paymentMismatch(intent({ amount }), site(), true, order(), items)).toBe('amount_mismatch');
    }
  });

  it("checks the amount against the items as they are now, not the order's stored total", () => {
    const changed: CountedItem[] = [...items, { Qty: 1, Price: 100, bond: 50, ItemStatus: 'Pending' }];
    expect(paymentMismatch(intent(), site(), true, order({ total: 3990 }), changed)).toBe('amount_mismatch');
    expect(paymentMismatch(intent({ amount: 4140 }), site(), true, order({ total: 3990 }), changed)).toBeNull();
  });

  it('refuses an intent priced for another cart version, even when the amount still matches', () => {
    expect(paymentMismatch(intent({}, { cartVersion: '2' }), site(), true, order(), items)).toBe('cart_changed');
    expect(paymentMismatch(intent({}, { cartVersion: '' }), site(), true, order(), items)).toBe('cart_changed');
    expect(paymentMismatch(intent({}, { cartVersion: '4' }), site(), true, order({ cart_version: 4 }), items)).toBeNull();
  });

  it('names the first thing wrong: the order, then the mode, the currency, the amount, the cart', () => {
    const everything = intent({ livemode: false, currency: 'usd', amount: 1 }, { orderID: '43', cartVersion: '9' });
    expect(paymentMismatch(everything, site(), true, order(), items)).toBe('not_for_order');
    expect(paymentMismatch({ ...everything, metadata: { ...everything.metadata, orderID: '42' } }, site(), true, order(), items)).toBe(
      'mode_mismatch',
    );
    expect(paymentMismatch({ ...everything, metadata: { ...everything.metadata, orderID: '42' } }, site(), false, order(), items)).toBe(
      'currency_mismatch',
    );
    expect(paymentMismatch(intent({ amount: 1 }, { cartVersion: '9' }), site(), true, order(), items)).toBe('amount_mismatch');
  });
});
