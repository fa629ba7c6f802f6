import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions, getSchemaPath } from '@nestjs/swagger';
import { ANY_VALUE, DateProperty, OPEN_OBJECT, OpenSchema, SuccessEnvelope } from '../common/api-responses';
import { LIFECYCLE_STATUSES, LifecycleStatus } from './lifecycle';
import { IsDateString, IsInt, IsObject, IsOptional, Max } from 'class-validator';
import { IdField, TextField } from '../common/dto-fields';
import { MAX_ID } from '../common/id-cipher.service';

/** Names one record of a versioned (or, for edit, live) table of the caller's app. */
export class ContentRecordRequest {
  @TextField('table', 100, { required: true, doc: { example: 'core_products', description: 'A table registered in core_tables' } })
  table: string;

  @ApiPropertyOptional({
    type: 'string',
    description:
      'Encrypted master id of the record (a string), as `_id` of a /getDataRows row; a ' +
      'number is no encrypted id and names no record (use masterId for the plain id)',
  })
  @IsOptional()
  @IsInt({ message: '_id must be an encrypted record id' })
  @Max(MAX_ID, { message: `_id must be at most ${MAX_ID}` })
  _id?: number;

  @IdField('masterId', { doc: { description: 'Plain master id (meta_master_id), instead of _id' } })
  masterId?: number;
}

export class CreateContentRequest {
  @TextField('table', 100, { required: true, doc: { example: 'core_products' } })
  table: string;

  @ApiProperty({
    ...OPEN_OBJECT,
    example: { title: 'E-book', price: 2500, tax: 227, IsDigital: 1 },
    description: 'Column values; secret and service-set columns are refused',
  })
  @IsObject({ message: 'data must be an object of column names to values' })
  data: Record<string, unknown>;
}

export class EditContentRequest extends ContentRecordRequest {
  @ApiProperty({
    ...OPEN_OBJECT,
    example: { price: 2700 },
    description: 'Changed column values; the other columns are copied from the current version',
  })
  @IsObject({ message: 'data must be an object of column names to values' })
  data: Record<string, unknown>;

  @IdField('expectedCurrentId', {
    doc: { description: 'meta_current_id of the version the editor started from: a newer current version makes the save 409' },
  })
  expectedCurrentId?: number;
}

export class PublishContentRequest extends ContentRecordRequest {
  @ApiPropertyOptional({ description: 'ISO 8601; when readers start seeing the version (default now). A future date schedules it.' })
  @IsOptional()
  @IsDateString({}, { message: 'publishSetDate must be an ISO 8601 date' })
  publishSetDate?: string;

  @ApiPropertyOptional({ description: 'ISO 8601; when the expiry job turns the published version into Expired (default never)' })
  @IsOptional()
  @IsDateString({}, { message: 'publishExpireDate must be an ISO 8601 date' })
  publishExpireDate?: string;
}

export class RollbackContentRequest extends ContentRecordRequest {
  @IdField('toCurrentId', { required: true, doc: { description: 'meta_current_id (Current_ID) of the version to restore' } })
  toCurrentId: number;
}

export class DiffContentRequest extends ContentRecordRequest {
  @IdField('fromCurrentId', { doc: { description: 'Current_ID of the older version (default: the version before `to`)' } })
  fromCurrentId?: number;

  @IdField('toCurrentId', { doc: { description: 'Current_ID of the newer version (default: the current version)' } })
  toCurrentId?: number;
}

/* Answers (OpenAPI documentation only: see src/common/api-responses.ts). */

const BIT = { type: 'integer', enum: [0, 1] } as const;

/** A version of a record: its core_data row (its column names, case included) with the encrypted master id. */
export class ContentVersion {
  @ApiProperty({ description: 'Encrypted master id of the record' }) _id: string;
  @ApiProperty({ type: 'integer', description: 'Metadata row id' }) ID: number;
  @ApiProperty() Source_Table: string;
  @ApiProperty({ type: 'integer', description: 'Row id of this version in the content table (meta_current_id)' }) Current_ID: number;
  @ApiProperty({ type: 'integer', description: 'Constant id across all versions (meta_master_id)' }) Master_ID: number;
  @ApiProperty(BIT) IsCurrent: 0 | 1;
  @ApiProperty({ enum: LIFECYCLE_STATUSES }) Status: LifecycleStatus;
  @ApiProperty(BIT) Published: 0 | 1;
  @ApiProperty(BIT) Staged: 0 | 1;
  @ApiProperty(BIT) IsExpired: 0 | 1;
  @ApiProperty({ type: String, nullable: true }) Title: string | null;
  @DateProperty() Created: Date;
  @DateProperty() Updated: Date;
  @ApiProperty({ type: 'integer', nullable: true }) Created_By: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) Updated_By: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) Publish_By: number | null;
  @DateProperty({ nullable: true }) Publish_Set_Date: Date | null;
  @DateProperty({ nullable: true }) Publish_Expire_Date: Date | null;
  @ApiProperty({ type: 'integer', nullable: true, description: "The previous version's metadata row" }) Last_ID: number | null;
  @ApiProperty({ type: 'integer', nullable: true, description: "The next version's metadata row" }) Next_ID: number | null;
  @ApiProperty(BIT) Lock: 0 | 1;
}

/** A row of a live table as it is after an edit: its columns (secret ones left out). */
@OpenSchema('A row of a live table: its columns')
export class LiveTableRow {}

export class ContentVersionAnswer extends SuccessEnvelope {
  @ApiProperty({ description: 'What happened (e.g. Record created, Record published, Already published)' }) message: string;
  @ApiProperty({ type: ContentVersion }) data: ContentVersion;
}

export class ContentEditAnswer extends SuccessEnvelope {
  @ApiProperty() message: string;
  @ApiProperty({
    anyOf: [{ $ref: getSchemaPath(ContentVersion) }, { $ref: getSchemaPath(LiveTableRow) }],
    description: 'The new version; for a live table, the updated row',
  })
  data: ContentVersion | Record<string, unknown>;
}

export class ContentHistoryAnswer extends SuccessEnvelope {
  @ApiProperty({ type: [ContentVersion] }) data: ContentVersion[];
}

export class FieldChangeDto {
  @ApiProperty() field: string;
  @ApiProperty({ ...ANY_VALUE, description: 'The value in the older version' } as ApiPropertyOptions) from: unknown;
  @ApiProperty({ ...ANY_VALUE, description: 'The value in the newer version' } as ApiPropertyOptions) to: unknown;
}

export class ContentDiff {
  @ApiProperty({ description: 'Encrypted master id' }) _id: string;
  @ApiProperty({ type: ContentVersion }) from: ContentVersion;
  @ApiProperty({ type: ContentVersion }) to: ContentVersion;
  @ApiProperty({ type: [FieldChangeDto] }) changes: FieldChangeDto[];
}

export class ContentDiffAnswer extends SuccessEnvelope {
  @ApiProperty({ type: ContentDiff }) data: ContentDiff;
}
