import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  ValidateIf,
  ValidateNested,
  ValidationArguments,
} from 'class-validator';
import { MAX_TEXT_VALUE } from '../versioning';
import {
  COMPARISONS,
  MAX_CONDITIONS,
  MAX_FIELDS,
  MAX_IN_VALUES,
  MAX_ORDER_BY_LENGTH,
  MAX_ORDER_TERMS,
  MAX_PAGE,
  Operator,
  OPERATORS,
  orderTerms,
  RowCondition,
  RowRequest,
} from './row-query';

/*
 * The body of POST /getDataRows, checked by the validation pipe: every rule that needs neither the table's
 * columns nor the service's limits is here, and the query builder (row-query.ts) takes the checked request.
 * The endpoint's loose forms are normalized on the way in: flags given as 1/0 or "true"/"false"/"1"/"0" ("" is
 * false), page and perPage as digit strings, an `in` value as a comma-separated string; null means absent.
 */

const absent = (value: unknown) => (value === null ? undefined : value);
const TRUE_FORMS = new Set<unknown>([true, 1, '1', 'true']);
const FALSE_FORMS = new Set<unknown>([false, 0, '0', 'false', '']);

function looseFlag(value: unknown): unknown {
  if (TRUE_FORMS.has(value)) return true;
  if (FALSE_FORMS.has(value)) return false;
  return absent(value);
}

/** An optional boolean flag, in any of the loose forms. */
function FlagField(name: string, description?: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional(description ? { description } : {}),
    Transform(({ value }) => looseFlag(value)),
    IsOptional(),
    IsBoolean({ message: `${name} must be true or false` }),
  );
}

function IsSafeInteger(message: string): PropertyDecorator {
  return ValidateBy({ name: 'isSafeInteger', validator: { validate: (value) => Number.isSafeInteger(value) } }, { message });
}

/** page or perPage: read only with isPaging; a number or a string of up to 9 digits ("" means absent). */
function PagingField(name: string, doc: ApiPropertyOptions, ...bounds: PropertyDecorator[]): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional(doc),
    Transform(({ value }) =>
      value === '' ? undefined : typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : absent(value),
    ),
    ValidateIf((request: GetDataRowsRequest) => request.isPaging === true),
    IsOptional(),
    IsSafeInteger(`${name} must be an integer`),
    ...bounds,
  );
}

const TABLE_MESSAGE = 'table must be the name of a registered table';
const ORDER_BY_MESSAGE = 'orderBy must be a string such as "title ASC, price DESC"';

/** A string of at most `max` comma-separated parts. */
function AtMostParts(max: number, message: string): PropertyDecorator {
  return ValidateBy({ name: 'atMostParts', validator: { validate: (value: string) => value.split(',').length <= max } }, { message });
}

function FieldsField(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ example: 'title,price', description: 'Comma-separated columns or *; secret columns are refused' }),
    Transform(({ value }) => absent(value)),
    IsOptional(),
    IsString({ message: 'fields must be a comma-separated list of columns or *' }),
    AtMostParts(MAX_FIELDS, `fields may name at most ${MAX_FIELDS} columns`),
  );
}

/** orderBy: "column [ASC|DESC], …" ("" means absent); the columns are the query builder's to check. */
function OrderByField(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ example: 'price DESC, title ASC' }),
    Transform(({ value }) => (value === '' ? undefined : absent(value))),
    IsOptional(),
    IsString({ message: ORDER_BY_MESSAGE }),
    MaxLength(MAX_ORDER_BY_LENGTH, { message: ORDER_BY_MESSAGE }),
    AtMostParts(MAX_ORDER_TERMS, `orderBy may name at most ${MAX_ORDER_TERMS} columns`),
    ValidateBy(
      { name: 'orderTerms', validator: { validate: (value: string) => orderTerms(value) !== null } },
      { message: 'orderBy must be column names, each optionally followed by ASC or DESC' },
    ),
  );
}

/*
 * A condition's messages name its path (`whereConditions.conditions[i]`), which class-validator does not pass
 * to them: ConditionsField notes it for each condition object.
 */
const conditionPaths = new WeakMap<object, string>();
const pathOf = (args: ValidationArguments) => conditionPaths.get(args.object) ?? 'whereConditions.conditions[]';

/** What is wrong with a condition's value for its operator (how it fits the column is the query builder's to tell), or null. */
function valueProblem(operator: unknown, value: unknown): string | null {
  const op = operator ?? 'equals';
  if (op === 'contains' || op === 'starts_with')
    return typeof value !== 'string' || value.length > MAX_TEXT_VALUE ? 'must be a string' : null;
  if (op === 'in')
    return Array.isArray(value) && value.length > 0 && value.length <= MAX_IN_VALUES
      ? null
      : `must be a list of 1 to ${MAX_IN_VALUES} values`;
  // is_null and is_not_null take no value; an unknown operator is refused on its own.
  if (!(COMPARISONS as readonly unknown[]).includes(op)) return null;
  if (value === undefined) return 'is required';
  return value === null && op !== 'equals' && op !== 'not_equals' ? `must not be null for ${String(op)}` : null;
}

const asksForList = (operator: unknown) => typeof operator === 'string' && operator.toLowerCase() === 'in';
const fitsOperator = (args: ValidationArguments) => valueProblem((args.object as WhereCondition).operator, args.value);

/** One value of an `in` list. */
const CONDITION_SCALAR = { nullable: true, anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] };

class WhereCondition implements RowCondition {
  /** A column or meta field of the table: the query builder checks it against the catalog (its refusal names the table). */
  @ApiProperty({ type: String, example: 'price' })
  @Allow()
  field?: unknown;

  @ApiProperty({ enum: OPERATORS, example: 'less_than' })
  @Transform(({ value }) => (typeof value === 'string' ? value.toLowerCase() : absent(value)))
  @IsOptional()
  @IsIn(OPERATORS, { message: (args) => `${pathOf(args)}.operator must be one of ${OPERATORS.join(', ')}` })
  operator?: Operator;

  @ApiPropertyOptional({
    nullable: true,
    anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'array', items: CONDITION_SCALAR }],
    example: 3000,
    description:
      "A value of the column's type (a string or number; true or false; an ISO 8601 date string); a list (or a comma-separated string) for `in`; " +
      'none for is_null / is_not_null; null with equals / not_equals tests for NULL',
  } as ApiPropertyOptions)
  @Transform(({ value, obj }) =>
    asksForList(obj.operator) && typeof value === 'string' ? value.split(',').map((item) => item.trim()) : value,
  )
  @ValidateBy({
    name: 'fitsOperator',
    validator: {
      validate: (_value, args) => fitsOperator(args!) === null,
      defaultMessage: (args) => `${pathOf(args!)}.value ${fitsOperator(args!)}`,
    },
  })
  value?: unknown;
}

/** Notes the path of a condition object; an item that is not one becomes its path (a string: ValidateNested refuses it, naming it). */
function notePath(item: unknown, index: number): unknown {
  const path = `whereConditions.conditions[${index}]`;
  if (!(item instanceof WhereCondition)) return path;
  conditionPaths.set(item, path);
  return item;
}

function ConditionsField(): PropertyDecorator {
  return applyDecorators(
    ApiProperty({ type: [WhereCondition] }),
    Transform(({ value }) => (Array.isArray(value) ? value.map(notePath) : absent(value))),
    IsOptional(),
    IsArray({ message: 'whereConditions.conditions must be an array' }),
    ArrayMaxSize(MAX_CONDITIONS, { message: `At most ${MAX_CONDITIONS} conditions` }),
    ValidateNested({ message: ({ value }) => `${String(value)} must be { field, operator, value }` }),
    Type(() => WhereCondition),
  );
}

class WhereConditions {
  @ApiPropertyOptional({ enum: ['AND', 'OR'], default: 'AND' })
  @Transform(({ value }) => (typeof value === 'string' ? value.toUpperCase() : absent(value)))
  @IsOptional()
  @IsIn(['AND', 'OR'], { message: 'whereConditions.operator must be AND or OR' })
  operator?: 'AND' | 'OR';

  @ConditionsField()
  conditions?: WhereCondition[];
}

/** The body of POST /getDataRows. */
export class GetDataRowsRequest implements RowRequest {
  @ApiProperty({ example: 'core_products', description: 'A table registered in core_tables' })
  @IsDefined({ message: TABLE_MESSAGE })
  @IsString({ message: TABLE_MESSAGE })
  table: string;

  @FieldsField()
  fields?: string;

  @FlagField('isPublished', 'Published content only (the default)') isPublished?: boolean;
  @FlagField('production', 'Same as isPublished') production?: boolean;
  @FlagField('isStage', 'Staged content (preview)') isStage?: boolean;
  @FlagField('isLive', 'Current version of every record, any status; admin bearer required') isLive?: boolean;
  @FlagField('isAdmin', 'Same as isLive') isAdmin?: boolean;
  @FlagField('isAppGrid', 'Raw rows of the table, no metadata; admin bearer required') isAppGrid?: boolean;

  @ApiPropertyOptional({ type: WhereConditions })
  @Transform(({ value }) => absent(value))
  @IsOptional()
  @IsObject({ message: 'whereConditions must be { operator, conditions: [ { field, operator, value } ] }' })
  @ValidateNested()
  @Type(() => WhereConditions)
  whereConditions?: WhereConditions;

  @OrderByField()
  orderBy?: string;

  @FlagField('isPaging') isPaging?: boolean;

  @PagingField('perPage', { default: 20, description: 'At most DATA_ROWS_MAX_PER_PAGE (default 100)' })
  perPage?: number;

  @PagingField(
    'page',
    { default: 1 },
    Min(1, { message: `page must be between 1 and ${MAX_PAGE}` }),
    Max(MAX_PAGE, { message: `page must be between 1 and ${MAX_PAGE}` }),
  )
  page?: number;

  @FlagField('record', 'Answer the first matching row as `data` (or null)') record?: boolean;

  /** Read by the app context (outside production), not here. */
  @ApiPropertyOptional({ description: 'App id; outside production only' }) @Allow() appID?: number;
}
