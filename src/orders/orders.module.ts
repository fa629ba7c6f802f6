import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ORDER_ENTITIES } from './entities';
import { OrderAccess } from './order-access.service';
import { PaymentGateway } from './payments/payment-gateway.service';

/** Orders, cart, checkout, the payment webhook, order completion and QR codes (SPEC "Orders and cart"). */
@Module({
  imports: [TypeOrmModule.forFeature(ORDER_ENTITIES)],
  providers: [PaymentGateway, OrderAccess],
})
export class OrdersModule {}
