import { ApiProperty } from '@nestjs/swagger';
import { OpenSchema, SuccessEnvelope } from '../common/api-responses';
import { IdField, TextField } from '../common/dto-fields';
import { ListPaging, OneOfField, PageField, PerPageField } from '../common/list-fields';
import { CONTENT_STAGES, ContentStage } from './content-stages';

/* POST /content/tables and /content/rows (README "Staff API: content tables"). */

const APP_ID_DOC = { description: 'App id; the site-id header is preferred. Read from the body only outside production.' };
const COLUMN_KINDS = ['integer', 'number', 'boolean', 'datetime', 'text', 'json', 'other'];

export class ContentTablesRequest {
  @IdField('appID', { doc: APP_ID_DOC })
  appID?: number;
}

export class ContentRowsRequest {
  @IdField('appID', { doc: APP_ID_DOC })
  appID?: number;

  @TextField('table', 100, {
    required: true,
    doc: { description: 'A content table (as /content/tables lists them)', example: 'core_products' },
  })
  table: string;

  @OneOfField(
    'stage',
    CONTENT_STAGES,
    'draft (the current version New, Editing or Rolled Back, not published or staged), staged (the ' +
      'newest staged version not published), published (the published version, its expiry date not ' +
      'passed), expired (the current version Expired, or the published version past its expiry date)',
    true,
  )
  stage: ContentStage;

  @PageField()
  page?: number;

  @PerPageField('Records')
  perPage?: number;
}

/* Answers (OpenAPI documentation only: see src/common/api-responses.ts). */

export class StageCountsDto {
  @ApiProperty({ type: 'integer' }) draft: number;
  @ApiProperty({ type: 'integer' }) staged: number;
  @ApiProperty({ type: 'integer' }) published: number;
  @ApiProperty({ type: 'integer' }) expired: number;
}

export class EditableColumnDto {
  @ApiProperty() name: string;
  @ApiProperty({ enum: COLUMN_KINDS, description: "The kind of value the column takes (a form's input)" }) kind: string;
  @ApiProperty() nullable: boolean;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Characters, for a text column with a declared length' }) maxLength:
    number | null;
}

export class ContentTableDto {
  @ApiProperty({ example: 'core_products' }) table: string;
  @ApiProperty({ description: 'A live table keeps no versions (edited in place)' }) live: boolean;
  @ApiProperty({ type: String, nullable: true, description: 'The column copied into meta_title' }) titleField: string | null;
  @ApiProperty({ type: StageCountsDto, description: "The app's records in each stage" }) stages: StageCountsDto;
  @ApiProperty({
    type: [EditableColumnDto],
    description: '/content/create and /content/edit take these in `data` (never id, app_id, created, updated or a secret column)',
  })
  columns: EditableColumnDto[];
}

export class ContentTablesAnswer extends SuccessEnvelope {
  @ApiProperty({ type: [ContentTableDto] }) data: ContentTableDto[];
}

@OpenSchema(
  "A record in the stage: `_id` (the encrypted record id), the version's content row (its columns but secret ones) and " +
    'meta_master_id, meta_current_id, meta_title, meta_status, meta_updated, meta_publish_set_date, meta_publish_expire_date',
)
export class StagedRecord {}

export class ContentRowsAnswer extends SuccessEnvelope {
  @ApiProperty({ type: [StagedRecord] }) data: Record<string, unknown>[];
  @ApiProperty({ type: ListPaging }) paging: ListPaging;
}
