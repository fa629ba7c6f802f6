export { Order } from './order.entity';
export type { OrderStatus, PaymentStatus, PostalAddress } from './order.entity';
export { GIFT_REDEEM_STATUSES, isGift, OrderItem } from './order-item.entity';
export type { ItemStatus, RedeemStatus } from './order-item.entity';
export { PaymentEvent } from './payment-event.entity';
export { OrderPaymentIntent } from './order-payment-intent.entity';
export type { IntentStatus } from './order-payment-intent.entity';
export { HELD_REFUND_STATUSES, Refund } from './refund.entity';
export { MAX_NOTE_LENGTH, OrderNote } from './order-note.entity';
export type { RefundSource, RefundStatus } from './refund.entity';

import { Order } from './order.entity';
import { OrderItem } from './order-item.entity';
import { PaymentEvent } from './payment-event.entity';
import { OrderPaymentIntent } from './order-payment-intent.entity';
import { Refund } from './refund.entity';
import { OrderNote } from './order-note.entity';

export const ORDER_ENTITIES = [Order, OrderItem, PaymentEvent, OrderPaymentIntent, Refund, OrderNote];
