/** The payment provider inside the orders module (not exported by src/orders/index.ts). */
export {
  INTENT_ID,
  PAYMENT_NETWORK_DEFAULTS,
  PaymentGatewayService,
  RefundRequestFailed,
  refundViewOf,
  WEBHOOK_TOLERANCE_SECONDS,
} from './payment-gateway.service';
export type { CreateIntentRequest, PaymentIntentView, RefundView } from './payment-gateway.service';
