import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  registerDecorator,
  ValidateIf,
  ValidateNested,
  ValidationArguments,
} from 'class-validator';
import { SuccessEnvelope } from '../../common/api-responses';
import { EmailField, TextField } from '../../common/dto-fields';
import { MAX_ID } from '../../common/id-cipher.service';
import { MAX_ORDER_TOTAL } from '../order-totals';
import { EncryptedOrderIdField } from '../cart/cart.dto';
import { PAYMENT_STATUSES } from '../orders.dto';

/** The billing fields checkout's `data` takes (anything else, card data above all, is refused), and the order columns they fill. */
export const BILLING_FIELDS = {
  firstName: 'BillingFirstName',
  lastName: 'BillingLastName',
  email: 'BillingEmail',
  address: 'BillingAddress',
  suburb: 'BillingSuburb',
  postCode: 'BillingPostCode',
} as const;
export type BillingField = keyof typeof BILLING_FIELDS;

/**
 * `data` takes the six billing fields and nothing else. Card details never come here (the client sends
 * them to the payment provider with the clientSecret), so any other key (cardNumber, cvc, exp, …) is
 * refused with 400 naming it: refused, not silently dropped, so an integration that sends card data
 * learns at once, and the value is neither stored nor forwarded nor logged.
 */
function BillingFieldsOnly(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'billingFieldsOnly',
      target: target.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (value: unknown) =>
          value !== null &&
          typeof value === 'object' &&
          !Array.isArray(value) &&
          Object.keys(value).every((key) => Object.hasOwn(BILLING_FIELDS, key)),
        defaultMessage: (args?: ValidationArguments) => {
          const value = args?.value;
          if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'data must be an object of billing fields';
          const extra = Object.keys(value).find((key) => !Object.hasOwn(BILLING_FIELDS, key)) ?? '';
          const fields = Object.keys(BILLING_FIELDS).join(', ');
          return (
            `data.${extra.slice(0, 50)} is not accepted: data takes only the billing fields ${fields}; ` +
            'card details go to the payment provider with the clientSecret, never to this service'
          );
        },
      },
    });
}

export class BillingData {
  @TextField('data.firstName', 100)
  firstName?: string;

  @TextField('data.lastName', 100)
  lastName?: string;

  @EmailField('data.email', {})
  email?: string;

  @TextField('data.address', 500)
  address?: string;

  @TextField('data.suburb', 100)
  suburb?: string;

  @TextField('data.postCode', 20)
  postCode?: string;
}

/** `amount`: a positive integer in the smallest currency unit, at most the largest order total. */
function AmountField(): PropertyDecorator {
  return (target, key) => {
    ApiProperty({ example: 2500, description: 'Smallest currency unit (cents); must equal the order total (items not Cancelled)' })(
      target,
      key,
    );
    IsNotEmpty({ message: 'amount is required' })(target, key);
    IsInt({ message: 'amount must be an integer (smallest currency unit)' })(target, key);
    Min(1, { message: 'amount must be a positive integer' })(target, key);
    Max(MAX_ORDER_TOTAL, { message: `amount must be at most ${MAX_ORDER_TOTAL}` })(target, key);
  };
}

/** `currency`: optional ISO 4217 code, any case; it must be the app's currency (core_sites.currency), the one every intent of the app is made in. */
function CurrencyField(): PropertyDecorator {
  return (target, key) => {
    ApiPropertyOptional({
      example: 'aud',
      description:
        "ISO 4217 code, any case; when sent it must be the app's currency (core_sites.currency, default aud), else 400 naming currency",
    })(target, key);
    Transform(({ value }) => (value === null ? undefined : typeof value === 'string' ? value.toLowerCase() : value))(target, key);
    IsOptional()(target, key);
    IsString({ message: 'currency must be a string' })(target, key);
    Matches(/^[a-z]{3}$/, { message: 'currency must be a three-letter ISO 4217 code' })(target, key);
  };
}

function ProductionField(): PropertyDecorator {
  return (target, key) => {
    ApiPropertyOptional({
      example: false,
      description:
        "Outside production: `true` uses the app's live private key, `false` (default) its test key. On a production instance it is " +
        'ignored: the app pays in live mode, or in test mode when marked payment_test_mode',
    })(target, key);
    Transform(({ value }) => (value === null ? undefined : value))(target, key);
    IsOptional()(target, key);
    IsBoolean({ message: 'production must be true or false' })(target, key);
  };
}

/**
 * An order named by `orderID`: an encrypted order id (string, as `_id` of createOrder) or a plain number
 * (only the order's customer or an app admin may use that), or by `_orderID` (encrypted, decrypted before
 * validation). OrderAccessService.refOf reads them.
 */
export class OrderNamedRequest {
  @EncryptedOrderIdField('_orderID')
  _orderID?: number;

  @ApiPropertyOptional({
    oneOf: [{ type: 'string' }, { type: 'integer' }],
    description: "Encrypted order id (string), or the plain order id (number: only for the order's customer or an app admin)",
  })
  @ValidateIf((body: OrderNamedRequest) => body._orderID === undefined)
  @IsNotEmpty({ message: 'orderID is required' })
  @OrderIdValue()
  orderID?: string | number;
}

function OrderIdValue(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'orderIdValue',
      target: target.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (value: unknown) =>
          (typeof value === 'string' && value.length <= 500 && !value.includes('\u0000')) ||
          (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1 && value <= MAX_ID),
        defaultMessage: () => 'orderID must be an encrypted order id (string) or a positive integer',
      },
    });
}

/** POST /ecommerce/checkout: the order, the amount it must cost, and its billing fields. */
export class CheckoutRequest {
  @EncryptedOrderIdField('_orderID', { required: true })
  _orderID: number;

  @ApiPropertyOptional({
    oneOf: [
      { type: 'integer', minimum: 1 },
      { type: 'string', pattern: '^[0-9]+$' },
    ],
    description: 'App id, a number or a string of digits (outside production it may name the app instead of the site-id header)',
  })
  @IsOptional()
  appID?: unknown;

  @AmountField()
  amount: number;

  @CurrencyField()
  currency?: string;

  @ProductionField()
  production?: boolean;

  @ApiProperty({ type: BillingData, description: 'Billing fields only; any other key (card data) is refused with 400' })
  @IsNotEmpty({ message: 'data is required' })
  @IsObject({ message: 'data must be an object of billing fields' })
  @BillingFieldsOnly()
  @ValidateNested()
  @Type(() => BillingData)
  data: BillingData;
}

/** POST /ecommerce/createPaymentIntent (legacy two-step flow). */
export class CreatePaymentIntentRequest extends OrderNamedRequest {
  @AmountField()
  amount: number;

  @CurrencyField()
  currency?: string;

  @ProductionField()
  production?: boolean;
}

/** POST /ecommerce/paymentComplete (legacy two-step flow). */
export class PaymentCompleteRequest extends OrderNamedRequest {
  @TextField('paymentIntentID', 255, {
    required: true,
    doc: { example: 'pi_3Nabc…', description: 'paymentIntentID from createPaymentIntent or checkout' },
  })
  paymentIntentID: string;

  @ProductionField()
  production?: boolean;
}

/** The paymentMethod values submitOrder takes (README "Checkout and payment"). */
export const SUBMIT_METHODS = ['Order Only', 'REDO'] as const;
export type SubmitMethod = (typeof SUBMIT_METHODS)[number];

/** POST /ecommerce/submitOrder. */
export class SubmitOrderRequest extends OrderNamedRequest {
  @ApiProperty({
    enum: SUBMIT_METHODS,
    description:
      '`Order Only`: complete without card payment (Ordered). `REDO` (app admin): re-run the completion steps of a Paid or Ordered order, without emails',
  })
  @IsNotEmpty({ message: 'paymentMethod is required' })
  @IsIn(SUBMIT_METHODS, {
    message: `paymentMethod must be one of: ${SUBMIT_METHODS.join(', ')} (card payments complete through checkout and the payment webhook)`,
  })
  paymentMethod: SubmitMethod;

  @TextField('notes', 2000, { doc: { description: 'Stored on the order (core_orders.notes)' } })
  notes?: string;
}

/* Answers (OpenAPI documentation only: see src/common/api-responses.ts). */

export class PaymentIntentDto {
  @ApiProperty({ description: "The intent's client secret, for the payment provider's client library" }) clientSecret: string;
  @ApiProperty({ description: 'The payment intent id' }) paymentIntentID: string;
}

export class PaymentIntentAnswer extends SuccessEnvelope {
  @ApiProperty({ type: PaymentIntentDto }) data: PaymentIntentDto;
}

export class OrderStatusDto {
  @ApiProperty({ enum: ['New', 'Paid', 'Ordered'] }) orderStatus: string;
  @ApiProperty() orderStatusLabel: string;
  @ApiProperty({ enum: ['', ...PAYMENT_STATUSES], description: 'Empty until a payment is confirmed' }) paymentStatus: string;
}

export class GiftTokenDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty() token_value: string;
  @ApiProperty({ type: 'integer', description: 'The product version row (core_products.id)' }) product_id: number;
  @ApiProperty({ type: 'integer' }) order_item_id: number;
  @ApiProperty({ enum: ['pending', 'gift_pending', 'active', 'expired'] }) status: string;
  @ApiProperty() product_title: string;
}

export class OrderStatusDataDto extends OrderStatusDto {
  @ApiProperty({ type: 'integer', description: 'Cents refunded so far' }) refundedTotal: number;
  @ApiPropertyOptional({ description: 'While the last payment attempt failed: why' }) paymentError?: string;
  @ApiPropertyOptional({ type: [GiftTokenDto], description: 'Present once a paid order contains gift digital items' })
  giftTokens?: GiftTokenDto[];
}

export class OrderStatusAnswerDto extends SuccessEnvelope {
  @ApiProperty({ type: OrderStatusDataDto }) data: OrderStatusDataDto;
}

export class PaymentCompleteAnswer extends SuccessEnvelope {
  @ApiProperty({ type: OrderStatusDto }) data: OrderStatusDto;
}

export class SubmitOrderAnswer extends PaymentCompleteAnswer {
  @ApiProperty({ enum: ['Order submitted', 'Order completion re-run'] }) message: string;
}

/** The payment webhook's answer after a valid signature. */
export class WebhookReceived {
  @ApiProperty({ enum: [true] }) received: boolean;
}
