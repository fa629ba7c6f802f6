import { errorTable } from '../common/api-error';

export const TOKEN_NOT_FOUND = 'Token not found';

/**
 * The tokens module's failures. The validation codes (TOKEN_NOT_FOUND … NOT_A_GIFT) are the token checks'
 * answers: validateToken sends them as HTTP 200 `{ status: Failed, message, data }`,
 * activateToken and redeemToken as 400 with the same body (`data`: the token row or null).
 */
export const tokensError = errorTable({
  TOKEN_NOT_FOUND: { status: 400, message: TOKEN_NOT_FOUND },
  /** validateToken mode 2: the customer has no token of the product that passes the checks. */
  NO_CUSTOMER_TOKEN: { status: 400, message: 'No valid token found for customer and product' },
  /** The token's product_id has no core_data row of the app (no master id to compare). */
  PRODUCT_VERSION_NOT_FOUND: { status: 400, message: 'Token product version not found' },
  /** A gift_pending token fails validation because it has to be redeemed first: the message says so. */
  GIFT_NOT_REDEEMED: { status: 400, message: 'Gift token must be redeemed first' },
  TOKEN_EXPIRED: { status: 400, message: 'Token has expired' },
  ACTIVATION_LIMIT: { status: 400, message: 'Token activation limit exceeded' },
  /** redeemToken on a token that is not gift_pending. */
  NOT_A_GIFT: { status: 400, message: 'Token is not redeemable as a gift' },
  /** The check could not be completed (the token changed under it twice). */
  VALIDATION_FAILED: { status: 400, message: 'Error validating token' },
  /** getToken, expireToken, extendToken: no token of this id in the app (another app's included). */
  UNKNOWN_TOKEN: { status: 404, message: TOKEN_NOT_FOUND },
  /** extendToken without a valid tokenId and days. */
  EXTEND_INPUT: { status: 400, message: 'tokenId and days (>= 1) are required' },
  /** validateToken without tokenValue and without a customer bearer. */
  CUSTOMER_REQUIRED: { status: 401, message: 'Unauthorized' },
});

export type TokensErrorCode = keyof typeof tokensError.table;

/** The failures a token check answers with (validateToken, activateToken, redeemToken). */
export type TokenFailure = Extract<
  TokensErrorCode,
  | 'TOKEN_NOT_FOUND'
  | 'NO_CUSTOMER_TOKEN'
  | 'PRODUCT_VERSION_NOT_FOUND'
  | 'GIFT_NOT_REDEEMED'
  | 'TOKEN_EXPIRED'
  | 'ACTIVATION_LIMIT'
  | 'NOT_A_GIFT'
  | 'VALIDATION_FAILED'
>;

export function failureMessage(code: TokenFailure): string {
  return tokensError.table[code].message as string;
}
