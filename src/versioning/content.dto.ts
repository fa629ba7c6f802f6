import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDateString, IsInt, IsObject, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

/** Ids are PostgreSQL `integer` columns: a larger number could never name a row (and must not reach SQL). */
export const MAX_ID = 2147483647;

/** Names one record of a versioned (or, for edit, live) table of the caller's app. */
export class ContentRecordRequest {
  @ApiProperty({ example: 'core_products', description: 'A table registered in core_tables' })
  @IsString({ message: 'table must be a string' })
  @MaxLength(100, { message: 'table must be at most 100 characters' })
  table: string;

  @ApiPropertyOptional({ description: 'Encrypted master id of the record, as `_id` of a /getDataRows row' })
  @IsOptional()
  @IsInt({ message: '_id must be an encrypted record id' })
  @Max(MAX_ID, { message: '_id must be at most 2147483647' })
  _id?: number;

  @ApiPropertyOptional({ description: 'Plain master id (meta_master_id), instead of _id' })
  @IsOptional()
  @IsInt({ message: 'masterId must be an integer' })
  @Min(1, { message: 'masterId must be a positive integer' })
  @Max(MAX_ID, { message: 'masterId must be at most 2147483647' })
  masterId?: number;
}

export class CreateContentRequest {
  @ApiProperty({ example: 'core_products' })
  @IsString({ message: 'table must be a string' })
  @MaxLength(100, { message: 'table must be at most 100 characters' })
  table: string;

  @ApiProperty({ example: { title: 'E-book', price: 2500, tax: 227, IsDigital: 1 }, description: 'Column values; secret and service-set columns are refused' })
  @IsObject({ message: 'data must be an object of column names to values' })
  data: Record<string, unknown>;
}

export class EditContentRequest extends ContentRecordRequest {
  @ApiProperty({ example: { price: 2700 }, description: 'Changed column values; the other columns are copied from the current version' })
  @IsObject({ message: 'data must be an object of column names to values' })
  data: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'meta_current_id of the version the editor started from: a newer current version makes the save 409' })
  @IsOptional()
  @IsInt({ message: 'expectedCurrentId must be an integer' })
  @Min(1, { message: 'expectedCurrentId must be a positive integer' })
  @Max(MAX_ID, { message: 'expectedCurrentId must be at most 2147483647' })
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
  @ApiProperty({ description: 'meta_current_id (Current_ID) of the version to restore' })
  @IsInt({ message: 'toCurrentId must be an integer' })
  @Min(1, { message: 'toCurrentId must be a positive integer' })
  @Max(MAX_ID, { message: 'toCurrentId must be at most 2147483647' })
  toCurrentId: number;
}

export class DiffContentRequest extends ContentRecordRequest {
  @ApiPropertyOptional({ description: 'Current_ID of the older version (default: the version before `to`)' })
  @IsOptional()
  @IsInt({ message: 'fromCurrentId must be an integer' })
  @Min(1, { message: 'fromCurrentId must be a positive integer' })
  @Max(MAX_ID, { message: 'fromCurrentId must be at most 2147483647' })
  fromCurrentId?: number;

  @ApiPropertyOptional({ description: 'Current_ID of the newer version (default: the current version)' })
  @IsOptional()
  @IsInt({ message: 'toCurrentId must be an integer' })
  @Min(1, { message: 'toCurrentId must be a positive integer' })
  @Max(MAX_ID, { message: 'toCurrentId must be at most 2147483647' })
  toCurrentId?: number;
}
