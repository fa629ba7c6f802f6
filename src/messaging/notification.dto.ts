import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsObject, IsOptional, IsString, Matches, MaxLength, Min, MinLength } from 'class-validator';

export class SendNotificationRequest {
  @ApiProperty({ description: 'Event name: selects the enabled template of core_notifications', example: 'welcome' })
  @IsString({ message: 'event must be a string' })
  @MinLength(1, { message: 'event is required' })
  @MaxLength(100, { message: 'event must be at most 100 characters' })
  event: string;

  @ApiPropertyOptional({ description: 'Recipient address; `NONE` sends only to the BCC addresses', example: 'cust@example.test' })
  @IsOptional()
  @IsString({ message: 'email must be a string' })
  @MaxLength(320, { message: 'email must be at most 320 characters' })
  email?: string;

  @ApiPropertyOptional({ description: 'Table to link the notification to (core_related)', example: 'core_orders' })
  @IsOptional()
  @IsString({ message: 'table must be a string' })
  @Matches(/^[A-Za-z_][A-Za-z0-9_]{0,99}$/, { message: 'table must be a table name' })
  table?: string;

  @ApiPropertyOptional({ description: 'Record id in that table', example: 42 })
  @IsOptional()
  @IsInt({ message: 'master_id must be an integer' })
  @Min(1, { message: 'master_id must be a positive integer' })
  master_id?: number;

  @ApiPropertyOptional({ description: 'Values for [fieldname] placeholders in subject and content', example: { firstname: 'Cy' } })
  @IsOptional()
  @IsObject({ message: 'data must be an object' })
  data?: Record<string, unknown>;

  @ApiPropertyOptional({
    description: 'One SELECT providing merge data (first row), when the app enables it; see docs/messaging.md',
    example: 'SELECT firstname, email FROM core_customers WHERE id = 5',
  })
  @IsOptional()
  @IsString({ message: 'SQL must be a string' })
  @MaxLength(10000, { message: 'SQL must be at most 10000 characters' })
  SQL?: string;

  @ApiPropertyOptional({ description: 'Field of data or of the SQL row holding the recipient address', example: 'email' })
  @IsOptional()
  @IsString({ message: 'setEmailField must be a string' })
  @MaxLength(100, { message: 'setEmailField must be at most 100 characters' })
  setEmailField?: string;
}

export class SendPushRequest {
  @ApiProperty({ description: 'Encrypted customer id (the `_id` of a customer)' })
  @IsString({ message: 'customerID must be a string' })
  @MinLength(1, { message: 'customerID is required' })
  customerID: string;

  @ApiPropertyOptional({ description: 'Notification title', default: 'Notification' })
  @IsOptional()
  @IsString({ message: 'title must be a string' })
  @MaxLength(200, { message: 'title must be at most 200 characters' })
  title?: string;

  @ApiProperty({ description: 'Body text' })
  @IsString({ message: 'message must be a string' })
  @MinLength(1, { message: 'message is required' })
  @MaxLength(2000, { message: 'message must be at most 2000 characters' })
  message: string;

  @ApiPropertyOptional({ description: 'Extra payload delivered to the service worker' })
  @IsOptional()
  @IsObject({ message: 'data must be an object' })
  data?: Record<string, unknown>;
}

export class MessagingResponse {
  @ApiProperty({ enum: ['Success', 'Failed', 'Error'] }) status: string;
  @ApiPropertyOptional() message?: string;
}
