import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { VersioningModule } from '../versioning';
import { CartService } from './cart.service';
import { ORDER_ENTITIES } from './entities';
import { OrderAccess } from './order-access.service';
import { OrdersController } from './orders.controller';
import { OrdersService } from './orders.service';
import { PaymentGateway } from './payments/payment-gateway.service';

/** Orders, cart, checkout, the payment webhook, order completion and QR codes (SPEC "Orders and cart"). */
@Module({
  imports: [TypeOrmModule.forFeature(ORDER_ENTITIES), VersioningModule],
  controllers: [OrdersController],
  providers: [PaymentGateway, OrderAccess, OrdersService, CartService],
})
export class OrdersModule {}
