import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsNotEmpty, IsOptional, IsString, Max, Min } from 'class-validator';

/*
 * Request fields of the staff lists (filters, dates, page and perPage) and the paging answer of those paged by
 * number, with the house's messages: 400 `Validation error` naming the field.
 */

export const LIST_MAX_PER_PAGE = 100;
export const LIST_DEFAULT_PER_PAGE = 20;
const MAX_PAGE = 1_000_000;

function OptionalInt(name: string, min: number, max: number, description: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: 'integer', minimum: min, maximum: max, description }),
    Transform(({ value }) => (value === null ? undefined : value)),
    IsOptional(),
    IsInt({ message: `${name} must be an integer` }),
    Min(min, { message: `${name} must be at least ${min}` }),
    Max(max, { message: `${name} must be at most ${max}` }),
  );
}

/** `page`: from 1 (default 1). */
export function PageField(): PropertyDecorator {
  return OptionalInt('page', 1, MAX_PAGE, 'Page number, from 1');
}

/** `perPage`: 1..100 (default 20). */
export function PerPageField(noun = 'Rows'): PropertyDecorator {
  return OptionalInt('perPage', 1, LIST_MAX_PER_PAGE, `${noun} per page, 1..${LIST_MAX_PER_PAGE}; default ${LIST_DEFAULT_PER_PAGE}`);
}

/** One of `values` (a string), optional unless `required`. */
export function OneOfField(name: string, values: readonly string[], description?: string, required = false): PropertyDecorator {
  return applyDecorators(
    ...(required
      ? [ApiProperty({ enum: values, description }), IsNotEmpty({ message: `${name} is required` })]
      : [ApiPropertyOptional({ enum: values, description }), Transform(({ value }) => (value === null ? undefined : value)), IsOptional()]),
    IsString({ message: `${name} must be a string` }),
    IsIn(values as string[], { message: `${name} must be one of ${values.join(', ')}` }),
  );
}

/** An optional ISO 8601 date or date-time (`null` is absent): a list's from/to. */
export function DateField(name: string, description: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: String, format: 'date-time', description }),
    Transform(({ value }) => (value === null ? undefined : value)),
    IsOptional(),
    IsString({ message: `${name} must be a string` }),
    IsISO8601({ strict: true }, { message: `${name} must be an ISO 8601 date or date-time` }),
  );
}

/** The page, its size and whether more rows follow. */
export class ListPaging {
  @ApiProperty({ type: 'integer' }) page: number;
  @ApiProperty({ type: 'integer' }) perPage: number;
  @ApiProperty({ description: 'More rows follow this page' }) hasMore: boolean;
}

/** `{ page, perPage }` of a request as the offset and limit of its query (one more row than the page: whether more follow). */
export function pageOf(query: { page?: number; perPage?: number }): { page: number; perPage: number; offset: number; limit: number } {
  const page = query.page ?? 1;
  const perPage = query.perPage ?? LIST_DEFAULT_PER_PAGE;
  return { page, perPage, offset: (page - 1) * perPage, limit: perPage + 1 };
}

/** The page's rows and its paging, from the rows a query read with pageOf's limit. */
export function pageAnswer<T>(rows: T[], paging: { page: number; perPage: number }): { data: T[]; paging: ListPaging } {
  return {
    data: rows.slice(0, paging.perPage),
    paging: { page: paging.page, perPage: paging.perPage, hasMore: rows.length > paging.perPage },
  };
}
