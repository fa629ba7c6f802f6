/** One field named by a failure envelope (`{ field, message }`). */
export interface FieldError {
  field?: string;
  message: string;
}

/**
 * A failed call, from the service's failure envelope `{ status: 'Failed', message, errors?, permission? }`
 * (src/common/api-error.ts), or a connection that never got an answer (status 0).
 */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors: FieldError[] = [],
    readonly permission?: string,
  ) {
    super(message);
  }

  /** The message of the error naming `field` (or a nested one of it, `changes.currency`). */
  forField(field: string): string | undefined {
    return this.errors.find(
      (error) => error.field === field || error.field?.startsWith(`${field}.`) || error.field?.startsWith(`${field}[`),
    )?.message;
  }

  static from(status: number, body: unknown): ApiFailure {
    if (body && typeof body === 'object') {
      const envelope = body as { message?: unknown; errors?: unknown; permission?: unknown };
      const message = typeof envelope.message === 'string' ? envelope.message : `Request failed (${status})`;
      const errors = Array.isArray(envelope.errors)
        ? envelope.errors
            .filter(
              (error): error is FieldError => !!error && typeof error === 'object' && typeof (error as FieldError).message === 'string',
            )
            .map((error) => ({ field: typeof error.field === 'string' ? error.field : undefined, message: error.message }))
        : [];
      const permission = typeof envelope.permission === 'string' ? envelope.permission : undefined;
      return new ApiFailure(status, message, errors, permission);
    }
    return new ApiFailure(status, typeof body === 'string' && body ? body : `Request failed (${status})`);
  }
}

/** The failure to show for anything a call threw. */
export function asFailure(error: unknown): ApiFailure {
  if (error instanceof ApiFailure) return error;
  if (error instanceof TypeError) return new ApiFailure(0, 'Could not reach the server. Check the connection and try again.');
  return new ApiFailure(0, error instanceof Error ? error.message : 'Something went wrong');
}
