import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DateProperty, SuccessEnvelope } from '../../common/api-responses';
import { ApiError } from '../../common/api-error';
import { IsIn, IsInt, Max, Min, ValidateBy, ValidateIf } from 'class-validator';
import { IdField, TextField } from '../../common/dto-fields';
import { DateField, OneOfField } from '../../common/list-fields';
import { SearchField } from '../../common/search';
import { EncryptedOrderIdField, IntField } from '../cart/cart.dto';
import { OrderStatus, PaymentStatus } from '../entities';
import { MAX_ORDER_TOTAL } from '../order-totals';

/*
 * Request bodies of the app admin's order routes (README "Refunds and cancellation"): refundOrder,
 * cancelOrder, listOrders. The order is named by its encrypted id only.
 */

/** What an Idempotency-Key header may hold: 1 to 255 visible ASCII characters. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** refundOrder's Idempotency-Key header: the key, null when none was sent; 400 naming Idempotency-Key for any other value. */
export function idempotencyKeyOf(header: string | undefined): string | null {
  if (header !== undefined && !IDEMPOTENCY_KEY.test(header))
    throw ApiError.field('Idempotency-Key', 'Idempotency-Key must be 1 to 255 visible ASCII characters');
  return header ?? null;
}

const ORDER_STATUSES: OrderStatus[] = ['New', 'Paid', 'Ordered'];
const PAYMENT_STATUSES: PaymentStatus[] = ['Success', 'Failed', 'Partially Refunded', 'Refunded', 'Disputed'];
export const MAX_PER_PAGE = 100;

/**
 * refundOrder's `amount`: a missing amount refunds the whole refundable remainder, but an explicit `null` is
 * refused (400 naming amount). IntField reads null as absent, which made `{"amount": null}` refund everything.
 */
function RefundAmountField(): PropertyDecorator {
  return (target, key) => {
    ApiPropertyOptional({
      type: 'integer',
      minimum: 1,
      maximum: MAX_ORDER_TOTAL,
      description: 'Cents to refund; omit it for the whole refundable remainder (paid total less what was refunded). `null` is refused.',
    })(target, key);
    ValidateIf((_object, value) => value !== undefined)(target, key);
    ValidateBy({
      name: 'isNotNull',
      validator: {
        validate: (value: unknown) => value !== null,
        defaultMessage: () => 'amount must be an integer; omit it to refund the whole remainder',
      },
    })(target, key);
    IsInt({ message: 'amount must be an integer' })(target, key);
    Min(1, { message: 'amount must be at least 1' })(target, key);
    Max(MAX_ORDER_TOTAL, { message: `amount must be at most ${MAX_ORDER_TOTAL}` })(target, key);
  };
}

export class RefundOrderRequest {
  @IdField('appID', { doc: { description: 'App id; the site-id header is preferred. Read from the body only outside production.' } })
  appID?: number;

  @EncryptedOrderIdField('_orderID', { required: true })
  _orderID: number;

  @RefundAmountField()
  amount?: number;

  @TextField('reason', 500, { doc: { description: 'Shown in the refund mail and kept with the refund' } })
  reason?: string;
}

export class CancelOrderRequest {
  @IdField('appID', { doc: { description: 'App id; the site-id header is preferred. Read from the body only outside production.' } })
  appID?: number;

  @EncryptedOrderIdField('_orderID', { required: true })
  _orderID: number;

  @TextField('reason', 500, { doc: { description: "The refund's reason, for a Paid order" } })
  reason?: string;
}

/** The order mails a staff member may send again. */
export const RESENDABLE_MAILS = ['confirmation', 'admin'] as const;
export type ResendableMail = (typeof RESENDABLE_MAILS)[number];

export class ResendOrderMailRequest {
  @IdField('appID', { doc: { description: 'App id; the site-id header is preferred. Read from the body only outside production.' } })
  appID?: number;

  @EncryptedOrderIdField('_orderID', { required: true })
  _orderID: number;

  @ApiProperty({
    enum: RESENDABLE_MAILS,
    description: "`confirmation` (to the order's billing email) or `admin` (to the app's administrators)",
  })
  @IsIn(RESENDABLE_MAILS as unknown as string[], { message: `mail must be one of ${RESENDABLE_MAILS.join(', ')}` })
  mail: ResendableMail;
}

export class ResendMailsDto {
  @ApiProperty({
    type: 'integer',
    description: 'Mails written to the outbox (0: the app sends no mail, or the order has no billing email)',
  })
  mails: number;
}

export class ResendOrderMailAnswer extends SuccessEnvelope {
  @ApiProperty({ type: ResendMailsDto })
  data: ResendMailsDto;
}

export class ListOrdersRequest {
  @IdField('appID', { doc: { description: 'App id; the site-id header is preferred. Read from the body only outside production.' } })
  appID?: number;

  @OneOfField('status', ORDER_STATUSES)
  status?: OrderStatus;

  @OneOfField('paymentStatus', PAYMENT_STATUSES)
  paymentStatus?: PaymentStatus;

  @DateField('from', 'Orders created at or after this time')
  from?: string;

  @DateField('to', 'Orders created before this time')
  to?: string;

  @TextField('email', 320, { doc: { description: 'The billing email, exactly as the order holds it' } })
  email?: string;

  @SearchField(
    'search',
    'The order number or id (exactly: `42`, `00000042`, `#42`), or the start of the billing email, first name, last name or "first ' +
      'last", without regard to case',
  )
  search?: string;

  @IntField('page', 1, 1_000_000, { doc: { description: 'Page number, from 1' } })
  page?: number;

  @IntField('perPage', 1, MAX_PER_PAGE, { doc: { description: `Orders per page, 1..${MAX_PER_PAGE}; default 20` } })
  perPage?: number;
}

/* Answers (OpenAPI documentation only: see src/common/api-responses.ts). Money is integer cents. */

export class RefundAnswerDto {
  @ApiProperty({ description: "The provider's refund id" }) refundID: string;
  @ApiProperty({ type: 'integer', description: 'Cents refunded by this refund' }) amount: number;
  @ApiProperty({ description: 'ISO 4217, lower case' }) currency: string;
  @ApiProperty({ type: 'integer', description: 'Cents refunded so far, this refund included' }) refundedTotal: number;
  @ApiProperty({ enum: PAYMENT_STATUSES }) paymentStatus: PaymentStatus;
}

export class RefundOrderAnswer extends SuccessEnvelope {
  @ApiProperty({ type: RefundAnswerDto }) data: RefundAnswerDto;
}

export class CancelAnswerDto {
  @ApiProperty({ enum: ORDER_STATUSES }) orderStatus: OrderStatus;
  @ApiProperty({ enum: ['', ...PAYMENT_STATUSES], description: 'Empty for an order never paid' }) paymentStatus: PaymentStatus | '';
  @ApiProperty({ type: 'integer', description: 'Items that became Cancelled' }) cancelledItems: number;
  @ApiPropertyOptional({ description: 'The refund of a Paid order' }) refundID?: string;
}

export class CancelOrderAnswer extends SuccessEnvelope {
  @ApiProperty({ type: CancelAnswerDto }) data: CancelAnswerDto;
}

export class ListedOrderDto {
  @ApiProperty({ description: 'Encrypted order id' }) _id: string;
  @ApiProperty({ type: 'integer' }) orderID: number;
  @ApiProperty() orderNumber: string;
  @ApiProperty({ enum: ORDER_STATUSES }) orderStatus: OrderStatus;
  @ApiProperty({ type: String, enum: PAYMENT_STATUSES, nullable: true }) paymentStatus: PaymentStatus | null;
  @ApiProperty({ type: 'integer' }) total: number;
  @ApiProperty({ type: 'integer' }) refundedTotal: number;
  @ApiProperty() currency: string;
  @ApiProperty({ type: String, nullable: true }) billingEmail: string | null;
  @DateProperty({ nullable: true }) orderDate: Date | null;
  @DateProperty() created: Date;
  @ApiProperty({ type: 'integer', description: 'Number of items' }) items: number;
}

export class ListOrdersPaging {
  @ApiProperty({ type: 'integer' }) page: number;
  @ApiProperty({ type: 'integer' }) perPage: number;
  @ApiProperty({ description: 'More orders follow this page' }) hasMore: boolean;
}

export class ListOrdersAnswer extends SuccessEnvelope {
  @ApiProperty({ type: [ListedOrderDto] }) data: ListedOrderDto[];
  @ApiProperty({ type: ListOrdersPaging }) paging: ListOrdersPaging;
}
