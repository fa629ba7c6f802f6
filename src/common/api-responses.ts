import { applyDecorators, Type } from '@nestjs/common';
import { Permission, PERMISSIONS } from './permissions';
import {
  ApiExtraModels,
  ApiProperty,
  ApiPropertyOptional,
  ApiPropertyOptions,
  ApiResponse,
  ApiSchema,
  ApiSecurity,
  getSchemaPath,
} from '@nestjs/swagger';

/*
 * The OpenAPI description of the answers every module shares (README "API conventions"): the failure
 * envelopes the global filter writes (ApiError.toBody), the success envelope of `success()`, and the
 * decorators that put them and the security requirements on an operation. These classes are documentation
 * only: nothing validates or transforms a response at run time; a controller declares its handler's return
 * type with the response class, so the compiler keeps the two in step.
 *
 * Statuses that any operation may answer (malformed requests, 413, 414, 415, 429, 500, 503, App not found)
 * are declared once, in src/openapi.ts, and added to every operation that does not document them itself;
 * an operation that documents one of these statuses itself must include `Failure` in it
 * (ApiFailureResponse does).
 */

const DATE_TIME = { type: String, format: 'date-time' } as const;

/** One entry of `errors[]`. */
export class FieldError {
  @ApiProperty({ description: 'The request field, dotted for nested fields (`data.email`, `items[0].Qty`)', example: 'email' })
  field: string;

  @ApiProperty({ example: 'email must be a valid email address' })
  message: string;
}

/** The standard failure envelope: `{ status: Failed, message, errors? }`. */
export class Failure {
  @ApiProperty({ enum: ['Failed'] })
  status: 'Failed';

  @ApiProperty({ example: 'Validation error' })
  message: string;

  @ApiPropertyOptional({ type: [FieldError], description: 'Validation errors, one per field (`Validation error`)' })
  errors?: FieldError[];
}

/** A failure whose envelope carries `data: null` (token checks, getToken). */
export class DataNullFailure extends Failure {
  @ApiProperty({
    type: 'object',
    additionalProperties: false,
    nullable: true,
    enum: [null],
    description: 'Always null',
  } as ApiPropertyOptions)
  data: null;
}

/** 403 to a staff member whose roles lack the operation's permission: the permission named beside the contract's message. */
export class PermissionFailure extends Failure {
  @ApiProperty({ enum: PERMISSIONS, description: 'The staff permission the operation needs (README "Staff roles and permissions")' })
  permission: Permission;
}

/** The five checks of the password strength rule. */
export class PasswordRequirements {
  @ApiProperty({ description: 'At least 8 characters' }) minLength: boolean;
  @ApiProperty() hasUpperCase: boolean;
  @ApiProperty() hasLowerCase: boolean;
  @ApiProperty() hasNumber: boolean;
  @ApiProperty({ description: 'One of @$!%*?&' }) hasSpecialChar: boolean;
}

/** 400 `Password does not meet security requirements` with the five booleans. */
export class PasswordFailure extends Failure {
  @ApiProperty({ type: PasswordRequirements })
  requirements: PasswordRequirements;
}

/** The `Error` envelope (messaging's authentication and push failures): `{ status: Error, message }`. */
export class ErrorFailure {
  @ApiProperty({ enum: ['Error'] })
  status: 'Error';

  @ApiProperty({ example: 'Unauthorized' })
  message: string;

  @ApiPropertyOptional({ type: [FieldError] })
  errors?: FieldError[];
}

/** The success envelope of `success()`: `status` and the server time of the answer. */
export class SuccessEnvelope {
  @ApiProperty({ enum: ['Success'] })
  status: 'Success';

  @ApiProperty({ ...DATE_TIME, description: 'Server time of the answer (ISO 8601, UTC)' })
  datetime: string;
}

/** `{ status: Success, message, datetime }`. */
export class MessageAnswer extends SuccessEnvelope {
  @ApiProperty()
  message: string;
}

/** Properties that hold a date: ISO 8601 strings in JSON. */
export function DateProperty(options: { nullable?: boolean; required?: boolean; description?: string } = {}): PropertyDecorator {
  const { required = true, ...rest } = options;
  return required ? ApiProperty({ ...DATE_TIME, ...rest }) : ApiPropertyOptional({ ...DATE_TIME, ...rest });
}

/** A JSON object whose keys the document cannot list (a table's columns): any properties. */
export const OPEN_OBJECT = { type: 'object', additionalProperties: true } as const;

/**
 * A class schema that may hold more properties than it lists (`additionalProperties: true`): rows whose
 * columns depend on the table or the request. (ApiSchema copies its options into the schema.)
 */
export function OpenSchema(description: string): ClassDecorator {
  return ApiSchema({ description, additionalProperties: true } as Parameters<typeof ApiSchema>[0]);
}

export interface FailureOptions {
  /** Response headers the answer carries (e.g. `retry-after` on 429). */
  headers?: Record<string, { description: string; required?: boolean; schema?: { type: 'string' | 'integer' } }>;
}

export const RETRY_AFTER = {
  'retry-after': { description: 'Seconds to wait before trying again', required: true, schema: { type: 'integer' as const } },
};

/**
 * A failure answer of an operation: the standard envelope, or one of `variants` (envelopes with more fields:
 * `PasswordFailure`, `DataNullFailure`, …). The plain `Failure` is always one of the alternatives, because
 * the statuses every operation may answer (400 for a malformed request, 404 App not found) use it.
 */
export function ApiFailureResponse(
  status: number,
  description: string,
  ...variants: (Type<unknown> | FailureOptions)[]
): MethodDecorator & ClassDecorator {
  const types = variants.filter((v): v is Type<unknown> => typeof v === 'function');
  if (status === 403) types.push(PermissionFailure); // any 403 may be a staff member without the permission
  const options = (variants.find((v) => typeof v !== 'function') ?? {}) as FailureOptions;
  const headers = options.headers ? { headers: options.headers } : {};
  if (types.length === 0) return ApiResponse({ status, description, type: Failure, ...headers });
  return applyDecorators(
    ApiExtraModels(Failure, ...types),
    ApiResponse({ status, description, schema: { anyOf: [Failure, ...types].map((type) => ({ $ref: getSchemaPath(type) })) }, ...headers }),
  );
}

/** A success answer that is one of several shapes (`anyOf`). */
export function ApiAnyOfResponse(status: number, description: string, ...types: Type<unknown>[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiExtraModels(...types),
    ApiResponse({ status, description, schema: { anyOf: types.map((type) => ({ $ref: getSchemaPath(type) })) } }),
  );
}

/** A non-JSON answer: its media type and a string (or binary) body. */
export function ApiMediaResponse(
  status: number,
  mediaType: string,
  description: string,
  format?: 'binary',
): MethodDecorator & ClassDecorator {
  return ApiResponse({ status, description, content: { [mediaType]: { schema: { type: 'string', ...(format ? { format } : {}) } } } });
}

/*
 * Security. The schemes are declared in src/openapi.ts, by these names. An operation lists the ways in
 * (alternatives); one way may need several schemes at once.
 */
export const SECURITY_SCHEMES = {
  /** The app context: the `site-id` header (or its equivalents: appKey header, a tenant's host, body appID outside production). */
  siteId: 'site-id',
  /** Any access token of the app (core_users, core_customers or core_app_users). */
  bearer: 'bearer',
  /** An access token of a core_users account whose role is admin in the app. */
  admin: 'admin-bearer',
  /** An access token of a core_customers account of the app. */
  customer: 'customer-bearer',
  /** The payment provider's signature of a webhook delivery (`stripe-signature` header). */
  webhook: 'webhook-signature',
  /** METRICS_TOKEN as a bearer token, when it is set. */
  metrics: 'metrics-token',
} as const;
export type SecurityScheme = (typeof SECURITY_SCHEMES)[keyof typeof SECURITY_SCHEMES];

/**
 * The operation's security: each argument is one way in (a scheme, or schemes sent together); no argument
 * means none (the document says `security: []`). Optional credentials are written as an alternative:
 * `ApiAccess('site-id', 'customer-bearer')`.
 */
export function ApiAccess(...alternatives: (SecurityScheme | SecurityScheme[] | 'none')[]): MethodDecorator & ClassDecorator {
  if (alternatives.length === 0) return ApiSecurity({});
  return applyDecorators(
    ...alternatives.map((alternative) =>
      ApiSecurity(alternative === 'none' ? {} : Object.fromEntries([alternative].flat().map((scheme) => [scheme, []]))),
    ),
  );
}

/** Any JSON value (a column's value: text, number, boolean, date string, JSON or null). */
export const ANY_VALUE: ApiPropertyOptions = {
  nullable: true,
  anyOf: [
    { type: 'string' },
    { type: 'number' },
    { type: 'boolean' },
    { type: 'object', additionalProperties: true },
    { type: 'array', items: {} },
  ],
} as ApiPropertyOptions;
