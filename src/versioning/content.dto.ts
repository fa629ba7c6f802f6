import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDateString, IsInt, IsObject, IsOptional, Max } from 'class-validator';
import { IdField, TextField } from '../common/dto-fields';
import { MAX_ID } from '../common/id-cipher.service';

/** Names one record of a versioned (or, for edit, live) table of the caller's app. */
export class ContentRecordRequest {
  @TextField('table', 100, { required: true, doc: { example: 'core_products', description: 'A table registered in core_tables' } })
  table: string;

  @ApiPropertyOptional({ description: 'Encrypted master id of the record, as `_id` of a /getDataRows row' })
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

  @ApiProperty({ example: { title: 'E-book', price: 2500, tax: 227, IsDigital: 1 }, description: 'Column values; secret and service-set columns are refused' })
  @IsObject({ message: 'data must be an object of column names to values' })
  data: Record<string, unknown>;
}

export class EditContentRequest extends ContentRecordRequest {
  @ApiProperty({ example: { price: 2700 }, description: 'Changed column values; the other columns are copied from the current version' })
  @IsObject({ message: 'data must be an object of column names to values' })
  data: Record<string, unknown>;

  @IdField('expectedCurrentId', { doc: { description: 'meta_current_id of the version the editor started from: a newer current version makes the save 409' } })
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
