import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import { ApiError } from './api-error';
import { FieldError } from './envelope';

/** class-validator errors as the spec's `errors[]` of `{ field, message }`, with dotted paths for nested fields. */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const error of errors) {
    const field = parent ? (/^\d+$/.test(error.property) ? `${parent}[${error.property}]` : `${parent}.${error.property}`) : error.property;
    for (const message of Object.values(error.constraints ?? {})) out.push({ field, message });
    if (error.children?.length) out.push(...flattenValidationErrors(error.children, field));
  }
  return out;
}

/**
 * Drops the body keys that no validator of the DTO declares before class-transformer sees them. The
 * whitelist would drop them afterwards anyway, but plainToInstance spends O(k²) on an object of k keys (it
 * deduplicates them with indexOf) and about 5 µs on each: 2,400 unknown keys took 25 ms, 80,000 took 3.5 s.
 */
class DeclaredKeysValidationPipe extends ValidationPipe {
  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    return super.transform(metadata.type === 'body' ? declaredKeysOnly(value, metadata.metatype) : value, metadata);
  }
}

const declaredKeys = new WeakMap<object, Set<string>>();

function declaredKeysOnly(value: unknown, metatype: ArgumentMetadata['metatype']): unknown {
  if (!metatype || value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  let keys = declaredKeys.get(metatype);
  if (!keys) {
    keys = new Set(getMetadataStorage().getTargetValidationMetadatas(metatype, '', false, false).map((m) => m.propertyName));
    declaredKeys.set(metatype, keys);
  }
  if (keys.size === 0) return value; // not a DTO: left to the pipe as it is
  const known = keys;
  return Object.fromEntries(Object.entries(value).filter(([key]) => known.has(key)));
}

export function createValidationPipe(): ValidationPipe {
  return new DeclaredKeysValidationPipe({
    transform: true,
    whitelist: true,
    forbidUnknownValues: false,
    stopAtFirstError: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => ApiError.validation(flattenValidationErrors(errors)),
  });
}
