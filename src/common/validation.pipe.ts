import { ArgumentMetadata, ValidationError, ValidationPipe, ValidationPipeOptions } from '@nestjs/common';
import { getMetadataStorage, validateSync, ValidationTypes, ValidatorOptions } from 'class-validator';
import { ApiError } from './api-error';
import { FieldError } from './envelope';
import { planned } from './validation-plan';

/** class-validator errors as the failure envelope's `errors[]` of `{ field, message }`, with dotted paths for nested fields. */
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
 * Drops the body keys that no validator of the DTO declares before class-transformer sees them. The whitelist
 * would drop them afterwards anyway, but plainToInstance spends O(k²) on an object of k keys (it deduplicates
 * them with indexOf) plus a fixed cost on each: a body of a few thousand unknown keys costs milliseconds, one
 * of tens of thousands seconds. A body of scalars that passes its DTO's checks is then taken by the DTO's
 * plan (validation-plan.ts) without the full pipe (a large share of a light route's CPU); any other, and
 * every body that fails a check, goes through it.
 */
class DeclaredKeysValidationPipe extends ValidationPipe {
  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type !== 'body') return super.transform(value, metadata);
    const declared = declaredKeysOnly(value, metadata.metatype);
    const illFormed = illFormedPath(declared);
    if (illFormed !== null) {
      const field = illFormed || 'body';
      throw ApiError.validation([{ field, message: `${field} must not contain unpaired surrogates (invalid Unicode)` }]);
    }
    if (metadata.metatype && declared !== null && typeof declared === 'object' && !Array.isArray(declared)) {
      const entity = planned(declared as Record<string, unknown>, metadata.metatype as new () => object);
      if (entity) return Promise.resolve(entity);
    }
    return super.transform(declared, metadata);
  }

  /** Bodies come from the JSON parser, query strings and path parameters from Fastify: none holds a binary value. */
  protected override findNestedBinaryValues(): ValidationError[] {
    return [];
  }

  /** Nor a sparse array (JSON has no gaps): nothing to close. */
  protected override closeArrayGaps(): void {}

  /**
   * class-validator's synchronous run when no registered constraint is asynchronous (ours are not): the same
   * checks and errors, without a promise per property and validator (a fifth of the pipe's CPU).
   */
  protected override validate(object: object, options?: ValidatorOptions): Promise<ValidationError[]> | ValidationError[] {
    if (onlyAllowed(object.constructor)) return [];
    return anyAsyncConstraint() ? super.validate(object, options) : validateSync(object, options);
  }
}

const allowedOnly = new WeakMap<object, boolean>();

/**
 * Whether every rule of the class is @Allow() (a DTO whose checks are the service's own, such as the token
 * extension's or the refresh's): class-validator would then find nothing to report, and the keys it would drop
 * as undeclared are gone already (declaredKeysOnly), so it is not run (it makes garbage on every request).
 */
function onlyAllowed(metatype: object): boolean {
  let answer = allowedOnly.get(metatype);
  if (answer === undefined) {
    const rules = getMetadataStorage().getTargetValidationMetadatas(metatype as new () => object, '', false, false);
    answer = rules.length > 0 && rules.every((rule) => rule.type === ValidationTypes.WHITELIST);
    allowedOnly.set(metatype, answer);
  }
  return answer;
}

/** The constraints registered so far (a private field of class-validator's MetadataStorage), per class. */
type ConstraintRegistry = { constraintMetadatas?: Map<unknown, { async: boolean }[]> };
let asyncChecked: { size: number; any: boolean } | undefined;

/** Whether any registered custom constraint is asynchronous (true when it cannot be told); looked at again when more are registered. */
function anyAsyncConstraint(): boolean {
  const registry = (getMetadataStorage() as unknown as ConstraintRegistry).constraintMetadatas;
  if (!(registry instanceof Map)) return true;
  if (asyncChecked?.size !== registry.size)
    asyncChecked = { size: registry.size, any: [...registry.values()].some((constraints) => constraints.some((c) => c.async)) };
  return asyncChecked.any;
}

type MaybeWellFormed = string & { isWellFormed(): boolean };

/**
 * The path of the first string of a body (a value, or a key: named by its parent) that holds an unpaired
 * surrogate, '' for the body itself, or null when there is none. JSON carries one as a `\uD800` escape;
 * PostgreSQL cannot store it (free-form content would silently become U+FFFD) and validator's isEmail and
 * isByteLength pass text to encodeURI, which throws on one. The JSON parser bounds the depth.
 */
function illFormedPath(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return (value as MaybeWellFormed).isWellFormed() ? null : path;
  if (value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = illFormedPath(value[i], `${path}[${i}]`);
      if (found !== null) return found;
    }
    return null;
  }
  for (const [key, item] of Object.entries(value)) {
    if (!(key as MaybeWellFormed).isWellFormed()) return path;
    const found = illFormedPath(item, path ? `${path}.${key}` : key);
    if (found !== null) return found;
  }
  return null;
}

const declaredKeys = new WeakMap<object, Set<string>>();

function declaredKeysOnly(value: unknown, metatype: ArgumentMetadata['metatype']): unknown {
  if (!metatype || value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  let keys = declaredKeys.get(metatype);
  if (!keys) {
    keys = new Set(
      getMetadataStorage()
        .getTargetValidationMetadatas(metatype, '', false, false)
        .map((m) => m.propertyName),
    );
    declaredKeys.set(metatype, keys);
  }
  if (keys.size === 0) return value; // not a DTO: left to the pipe as it is
  for (const key in value) if (!keys.has(key)) return copyDeclared(value, keys); // JSON bodies have no inherited keys
  return value; // every key declared: nothing to drop
}

function copyDeclared(value: object, keys: Set<string>): object {
  return Object.fromEntries(Object.entries(value).filter(([key]) => keys.has(key)));
}

/**
 * class-validator looks up a class's rules, its parents' included, by scanning every registered class on
 * each validate() (typestack/class-validator#2686), a measurable share of a light route's CPU. A class's rules are
 * complete once it is loaded, so the answer is kept per class and arguments, as Twenty does
 * (twentyhq/twenty#24085).
 */
export function memoizeTargetValidationMetadatas(): void {
  const storage = getMetadataStorage();
  const lookup = storage.getTargetValidationMetadatas;
  if (memoized.has(lookup)) return;
  const answers = new WeakMap<object, Map<string, ReturnType<typeof lookup>>>();
  const memo: typeof lookup = function (this: typeof storage, target, schema, always, strictGroups, groups) {
    const key = `${schema}\0${always}\0${strictGroups}\0${groups?.join('\0') ?? ''}`;
    let perTarget = answers.get(target);
    if (!perTarget) answers.set(target, (perTarget = new Map()));
    let answer = perTarget.get(key);
    if (!answer) perTarget.set(key, (answer = lookup.call(this, target, schema, always, strictGroups, groups)));
    return answer;
  };
  memoized.add(memo);
  storage.getTargetValidationMetadatas = memo;
  // Each validate() also groups those rules by property anew; the memoized arrays above are stable, so the
  // grouping is kept per array (class-validator only reads it).
  const group = storage.groupByPropertyName;
  const groups = new WeakMap<object, ReturnType<typeof group>>();
  storage.groupByPropertyName = function (this: typeof storage, metadata) {
    let grouped = groups.get(metadata);
    if (!grouped) groups.set(metadata, (grouped = group.call(this, metadata)));
    return grouped;
  };
}

const memoized = new WeakSet<object>();

/** The pipe's options (Nest's ValidationPipe's): test/foundation/validation-plan.spec.ts holds the plans to them too. */
export const VALIDATION_PIPE_OPTIONS: ValidationPipeOptions = {
  transform: true,
  whitelist: true,
  forbidUnknownValues: false,
  stopAtFirstError: true,
  validationError: { target: false, value: false },
  exceptionFactory: (errors) => ApiError.validation(flattenValidationErrors(errors)),
};

export function createValidationPipe(): ValidationPipe {
  memoizeTargetValidationMetadatas();
  return new DeclaredKeysValidationPipe(VALIDATION_PIPE_OPTIONS);
}
