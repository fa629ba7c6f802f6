import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ORDER_ENTITIES } from './entities';

/** Orders, cart, checkout, the payment webhook, order completion and QR codes (SPEC "Orders and cart"). */
@Module({
  imports: [TypeOrmModule.forFeature(ORDER_ENTITIES)],
})
export class OrdersModule {}
