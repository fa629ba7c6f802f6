import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DateProperty, SuccessEnvelope } from '../common/api-responses';
import { ItemStatus, OrderStatus, PaymentStatus, PostalAddress, RedeemStatus } from './entities';
import { Transform, Type } from 'class-transformer';
import { IsObject, IsOptional, ValidateNested } from 'class-validator';
import { IdField, TextField } from '../common/dto-fields';
import { MAX_ORDER_TOTAL } from './order-totals';
import { EncryptedOrderIdField, IntField, ItemsField, MAX_QUANTITY, OrderIdField } from './cart/cart.dto';

/*
 * Request bodies of createOrder and getOrder. No field names a customer: an undeclared `customerID` is
 * dropped by the validation pipe (whitelist) and never read.
 */

/** A postal address (createOrder's shippingAddress / billingAddress). */
export class PostalAddressDto {
  @TextField('street', 200)
  street?: string;

  @TextField('city', 100)
  city?: string;

  @TextField('state', 100)
  state?: string;

  @TextField('zip', 20)
  zip?: string;

  @TextField('country', 100)
  country?: string;
}

/** A line given at creation: validated exactly like an addCart line. */
export class CreateOrderItem {
  @IdField('productID', { required: true, doc: { description: 'Product master id' } })
  productID: number;

  @IntField('quantity', 1, MAX_QUANTITY, { required: true, doc: { description: `Units, 1..${MAX_QUANTITY}` } })
  quantity: number;

  @IntField('price', 0, MAX_ORDER_TOTAL, {
    required: true,
    doc: { description: "Unit price in cents; must equal the product's current published price" },
  })
  price: number;
}

function AddressField(name: string): PropertyDecorator {
  return (target, key) => {
    ApiPropertyOptional({ type: PostalAddressDto, description: 'street, city, state, zip, country (strings)' })(target, key);
    Transform(({ value }) => (value === null ? undefined : value))(target, key);
    IsOptional()(target, key);
    IsObject({ message: `${name} must be an object` })(target, key);
    ValidateNested()(target, key);
    Type(() => PostalAddressDto)(target, key);
  };
}

export class CreateOrderRequest {
  @IdField('appID', { doc: { description: 'App id; the site-id header is preferred. Read from the body only outside production.' } })
  appID?: number;

  @ItemsField(CreateOrderItem, 0, 'Optional first lines of the cart')
  items?: CreateOrderItem[];

  @AddressField('shippingAddress')
  shippingAddress?: PostalAddressDto;

  @AddressField('billingAddress')
  billingAddress?: PostalAddressDto;
}

/** POST /ecommerce/getOrder: `orderID` (plain number or encrypted string) or `_orderID`. */
export class GetOrderRequest {
  @IdField('appID', { doc: { description: 'App id; the site-id header is preferred. Read from the body only outside production.' } })
  appID?: number;

  @OrderIdField('orderID', {
    description: "The plain order id (number: only for the order's customer bearer or an app admin), or the encrypted order id (string)",
  })
  orderID?: string | number;

  @EncryptedOrderIdField('_orderID')
  _orderID?: number;
}

/* Answers (OpenAPI documentation only: see src/common/api-responses.ts). Money is integer cents. */

const ORDER_STATUS = { enum: ['New', 'Paid', 'Ordered'] };
/** core_orders.payment_status (null until a payment is confirmed). */
export const PAYMENT_STATUSES: PaymentStatus[] = ['Success', 'Failed', 'Partially Refunded', 'Refunded', 'Disputed'];

export class CreatedOrderDto {
  @ApiProperty({ description: 'Encrypted order id: the sessionID / _orderID of later calls' }) _id: string;
  @ApiProperty({ type: 'integer' }) orderID: number;
  @ApiProperty({ description: 'The order id zero-padded to 8 digits', example: '00000042' }) orderNumber: string;
  @ApiProperty({ type: 'integer', description: 'Cents' }) total: number;
  @ApiProperty({ enum: ['New'] }) status: OrderStatus;
}

export class CreateOrderAnswer extends SuccessEnvelope {
  @ApiProperty({ type: CreatedOrderDto }) data: CreatedOrderDto;
}

export class PostalAddressView {
  @ApiPropertyOptional() street?: string;
  @ApiPropertyOptional() city?: string;
  @ApiPropertyOptional() state?: string;
  @ApiPropertyOptional() zip?: string;
  @ApiPropertyOptional() country?: string;
}

export class BillingViewDto {
  @ApiProperty({ type: String, nullable: true }) firstName: string | null;
  @ApiProperty({ type: String, nullable: true }) lastName: string | null;
  @ApiProperty({ type: String, nullable: true }) email: string | null;
  @ApiProperty({ type: String, nullable: true }) address: string | null;
  @ApiProperty({ type: String, nullable: true }) suburb: string | null;
  @ApiProperty({ type: String, nullable: true }) postCode: string | null;
}

export class OrderItemViewDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ type: 'integer', description: 'The product version row added (core_products.id)' }) product_ID: number;
  @ApiProperty({ type: 'integer', description: 'The product master id (what clients send as productID)' }) product_mid: number;
  @ApiProperty() title: string;
  @ApiProperty({ type: 'integer' }) Qty: number;
  @ApiProperty({ type: 'integer', description: 'Unit price in cents, GST included' }) Price: number;
  @ApiProperty({ type: 'integer', description: 'GST per unit in cents (part of Price)' }) tax: number;
  @ApiProperty({ type: 'integer', description: 'Bond per unit in cents (on top of Price)' }) bond: number;
  @ApiProperty({ type: 'integer', description: 'Qty × (Price + bond) in cents' }) subtotal: number;
  @ApiProperty({ enum: ['Pending', 'Ordered', 'Cancelled', 'Gift Voucher'] }) ItemStatus: ItemStatus;
  @ApiProperty({ type: 'integer', enum: [0, 1] }) IsDigital: 0 | 1;
  @ApiProperty({ type: 'integer', enum: [0, 1] }) IsEvent: 0 | 1;
  @ApiProperty({ type: String, enum: ['gift', 'gift_pending'], nullable: true }) RedeemStatus: RedeemStatus | null;
}

/** An order as its customer (or an app admin) sees it: getOrder, addCart, removeCart. */
export class OrderViewDto {
  @ApiProperty({ description: 'Encrypted order id' }) _id: string;
  @ApiProperty({ type: 'integer' }) orderID: number;
  @ApiProperty() orderNumber: string;
  @ApiProperty(ORDER_STATUS) status: OrderStatus;
  @ApiProperty() orderStatusLabel: string;
  @ApiProperty({ type: String, enum: PAYMENT_STATUSES, nullable: true }) paymentStatus: PaymentStatus | null;
  @ApiProperty({ type: String, nullable: true, description: 'Card, Order Only or REDO once completed' }) paymentMethod: string | null;
  @ApiProperty({ description: 'ISO 4217, lower case' }) currency: string;
  @ApiProperty({ type: 'integer', description: 'Cents: the items that are not Cancelled' }) total: number;
  @DateProperty() created: Date;
  @DateProperty({ nullable: true, description: 'Server time of the confirmed payment (or submitOrder)' }) orderDate: Date | null;
  @ApiProperty({ type: BillingViewDto }) billing: BillingViewDto;
  @ApiProperty({ type: PostalAddressView, nullable: true }) billingAddress: PostalAddress | null;
  @ApiProperty({ type: PostalAddressView, nullable: true }) shippingAddress: PostalAddress | null;
  @ApiProperty({ type: String, nullable: true }) notes: string | null;
  @ApiProperty({ type: [OrderItemViewDto] }) items: OrderItemViewDto[];
}

export class OrderAnswer extends SuccessEnvelope {
  @ApiProperty({ type: OrderViewDto }) data: OrderViewDto;
}

export class AddCartAnswer extends OrderAnswer {
  @ApiProperty({ enum: ['Added to cart'] }) message: string;
}

export class RemoveCartAnswer extends OrderAnswer {
  @ApiProperty({ enum: ['Removed from cart', 'Product not in cart'] }) message: string;
  @ApiProperty({ type: 'integer', description: 'Items deleted' }) removed: number;
}
