import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsObject, IsOptional, ValidateNested } from 'class-validator';
import { IdField, TextField } from '../common/dto-fields';
import { MAX_ORDER_TOTAL } from './order-totals';
import { EncryptedOrderIdField, IntField, ItemsField, MAX_QUANTITY, OrderIdField } from './cart.dto';

/*
 * Request bodies of createOrder and getOrder (SPEC "Orders and cart"). No field names a customer: an
 * undeclared `customerID` is dropped by the validation pipe (whitelist) and never read.
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

  @IntField('price', 0, MAX_ORDER_TOTAL, { required: true, doc: { description: 'Unit price in cents; must equal the product\'s current published price' } })
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
    description: 'The plain order id (number: only for the order\'s customer bearer or an app admin), or the encrypted order id (string)',
  })
  orderID?: string | number;

  @EncryptedOrderIdField('_orderID')
  _orderID?: number;
}
