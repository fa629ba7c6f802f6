import { FieldError } from './envelope';

/**
 * A failure with a status code and the spec's failure envelope. `body` adds the extra top-level fields
 * some endpoints answer with (`requirements`, `data`), and `envelopeStatus` covers the few answers whose
 * status is `Error` instead of `Failed` (messaging).
 */
export class ApiError extends Error {
  constructor(
    readonly httpStatus: number,
    message: string,
    readonly errors?: FieldError[],
    readonly body: Record<string, unknown> = {},
    readonly envelopeStatus: 'Failed' | 'Error' = 'Failed',
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  toBody(): Record<string, unknown> {
    return {
      status: this.envelopeStatus,
      message: this.message,
      ...(this.errors ? { errors: this.errors } : {}),
      ...this.body,
    };
  }

  static validation(errors: FieldError[]): ApiError {
    return new ApiError(400, 'Validation error', errors);
  }

  static field(field: string, message: string): ApiError {
    return ApiError.validation([{ field, message }]);
  }

  static badRequest(message: string, body?: Record<string, unknown>): ApiError {
    return new ApiError(400, message, undefined, body);
  }

  static unauthorized(message = 'Unauthorized', body?: Record<string, unknown>): ApiError {
    return new ApiError(401, message, undefined, body);
  }

  static forbidden(message = 'Insufficient permissions'): ApiError {
    return new ApiError(403, message);
  }

  static notFound(message: string, body?: Record<string, unknown>): ApiError {
    return new ApiError(404, message, undefined, body);
  }

  static conflict(message: string): ApiError {
    return new ApiError(409, message);
  }
}

export const GENERIC_ERROR_MESSAGE = 'An error occurred while processing your request';
