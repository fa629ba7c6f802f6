import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  Max,
  Min,
  ValidateBy,
  ValidateNested,
} from 'class-validator';
import { ApiError } from '../../common/api-error';
import { IdField, TextField } from '../../common/dto-fields';
import { FieldError } from '../../common/envelope';
import { MAX_ID } from '../../common/id-cipher.service';
import { MAX_ORDER_TOTAL } from '../order-totals';
import { GIFT_REDEEM_STATUSES, RedeemStatus } from '../entities';

/*
 * Request bodies of addCart and removeCart, and the one shape each comes to (`cartAddition`,
 * `removalOrderOf`). Money is integer cents. The order is named by its encrypted id: `sessionID` (shape A,
 * the `_id` createOrder answered) or `_orderID` / `orderID` (shape B). No body field names a customer: the
 * customer comes from the bearer only, and the validation pipe drops undeclared fields such as `customerID`
 * before anything reads the body.
 */

/** Most units of one product in one cart line (a request, or a line raised by repeated adds). */
export const MAX_QUANTITY = 1000;
/** Most items in one addCart or createOrder request. */
export const MAX_ITEMS_PER_REQUEST = 50;
/** Longest encrypted id accepted (the cipher refuses longer values anyway). */
const MAX_ENCRYPTED_ID = 512;

interface NumberOptions {
  required?: boolean;
  doc?: ApiPropertyOptions;
}

/** An integer in [min, max]; presence first, then the type, then the range (the pipe stops at the first failure). */
export function IntField(name: string, min: number, max: number, options: NumberOptions = {}): PropertyDecorator {
  return applyDecorators(
    ...(options.required
      ? [ApiProperty({ type: 'integer', minimum: min, maximum: max, ...options.doc }), IsNotEmpty({ message: `${name} is required` })]
      : [
          ApiPropertyOptional({ type: 'integer', minimum: min, maximum: max, ...options.doc }),
          Transform(({ value }) => (value === null ? undefined : value)),
          IsOptional(),
        ]),
    IsInt({ message: `${name} must be an integer` }),
    Min(min, { message: `${name} must be at least ${min}` }),
    Max(max, { message: `${name} must be at most ${max}` }),
  );
}

/** `orderID`: an encrypted order id (string) or a plain order id (number: only for the order's customer or an app admin). */
export function OrderIdField(name: string, doc: ApiPropertyOptions): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ oneOf: [{ type: 'string' }, { type: 'integer' }], ...doc } as ApiPropertyOptions),
    Transform(({ value }) => (value === null ? undefined : value)),
    IsOptional(),
    ValidateBy({
      name: 'isOrderId',
      validator: {
        validate: (value: unknown) =>
          (typeof value === 'string' && value.length > 0 && value.length <= MAX_ENCRYPTED_ID) ||
          (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1 && value <= MAX_ID),
        defaultMessage: () => `${name} must be an encrypted order id (string) or a positive integer order id`,
      },
    }),
  );
}

/**
 * `_orderID` after DecryptIdsInterceptor: the decrypted id, or 0 for a value that is not this app's encrypted
 * id (it passes here and answers like an unknown order). Presence is checked before the type.
 */
export function EncryptedOrderIdField(name: string, options: { required?: boolean } = {}): PropertyDecorator {
  const doc = { type: String, description: 'Encrypted order id (the `_id` createOrder answered)' };
  return applyDecorators(
    ...(options.required ? [ApiProperty(doc), IsNotEmpty({ message: `${name} is required` })] : [ApiPropertyOptional(doc), IsOptional()]),
    IsInt({ message: `${name} must be an encrypted order id` }),
  );
}

/** The encrypted order id as a plain string field (`sessionID`). */
export function SessionIdField(required: boolean): PropertyDecorator {
  return TextField('sessionID', MAX_ENCRYPTED_ID, {
    required,
    doc: { description: "The order's encrypted id: the `_id` createOrder answered (an anonymous cart's session)" },
  });
}

/** A line of shape B: `{ productID, Qty, Price, redeemStatus? }`. */
export class CartItemB {
  @IdField('productID', { required: true, doc: { description: 'Product master id (meta_master_id / the record id clients list)' } })
  productID: number;

  @IntField('Qty', 1, MAX_QUANTITY, { required: true, doc: { description: `Units, 1..${MAX_QUANTITY}` } })
  Qty: number;

  @IntField('Price', 0, MAX_ORDER_TOTAL, {
    required: true,
    doc: { description: "Unit price in cents; must equal the product's current published price" },
  })
  Price: number;

  @ApiPropertyOptional({
    enum: GIFT_REDEEM_STATUSES,
    description: 'Marks a gift: its tokens are issued gift_pending, not to the purchaser',
  })
  @Transform(({ value }) => (value === null ? undefined : value))
  @IsOptional()
  @IsIn(GIFT_REDEEM_STATUSES, { message: `redeemStatus must be one of ${GIFT_REDEEM_STATUSES.join(', ')}` })
  redeemStatus?: RedeemStatus;
}

/** An optional array of `min`..50 item objects, each validated (errors name `items[i].<field>`). */
export function ItemsField(itemType: new () => object, min: number, description: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: itemType, isArray: true, description }),
    // An array in place of an item becomes null, which ValidateNested refuses as items[i]; it would validate the inner array's elements instead.
    Transform(({ value }) =>
      value === null ? undefined : Array.isArray(value) ? value.map((item: unknown) => (Array.isArray(item) ? null : item)) : value,
    ),
    IsOptional(),
    IsArray({ message: 'items must be an array' }),
    ArrayMinSize(min, { message: `items must hold at least ${min} item` }),
    ArrayMaxSize(MAX_ITEMS_PER_REQUEST, { message: `items must hold at most ${MAX_ITEMS_PER_REQUEST} items` }),
    ValidateNested({ each: true, message: 'each item must be an object' }),
    Type(() => itemType),
  );
}

/**
 * POST /ecommerce/addCart, either shape:
 * - A `{ sessionID, productID, quantity, price }`: one product, the order named by sessionID.
 * - B `{ appID, _orderID | orderID, items[] }`.
 * A body with `items` is shape B; otherwise it is shape A and its four fields are required.
 */
export class AddCartRequest {
  @IdField('appID', { doc: { description: 'App id; the site-id header is preferred. Read from the body only outside production.' } })
  appID?: number;

  // Shape A
  @SessionIdField(false)
  sessionID?: string;

  @IdField('productID', { doc: { description: 'Shape A: product master id' } })
  productID?: number;

  @IntField('quantity', 1, MAX_QUANTITY, { doc: { description: `Shape A: units, 1..${MAX_QUANTITY}` } })
  quantity?: number;

  @IntField('price', 0, MAX_ORDER_TOTAL, {
    doc: { description: "Shape A: unit price in cents; must equal the product's current published price" },
  })
  price?: number;

  // Shape B
  @EncryptedOrderIdField('_orderID')
  _orderID?: number;

  @OrderIdField('orderID', {
    description:
      "Shape B, instead of _orderID: the encrypted order id (string), or the plain order id (number) for the order's customer or an app admin",
  })
  orderID?: string | number;

  @ItemsField(CartItemB, 1, 'Shape B: the lines to add')
  items?: CartItemB[];
}

/** POST /ecommerce/removeCart: `{ sessionID, productID }` (or `_orderID` / `orderID` instead of sessionID). */
export class RemoveCartRequest {
  @IdField('appID', { doc: { description: 'App id; the site-id header is preferred. Read from the body only outside production.' } })
  appID?: number;

  @SessionIdField(false)
  sessionID?: string;

  @EncryptedOrderIdField('_orderID')
  _orderID?: number;

  @OrderIdField('orderID', {
    description:
      "Instead of sessionID: the encrypted order id (string), or the plain order id (number) for the order's customer or an app admin",
  })
  orderID?: string | number;

  @IdField('productID', { required: true, doc: { description: 'Product master id whose Pending items leave the cart' } })
  productID: number;
}

/** A line a client asks to add, with the request fields that name its parts (for 400s naming the field). */
export interface CartLine {
  productID: number;
  quantity: number;
  price: number;
  redeemStatus?: RedeemStatus | null;
  /** How the request names this line's fields, e.g. `items[1].Price` (shape B) or `price` (shape A). */
  fields: { productID: string; quantity: string; price: string };
}

/**
 * An order as a body names it, the way OrderAccessService.refOf reads it: `_orderID` (decrypted already),
 * else `orderID` (an encrypted id as a string, or a plain order id as a number).
 */
export interface OrderNaming {
  _orderID?: number;
  orderID?: string | number;
}

/** addCart's body in one shape, whichever was sent: the order, the lines, and the field a too-large total is blamed on. */
export interface CartAddition extends OrderNaming {
  lines: CartLine[];
  totalField: 'items' | 'quantity';
}

/**
 * The order a body names by `_orderID` or `orderID`; 400 naming `field` (how the route calls the order) when
 * it sends neither.
 */
export function orderNamedBy(body: OrderNaming, field: string): OrderNaming {
  if (body._orderID === undefined && body.orderID === undefined)
    throw ApiError.field(
      field,
      field === 'sessionID' ? 'sessionID (or _orderID / orderID) is required' : `${field} is required (or _orderID)`,
    );
  return { _orderID: body._orderID, orderID: body.orderID };
}

/**
 * addCart's validated body in one shape. A body with `items` is shape B: its order is `_orderID` / `orderID`
 * (400 naming orderID when it sends neither). Any other is shape A: its four fields are required (400
 * naming each one missing), and its sessionID, an encrypted order id, names the order as an `orderID`
 * string does. These checks run after the pipe's: a body the pipe refuses is refused for its errors alone.
 */
export function cartAddition(body: AddCartRequest): CartAddition {
  if (body.items !== undefined) {
    const order = orderNamedBy(body, 'orderID');
    const lines = body.items.map((item, i) => ({
      productID: item.productID,
      quantity: item.Qty,
      price: item.Price,
      redeemStatus: item.redeemStatus ?? null,
      fields: { productID: `items[${i}].productID`, quantity: `items[${i}].Qty`, price: `items[${i}].Price` },
    }));
    return { ...order, lines, totalField: 'items' };
  }
  const missing: FieldError[] = [];
  for (const field of ['sessionID', 'productID', 'quantity', 'price'] as const) {
    if (body[field] === undefined)
      missing.push({ field, message: `${field} is required (shape A; or send items[] with _orderID, shape B)` });
  }
  if (missing.length) throw ApiError.validation(missing);
  const fields = { productID: 'productID', quantity: 'quantity', price: 'price' };
  return {
    orderID: body.sessionID!,
    lines: [{ productID: body.productID!, quantity: body.quantity!, price: body.price!, fields }],
    totalField: 'quantity',
  };
}

/**
 * removeCart's order: `sessionID` (an encrypted order id, as an `orderID` string), else `_orderID` /
 * `orderID`; 400 naming sessionID when it sends none.
 */
export function removalOrderOf(body: RemoveCartRequest): OrderNaming {
  return body.sessionID !== undefined ? { orderID: body.sessionID } : orderNamedBy(body, 'sessionID');
}
