/** The orders module's public surface: import from here, not from its files. */
export { OrdersModule } from './orders.module';
export { PaymentEventsAdmin } from './checkout/payment-events-admin.service';
