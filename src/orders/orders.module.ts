import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth';
import { MessagingModule } from '../messaging';
import { TokensModule } from '../tokens';
import { VersioningModule } from '../versioning';
import { CartService } from './cart/cart.service';
import { CheckoutController } from './checkout/checkout.controller';
import { CheckoutService } from './checkout/checkout.service';
import { DisputesService } from './refunds/disputes.service';
import { ORDER_ENTITIES } from './entities';
import { CheckoutFlow } from './flows/checkout.flow';
import { PaymentEventsFlow } from './flows/payment-events.flow';
import { PaymentEventsWorker } from './flows/payment-events.worker';
import { PaymentIntentsFlow } from './flows/payment-intents.flow';
import { PaymentReconcileJob } from './flows/payment-reconcile.job';
import { RefundFlow } from './flows/refund.flow';
import { StrayPaymentsFlow } from './flows/stray-payments.flow';
import { OrderAccessService } from './order-access.service';
import { OrderAdminController } from './refunds/order-admin.controller';
import { OrderAdminService } from './refunds/order-admin.service';
import { OrderCompletionService } from './completion/order-completion.service';
import { OrderMailsService } from './completion/order-mails.service';
import { OrderStatusController } from './checkout/order-status.controller';
import { OrderStatusService } from './checkout/order-status.service';
import { StaffCustomerController } from './staff/staff-customer.controller';
import { OrderTimelineController } from './staff/order-timeline.controller';
import { OrderTimelineService } from './staff/order-timeline.service';
import { OrdersController } from './orders.controller';
import { OrdersService } from './orders.service';
import { PaymentEventsAdmin } from './checkout/payment-events-admin.service';
import { PaymentNoticesService } from './checkout/payment-notices.service';
import { PaymentWebhookController } from './checkout/payment-webhook.controller';
import { PaymentWebhookService } from './checkout/payment-webhook.service';
import { PaymentGatewayService } from './checkout/payment-gateway.service';
import { RefundsService } from './refunds/refunds.service';
import { OrderRepository } from './repositories/order.repository';
import { PaymentEventRepository } from './repositories/payment-event.repository';
import { PaymentIntentRepository } from './repositories/payment-intent.repository';
import { RefundRepository } from './repositories/refund.repository';
import { OrderTimelineRepository } from './repositories/order-timeline.repository';

/**
 * Orders and their cart, checkout, the payment webhook and its inbox, order completion, refunds and
 * cancellation, and QR codes. The use cases that span several transactions and the payment provider are
 * flows (flows/): their controllers hand them the request.
 */
@Module({
  imports: [TypeOrmModule.forFeature(ORDER_ENTITIES), VersioningModule, TokensModule, MessagingModule, AuthModule],
  controllers: [
    OrdersController,
    CheckoutController,
    PaymentWebhookController,
    OrderStatusController,
    OrderAdminController,
    OrderTimelineController,
    StaffCustomerController,
  ],
  providers: [
    OrderTimelineService,
    OrderTimelineRepository,
    OrderRepository,
    PaymentEventRepository,
    PaymentIntentRepository,
    RefundRepository,
    PaymentGatewayService,
    OrderAccessService,
    OrdersService,
    CartService,
    OrderMailsService,
    OrderCompletionService,
    CheckoutService,
    CheckoutFlow,
    PaymentWebhookService,
    PaymentEventsFlow,
    PaymentEventsWorker,
    PaymentEventsAdmin,
    PaymentIntentsFlow,
    StrayPaymentsFlow,
    PaymentReconcileJob,
    OrderStatusService,
    PaymentNoticesService,
    RefundsService,
    DisputesService,
    OrderAdminService,
    RefundFlow,
  ],
  exports: [PaymentEventsAdmin],
})
export class OrdersModule {}
