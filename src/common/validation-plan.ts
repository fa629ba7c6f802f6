import { TransformationType } from 'class-transformer';
import { defaultMetadataStorage } from 'class-transformer/cjs/storage';
import type { TransformFnParams } from 'class-transformer';
import { getMetadataStorage, ValidationArguments, ValidationTypes } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';

/*
 * The common case of a request body, taken without class-transformer's and class-validator's general
 * machinery: a DTO of flat fields whose rules are plain checks, and a body whose values are all JSON
 * scalars. The plan builds the instance as plainToInstance would (the class, the body's values,
 * @Transform's functions) and runs the DTO's own constraint validators on it, in class-validator's order
 * and with its conditions (@IsOptional), and only answers whether they all pass: a body that fails any
 * check, or holds an object or an array, goes through the full pipe, which finds and words the errors.
 * Nested and @Type fields are taken only when the body leaves them out. A DTO with anything else (`each`,
 * groups, asynchronous constraints, @Expose or @Exclude, accessors) has no plan. test/foundation/validation-plan.spec.ts checks every DTO of the app
 * against the full pipe.
 */

/** A constraint's validator (class-validator's `ValidatorConstraintInterface`), synchronous here. */
type Validator = { validate(value: unknown, args: ValidationArguments): unknown };

interface PropertyPlan {
  name: string;
  /** @IsOptional() and @ValidateIf(): the checks run only when every condition holds. */
  conditions: ((object: object, value: unknown) => boolean)[];
  /** @IsDefined() first, then the other checks, each with its decorator's constraints. */
  checks: { validator: Validator; constraints: unknown[] }[];
}

interface BodyPlan {
  properties: PropertyPlan[];
  /** The @Transform() functions of each field, in class-transformer's order. */
  transforms: Map<string, ((params: TransformFnParams) => unknown)[]>;
  /** Nested or @Type fields: the plan only takes a body in which they are absent (after the transforms). */
  absent: Set<string>;
}

const PLAIN_TO_CLASS_OPTIONS = { enableImplicitConversion: false, exposeDefaultValues: false, exposeUnsetFields: true };

const plans = new WeakMap<object, BodyPlan | null>();

/**
 * The DTO instance of `body` when the plan of `metatype` applies and every check passes; undefined when the
 * full pipe must decide (no plan, a non-scalar value, or a failing check).
 */
export function planned(body: Record<string, unknown>, metatype: new () => object): object | undefined {
  let plan = plans.get(metatype);
  if (plan === undefined) plans.set(metatype, (plan = planOf(metatype)));
  if (!plan) return undefined;
  const entity = new metatype() as Record<string, unknown>;
  for (const key in body) {
    let value = body[key];
    if (value !== null && typeof value === 'object') return undefined;
    const transforms = plan.transforms.get(key);
    if (transforms)
      for (const transform of transforms)
        value = transform({ value, key, obj: body, type: TransformationType.PLAIN_TO_CLASS, options: PLAIN_TO_CLASS_OPTIONS });
    if ((value !== null && typeof value === 'object') || (value !== undefined && plan.absent.has(key))) return undefined;
    entity[key] = value;
  }
  for (const property of plan.properties) {
    const value = entity[property.name];
    if (!holds(property.conditions, entity, value)) continue;
    for (const { validator, constraints } of property.checks) {
      const args: ValidationArguments = { targetName: metatype.name, property: property.name, object: entity, value, constraints };
      if (validator.validate(value, args) !== true) return undefined; // a promise, too, is left to the full pipe
    }
  }
  return entity;
}

function holds(conditions: PropertyPlan['conditions'], entity: object, value: unknown): boolean {
  for (const condition of conditions) if (!condition(entity, value)) return false;
  return true;
}

function planOf(metatype: new () => object): BodyPlan | null {
  const storage = getMetadataStorage();
  const rules = storage.getTargetValidationMetadatas(metatype, '', false, false);
  if (!rules.length || rules.some((rule) => !plainRule(rule))) return null;
  if (defaultMetadataStorage.getExposedMetadatas(metatype).length || defaultMetadataStorage.getExcludedMetadatas(metatype).length)
    return null;

  const properties: PropertyPlan[] = [];
  const transforms = new Map<string, ((params: TransformFnParams) => unknown)[]>();
  const absent = new Set<string>();
  const grouped = storage.groupByPropertyName(rules);
  for (const name of Object.keys(grouped)) {
    // class-validator skips nested validation of an undefined value: the field's other checks are the plan's.
    if (
      defaultMetadataStorage.findTypeMetadata(metatype, name) ||
      grouped[name].some((rule) => rule.type === ValidationTypes.NESTED_VALIDATION)
    )
      absent.add(name);
    if (Object.getOwnPropertyDescriptor(metatype.prototype, name)) return null; // an accessor or a method
    const own = defaultMetadataStorage.findTransformMetadatas(metatype, name, TransformationType.PLAIN_TO_CLASS);
    if (own.some((t) => t.options?.groups?.length || t.options?.since !== undefined || t.options?.until !== undefined)) return null;
    if (own.length)
      transforms.set(
        name,
        own.map((t) => t.transformFn),
      );

    const property: PropertyPlan = { name, conditions: [], checks: [] };
    const ordered = [
      ...grouped[name].filter((rule) => rule.type === ValidationTypes.IS_DEFINED),
      ...grouped[name].filter((rule) => rule.type === ValidationTypes.CUSTOM_VALIDATION),
    ];
    for (const rule of grouped[name])
      if (rule.type === ValidationTypes.CONDITIONAL_VALIDATION)
        property.conditions.push(rule.constraints[0] as (object: object, value: unknown) => boolean);
    for (const rule of ordered) {
      const validators = storage.getTargetValidatorConstraints(rule.constraintCls);
      if (validators.some((validator) => validator.async)) return null;
      for (const validator of validators)
        property.checks.push({ validator: validator.instance as Validator, constraints: rule.constraints });
    }
    properties.push(property);
  }
  // class-transformer builds the instance with `new`: fields it initializes must be declared ones (the
  // whitelist would drop the others).
  if (Object.keys(new metatype()).some((key) => !(key in grouped))) return null;
  return { properties, transforms, absent };
}

/** A rule the plan runs as class-validator would with the pipe's options (no groups, no `always`). */
function plainRule(rule: ValidationMetadata): boolean {
  if (rule.each || rule.always || rule.groups?.length || (rule as { validateIf?: unknown }).validateIf) return false;
  return (
    rule.type === ValidationTypes.CUSTOM_VALIDATION ||
    rule.type === ValidationTypes.NESTED_VALIDATION ||
    rule.type === ValidationTypes.IS_DEFINED ||
    rule.type === ValidationTypes.CONDITIONAL_VALIDATION ||
    rule.type === ValidationTypes.WHITELIST
  );
}
