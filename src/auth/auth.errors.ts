import { errorTable } from '../common/api-error';

/**
 * Auth's failures other than validation errors (those name a field: ApiError.field), the plain 401
 * (ApiError.unauthorized) and the admin check's 403 (requireAdmin, ApiError.forbidden), which every module shares.
 */
export const authError = errorTable({
  /** Unknown email or wrong password (one message for both). */
  INVALID_CREDENTIALS: { status: 401, message: 'Invalid credentials' },
  /** The stored hash can verify nothing (no password set, unknown format). */
  AUTHENTICATION_FAILED: { status: 401, message: 'Authentication failed' },
  EMAIL_TAKEN: { status: 409, message: 'User with this email already exists' },
  INVALID_TOKEN_FORMAT: { status: 400, message: 'Invalid token format' },
  REFRESH_TOKEN_EXPIRED: { status: 401, message: 'Refresh token has expired' },
  INVALID_REFRESH_TOKEN: { status: 401, message: 'Invalid refresh token' },
  WEAK_PASSWORD: { status: 400, message: 'Password does not meet security requirements' },
  NO_USER_FOUND: { status: 404, message: 'No user found' },
  RESET_TOKEN_INVALID: { status: 400, message: 'Reset password token has expired or is invalid' },
  MOBILE_MISSING: { status: 400, message: 'Mobile number missing' },
  SMS_CODE_INVALID: { status: 400, message: 'Invalid or expired SMS code' },
  SMS_TOO_MANY_ATTEMPTS: { status: 400, message: 'Too many attempts: request a new SMS code' },
  /** A userId link token past its expiry. */
  TOKEN_EXPIRED: { status: 400, message: 'Token expired' },
});

export type AuthErrorCode = keyof typeof authError.table;
