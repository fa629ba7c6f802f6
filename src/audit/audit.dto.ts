import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsISO8601, IsOptional, IsString, Max, Min } from 'class-validator';
import { DateProperty, OPEN_OBJECT, SuccessEnvelope } from '../common/api-responses';
import { IdField, TextField } from '../common/dto-fields';

/* POST /staff/audit (README "Audit log"). */

export const AUDIT_MAX_PER_PAGE = 100;
const APP_ID_DOC = { description: 'App id; the site-id header is preferred. Read from the body only outside production.' };

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

function DateField(name: string, description: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: String, format: 'date-time', description }),
    Transform(({ value }) => (value === null ? undefined : value)),
    IsOptional(),
    IsString({ message: `${name} must be a string` }),
    IsISO8601({ strict: true }, { message: `${name} must be an ISO 8601 date or date-time` }),
  );
}

export class ListAuditRequest {
  @IdField('appID', { doc: APP_ID_DOC })
  appID?: number;

  @IdField('actor', { doc: { description: 'The acting staff account (core_users id)' } })
  actor?: number;

  @TextField('action', 64, { doc: { description: 'The action exactly: order.refund, order.cancel, content.publish, settings.update…' } })
  action?: string;

  @TextField('table', 64, { doc: { description: 'The table of the changed record: core_orders, core_sites, a content table…' } })
  table?: string;

  @TextField('recordId', 64, { doc: { description: "The changed record's id (with `table`)" } })
  recordId?: string;

  @DateField('from', 'Rows written at or after this time')
  from?: string;

  @DateField('to', 'Rows written before this time')
  to?: string;

  @OptionalInt('page', 1, 1_000_000, 'Page number, from 1')
  page?: number;

  @OptionalInt('perPage', 1, AUDIT_MAX_PER_PAGE, `Rows per page, 1..${AUDIT_MAX_PER_PAGE}; default 20`)
  perPage?: number;
}

export class AuditActorDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ description: 'The account table: core_users for staff' }) table: string;
}

export class AuditItemDto {
  @ApiProperty({ description: 'Row id (a bigint, as a string)' }) id: string;
  @ApiProperty({ type: AuditActorDto, nullable: true, description: 'Null for the system (a job, the CLI, a provider event)' })
  actor: AuditActorDto | null;
  @ApiProperty() action: string;
  @ApiProperty() table: string;
  @ApiProperty({ type: String, nullable: true }) recordId: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The address the request came from' }) ip: string | null;
  @DateProperty() created: Date;
  @ApiProperty({
    ...OPEN_OBJECT,
    description: '{ field: { before, after } } of the fields the action changed; secret fields read `[masked]` (or null when unset)',
  })
  changes: Record<string, { before: unknown; after: unknown }>;
}

export class AuditPaging {
  @ApiProperty({ type: 'integer' }) page: number;
  @ApiProperty({ type: 'integer' }) perPage: number;
  @ApiProperty({ description: 'More rows follow this page' }) hasMore: boolean;
}

export class ListAuditAnswer extends SuccessEnvelope {
  @ApiProperty({ type: [AuditItemDto] }) data: AuditItemDto[];
  @ApiProperty({ type: AuditPaging }) paging: AuditPaging;
}
