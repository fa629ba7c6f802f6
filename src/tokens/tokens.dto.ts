import { ApiProperty, OmitType } from '@nestjs/swagger';
import { Allow } from 'class-validator';
import { DateProperty, SuccessEnvelope } from '../common/api-responses';
import { IdField, TextField } from '../common/dto-fields';
import { MAX_ID } from '../common/id-cipher.service';
import { ListPaging, OneOfField, PageField, PerPageField } from '../common/list-fields';
import { CUSTOMER_HIDDEN, PUBLIC_HIDDEN, TokenRow } from './token-rows';
import { TOKEN_STATUSES, TokenStatus } from './token-transitions';

const PRODUCT_ID = { description: 'The product master id (not a version row id)', example: 101 };
const TOKEN_VALUE = { description: 'The 64-character hex token value', example: '9f2c…(64 hex characters)' };

export class ValidateTokenRequest {
  @TextField('tokenValue', 100, {
    doc: {
      ...TOKEN_VALUE,
      description: 'Mode 1. Without it (mode 2) a customer bearer is required and the customer’s token for the product is checked',
    },
  })
  tokenValue?: string;

  @IdField('productId', { required: true, doc: PRODUCT_ID })
  productId: number;
}

export class ActivateTokenRequest {
  @TextField('tokenValue', 100, { required: true, doc: TOKEN_VALUE })
  tokenValue: string;

  @IdField('productId', { required: true, doc: PRODUCT_ID })
  productId: number;
}

export class RedeemTokenRequest {
  @TextField('tokenValue', 100, { required: true, doc: TOKEN_VALUE })
  tokenValue: string;

  @IdField('productId', {
    doc: { ...PRODUCT_ID, description: 'Optional, recommended: the gift must be a token of this product (master id)' },
  })
  productId?: number;
}

export class ExpireTokenRequest {
  @IdField('tokenId', { required: true, doc: { description: 'Token id', example: 1 } })
  tokenId: number;
}

/** The most days one extendToken adds. */
export const MAX_EXTEND_DAYS = 36_500;

/**
 * extendToken's fields are checked by the handler, not the pipe: any invalid tokenId or days answers the
 * one message `tokenId and days (>= 1) are required` (with errors[] naming the field).
 */
export class ExtendTokenRequest {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_ID, description: 'Token id (`id` of a listTokens row)', example: 1 })
  @Allow()
  tokenId: unknown;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_EXTEND_DAYS, description: 'Days to add', example: 30 })
  @Allow()
  days: unknown;
}

export class CustomerTokensRequest {
  @IdField('productId', { doc: { ...PRODUCT_ID, description: 'Optional filter: only tokens of this product (master id)' } })
  productId?: number;
}

export class ListTokensRequest {
  @IdField('appID', { doc: { description: 'App id; the site-id header is preferred. Read from the body only outside production.' } })
  appID?: number;

  @IdField('productID', { doc: { ...PRODUCT_ID, description: 'Only tokens of this product (its master id: every version of it)' } })
  productID?: number;

  @IdField('customerId', { doc: { description: 'Only tokens this customer (core_customers id) owns', example: 12 } })
  customerId?: number;

  @IdField('orderID', { doc: { description: 'Only tokens issued for this order', example: 501 } })
  orderID?: number;

  @OneOfField(
    'status',
    TOKEN_STATUSES,
    'Only tokens in this status as the list shows it: a pending or active token whose expiry date has passed is `expired`',
  )
  status?: TokenStatus;

  @PageField()
  page?: number;

  @PerPageField('Tokens')
  perPage?: number;
}

/* Answers (OpenAPI documentation only: see src/common/api-responses.ts). */

const STATUS = { enum: TOKEN_STATUSES, description: 'pending, gift_pending, active or expired' };

/**
 * A token as getToken shows it: every column of a TokenRow, each documented here once (the answers that
 * show less leave columns out). Declared in the order the OpenAPI document lists them.
 */
export class TokenRowDto implements TokenRow {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ description: '64 hex characters' }) token_value: string;
  @ApiProperty({ type: 'integer', description: 'The product version row current at purchase (core_products.id)' }) product_id: number;
  @ApiProperty({ type: 'integer' }) order_id: number;
  @ApiProperty(STATUS) status: TokenStatus;
  @DateProperty({ nullable: true, description: 'null: never expires' }) expiry_date: Date | null;
  @ApiProperty({ type: 'integer' }) activations: number;
  @ApiProperty({ type: 'integer' }) maximum_activations: number;
  @DateProperty() created_date: Date;
  @DateProperty({ nullable: true }) last_activated: Date | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'The owner; null for a gift nobody has redeemed' }) customer_id:
    number | null;
  @ApiProperty({ type: 'integer' }) order_item_id: number;
}

/** A token as validateToken and activateToken show it: without order_item_id. */
export class PublicTokenRowDto extends OmitType(TokenRowDto, PUBLIC_HIDDEN) {}

/** A token as getCustomerTokens shows it: without customer_id (the caller) and order_item_id. */
export class CustomerTokenRowDto extends OmitType(TokenRowDto, CUSTOMER_HIDDEN) {}

/** validateToken's answer, HTTP 200 either way: `Success` with the row, or `Failed` with a message and the row (or null). */
export class TokenValidAnswer extends SuccessEnvelope {
  @ApiProperty({ enum: ['Token is valid'] }) message: string;
  @ApiProperty({ type: PublicTokenRowDto }) data: PublicTokenRowDto;
}

/** A token check that failed: `{ status: Failed, message, data: <token row or null> }` (no datetime). */
export class TokenCheckFailure {
  @ApiProperty({ enum: ['Failed'] }) status: 'Failed';
  @ApiProperty({
    description:
      'Token not found / No valid token found for customer and product / Token product version not found / Gift token must be ' +
      'redeemed first / Token has expired / Token activation limit exceeded / Error validating token',
  })
  message: string;
  @ApiProperty({ type: PublicTokenRowDto, nullable: true, description: 'The token that failed the check, or null when none was found' })
  data: PublicTokenRowDto | null;
}

export class TokenActivatedAnswer extends SuccessEnvelope {
  @ApiProperty({ enum: ['Token activated'] }) message: string;
  @ApiProperty({ type: PublicTokenRowDto }) data: PublicTokenRowDto;
}

export class RedeemedTokenDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty() token_value: string;
  @ApiProperty({ type: 'integer', description: 'The customer of the bearer' }) customer_id: number;
  @ApiProperty(STATUS) status: TokenStatus;
  @ApiProperty({ type: 'integer' }) activations: number;
  @ApiProperty({ type: 'integer', description: 'The product master id' }) master_product_id: number;
}

export class TokenRedeemedAnswer extends SuccessEnvelope {
  @ApiProperty({ enum: ['Gift token redeemed'] }) message: string;
  @ApiProperty({ type: RedeemedTokenDto }) data: RedeemedTokenDto;
}

export class NewExpiry {
  @DateProperty() newExpiry: string;
}

export class TokenExtendedAnswer extends SuccessEnvelope {
  @ApiProperty({ description: 'Token extended by <days> day(s)' }) message: string;
  @ApiProperty({ type: NewExpiry }) data: NewExpiry;
}

export class TokenFoundAnswer extends SuccessEnvelope {
  @ApiProperty({ enum: ['Token found'] }) message: string;
  @ApiProperty({ type: TokenRowDto }) data: TokenRowDto;
}

export class CustomerTokensAnswer extends SuccessEnvelope {
  @ApiProperty({ enum: ['Tokens found'] }) message: string;
  @ApiProperty({ type: [CustomerTokenRowDto] }) data: CustomerTokenRowDto[];
}

/** A token as listTokens shows it: getToken's row, whether it was issued as a gift, and its product's master id. */
export class ListedTokenDto extends TokenRowDto {
  @ApiProperty({ description: 'Issued as a gift (customer_id null: nobody redeemed it yet)' }) gift: boolean;
  @ApiProperty({ type: 'integer', nullable: true, description: 'The product master id (null when its version row is gone)' }) productID:
    number | null;
}

export class ListTokensAnswer extends SuccessEnvelope {
  @ApiProperty({ type: [ListedTokenDto] }) data: ListedTokenDto[];
  @ApiProperty({ type: ListPaging }) paging: ListPaging;
}
