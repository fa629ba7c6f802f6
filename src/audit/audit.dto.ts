import { ApiProperty } from '@nestjs/swagger';
import { DateProperty, OPEN_OBJECT, SuccessEnvelope } from '../common/api-responses';
import { IdField, TextField } from '../common/dto-fields';
import { DateField, PageField, PerPageField } from '../common/list-fields';

/* POST /staff/audit (README "Audit log"). */

const APP_ID_DOC = { description: 'App id; the site-id header is preferred. Read from the body only outside production.' };

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

  @PageField()
  page?: number;

  @PerPageField()
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
