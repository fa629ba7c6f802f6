import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions, getSchemaPath } from '@nestjs/swagger';
import { DateProperty, OpenSchema, SuccessEnvelope } from '../common/api-responses';
import { LIFECYCLE_STATUSES } from '../versioning';
import { Type } from 'class-transformer';
import { Allow, IsBoolean, IsDefined, IsInt, IsObject, IsOptional, IsString, Matches, Max, Min, ValidateNested } from 'class-validator';
import { IdField, TextField } from '../common/dto-fields';
import { MAX_ID } from '../common/id-cipher.service';

class RelatedData {
  @TextField('data.parent_table', 100, { required: true, doc: { example: 'core_products' } })
  parent_table: string;

  @IdField('data.parent_id', {
    required: true,
    doc: { example: 101, description: 'Id of the parent record (for versioned tables the master id)' },
  })
  parent_id: number;

  @ApiProperty({ example: 'core_token_template' })
  @IsString({ message: 'data.name must be a string' })
  @Matches(/^[A-Za-z0-9_.:-]{1,100}$/, { message: 'data.name must be 1 to 100 letters, digits or _ . : -' })
  name: string;

  @ApiProperty({ example: 1, description: 'Id of the linked row' })
  @IsInt({ message: 'data.linked must be an integer' })
  @Min(-2147483648, { message: 'data.linked must be a 32-bit integer' })
  @Max(MAX_ID, { message: 'data.linked must be a 32-bit integer' })
  linked: number;
}

export class AddRelatedRequest {
  @ApiPropertyOptional({ description: 'App id; outside production only' }) @Allow() appID?: number;

  @ApiPropertyOptional({ description: 'When true, an identical existing link is returned instead of adding a duplicate' })
  @IsOptional()
  @IsBoolean({ message: 'check must be true or false' })
  check?: boolean;

  @ApiProperty({ type: RelatedData })
  @IsDefined({ message: 'data is required' })
  @IsObject({ message: 'data must be an object: { parent_table, parent_id, name, linked }' })
  @ValidateNested()
  @Type(() => RelatedData)
  data: RelatedData;
}

/* Answers (OpenAPI documentation only: see src/common/api-responses.ts). */

/** A row of /getDataRows: the columns named in `fields`, plus, for versioned tables (every mode but isAppGrid), the record's meta fields. */
@OpenSchema(
  'A row: the columns named in fields (any JSON values); rows of versioned tables read without isAppGrid also carry _id and the meta_* fields',
)
export class DataRow {
  @ApiPropertyOptional({ description: 'Encrypted master id (versioned tables, not isAppGrid)' }) _id?: string;
  @ApiPropertyOptional({ type: 'integer', description: 'The stable id to use for relationships' }) meta_master_id?: number;
  @ApiPropertyOptional({ type: 'integer' }) meta_current_id?: number;
  @ApiPropertyOptional({ type: String, nullable: true }) meta_title?: string | null;
  @ApiPropertyOptional({ enum: LIFECYCLE_STATUSES }) meta_status?: string;
  @ApiPropertyOptional({ type: String, format: 'date-time' }) meta_updated?: string;
}

export class DataRowsPaging {
  @ApiProperty({ type: 'integer' }) page: number;
  @ApiProperty({ type: 'integer' }) perPage: number;
  @ApiProperty({ description: 'More rows follow this page' }) hasMore: boolean;
}

export class DataRowsAnswer extends SuccessEnvelope {
  @ApiProperty({
    nullable: true,
    anyOf: [{ type: 'array', items: { $ref: getSchemaPath(DataRow) } }, { $ref: getSchemaPath(DataRow) }],
    description: 'The rows; with `record: true` the first row, or null when none matches',
  } as ApiPropertyOptions)
  data: Record<string, unknown>[] | Record<string, unknown> | null;

  @ApiPropertyOptional({ type: DataRowsPaging, description: 'With isPaging' }) paging?: DataRowsPaging;
}

export class RelatedRowDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty() parent_table: string;
  @ApiProperty({ type: 'integer' }) parent_id: number;
  @ApiProperty() name: string;
  @ApiProperty({ type: 'integer' }) linked: number;
  @ApiProperty({ type: 'integer', nullable: true, description: "The parent record's master id (versioned parents)" }) master_id:
    number | null;
  @DateProperty() created: Date;
}

export class AddRelatedAnswer extends SuccessEnvelope {
  @ApiProperty({ enum: ['Link added', 'Link already exists'] }) message: string;
  @ApiProperty({ type: RelatedRowDto }) data: RelatedRowDto;
}
