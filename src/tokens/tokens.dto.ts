import { ApiProperty } from '@nestjs/swagger';
import { Allow } from 'class-validator';
import { IdField, TextField } from '../common/dto-fields';

const PRODUCT_ID = { description: 'The product master id (not a version row id)', example: 101 };
const TOKEN_VALUE = { description: 'The 64-character hex token value', example: '9f2c…(64 hex characters)' };

export class ValidateTokenRequest {
  @TextField('tokenValue', 100, { doc: { ...TOKEN_VALUE, description: 'Mode 1. Without it (mode 2) a customer bearer is required and the customer’s token for the product is checked' } })
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

  @IdField('productId', { doc: { ...PRODUCT_ID, description: 'Optional, recommended: the gift must be a token of this product (master id)' } })
  productId?: number;
}

export class ExpireTokenRequest {
  @IdField('tokenId', { required: true, doc: { description: 'Token id', example: 1 } })
  tokenId: number;
}

/**
 * extendToken's fields are checked by the handler, not the pipe: any invalid tokenId or days answers the
 * spec's one message `tokenId and days (>= 1) are required` (with errors[] naming the field).
 */
export class ExtendTokenRequest {
  @ApiProperty({ description: 'Token id', example: 1 })
  @Allow()
  tokenId: unknown;

  @ApiProperty({ description: 'Days to add (an integer, at least 1, at most 36500)', example: 30, minimum: 1 })
  @Allow()
  days: unknown;
}

export class CustomerTokensRequest {
  @IdField('productId', { doc: { ...PRODUCT_ID, description: 'Optional filter: only tokens of this product (master id)' } })
  productId?: number;
}
