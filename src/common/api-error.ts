import { FieldError } from './envelope';

/**
 * A failure with a status code and the failure envelope `{ status, message, errors? }`. `errors` names the
 * fields at fault, `body` adds the extra top-level fields some endpoints answer with (`requirements`, `data`),
 * and `envelopeStatus` covers the few answers whose status is `Error` instead of `Failed` (messaging).
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

  /** The same failure (status, message, body, headers), naming the field at fault in `errors`. */
  withField(field: string, message: string): ApiError {
    return new ApiError(this.httpStatus, this.message, [{ field, message }], this.body, this.envelopeStatus, this.headers);
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

  /**
   * 401 `Unauthorized`, the one answer to a missing or unusable credential (no bearer, a broken, expired or
   * foreign one, an account that no longer qualifies). `headers` may carry a challenge (WWW-Authenticate).
   */
  static unauthorized(headers: Record<string, string> = {}): ApiError {
    return new ApiError(401, 'Unauthorized', undefined, {}, 'Failed', headers);
  }

  static forbidden(message = 'Insufficient permissions'): ApiError {
    return new ApiError(403, message);
  }

  /** 403 `Insufficient permissions`, naming the staff permission the caller lacks (`permission` beside the message). */
  static missingPermission(permission: string): ApiError {
    return new ApiError(403, 'Insufficient permissions', undefined, { permission });
  }

  static notFound(message: string, body?: Record<string, unknown>): ApiError {
    return new ApiError(404, message, undefined, body);
  }

  static conflict(message: string): ApiError {
    return new ApiError(409, message);
  }
}

export const GENERIC_ERROR_MESSAGE = 'An error occurred while processing your request';

/** One exception code of a module: the status and message it answers with. */
export interface ErrorDefinition {
  status: number;
  /** The message, or how to build it from the detail the thrower passes (an id, a table name). */
  message: string | ((detail: string) => string);
  /** The envelope's status: `Failed`, or `Error` for the few answers that use it (messaging). */
  envelope?: 'Failed' | 'Error';
}

export interface ErrorOptions {
  detail?: string;
  body?: Record<string, unknown>;
  headers?: Record<string, string>;
}

/**
 * A module's exception codes mapped to status and message in one table (Twenty's idiom), so a module's
 * failures can be read in one place and none is spelled twice:
 *
 *   export const authError = errorTable({ INVALID_CREDENTIALS: { status: 401, message: 'Invalid email or password' } });
 *   throw authError('INVALID_CREDENTIALS');
 */
export function errorTable<Code extends string>(
  table: Record<Code, ErrorDefinition>,
): ((code: Code, options?: ErrorOptions) => ApiError) & { table: Record<Code, ErrorDefinition> } {
  const raise = (code: Code, options: ErrorOptions = {}): ApiError => {
    const definition = table[code];
    const message = typeof definition.message === 'function' ? definition.message(options.detail ?? '') : definition.message;
    return new ApiError(definition.status, message, undefined, options.body, definition.envelope ?? 'Failed', options.headers);
  };
  return Object.assign(raise, { table });
}
