import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { OPEN_OBJECT } from '../common/api-responses';
import { IsInt, IsNotEmpty, IsObject, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';

// Decorators run bottom-up and the pipe stops at the first failure: the presence and type checks are last.

/** PostgreSQL text cannot hold U+0000; refusing it keeps such input a 400 instead of a failed INSERT. */
const NO_NUL = /^[^\u0000]*$/;
const noNul = (field: string) => ({ message: `${field} must not contain NUL characters` });

/** Largest value of an `integer` column (master_id, core_related.parent_id). */
const INT4_MAX = 2_147_483_647;

export class SendNotificationRequest {
  @ApiProperty({ description: 'Event name: selects the enabled template of core_notifications', example: 'welcome' })
  @Matches(NO_NUL, noNul('event'))
  @MaxLength(100, { message: 'event must be at most 100 characters' })
  @IsString({ message: 'event must be a string' })
  @IsNotEmpty({ message: 'event is required' })
  event: string;

  @ApiPropertyOptional({ description: 'Recipient address; `NONE` sends only to the BCC addresses', example: 'cust@example.test' })
  @Matches(NO_NUL, noNul('email'))
  @MaxLength(320, { message: 'email must be at most 320 characters' })
  @IsString({ message: 'email must be a string' })
  @IsOptional()
  email?: string;

  @ApiPropertyOptional({
    description: "Table to link the notification to (a core_related row); one of the service's tables, else 400",
    example: 'core_orders',
  })
  @Matches(/^[A-Za-z_][A-Za-z0-9_]{0,99}$/, { message: 'table must be a table name' })
  @IsString({ message: 'table must be a string' })
  @IsOptional()
  table?: string;

  @ApiPropertyOptional({ description: 'Record id in that table', example: 42 })
  @Max(INT4_MAX, { message: `master_id must be at most ${INT4_MAX}` })
  @Min(1, { message: 'master_id must be a positive integer' })
  @IsInt({ message: 'master_id must be an integer' })
  @IsOptional()
  master_id?: number;

  @ApiPropertyOptional({
    ...OPEN_OBJECT,
    description: 'Values for [fieldname] placeholders in subject and content',
    example: { firstname: 'Cy' },
  })
  @IsObject({ message: 'data must be an object' })
  @IsOptional()
  data?: Record<string, unknown>;

  @ApiPropertyOptional({
    description:
      'One SELECT providing merge data (first row), when the app enables it; needs the bearer token of an admin of the app (401/403); see docs/messaging.md',
    example: 'SELECT firstname, email FROM core_customers WHERE id = 5',
  })
  @Matches(NO_NUL, noNul('SQL'))
  @MaxLength(10000, { message: 'SQL must be at most 10000 characters' })
  @IsString({ message: 'SQL must be a string' })
  @IsOptional()
  SQL?: string;

  @ApiPropertyOptional({ description: 'Field of data or of the SQL row holding the recipient address', example: 'email' })
  @MaxLength(100, { message: 'setEmailField must be at most 100 characters' })
  @IsString({ message: 'setEmailField must be a string' })
  @IsOptional()
  setEmailField?: string;
}

export class SendPushRequest {
  @ApiProperty({ description: 'Encrypted customer id (the `_id` of a customer)' })
  @MaxLength(1000, { message: 'customerID must be at most 1000 characters' })
  @IsString({ message: 'customerID must be a string' })
  @IsNotEmpty({ message: 'customerID is required' })
  customerID: string;

  @ApiPropertyOptional({ description: 'Notification title', default: 'Notification' })
  @MaxLength(200, { message: 'title must be at most 200 characters' })
  @IsString({ message: 'title must be a string' })
  @IsOptional()
  title?: string;

  @ApiProperty({ description: 'Body text' })
  @MaxLength(2000, { message: 'message must be at most 2000 characters' })
  @IsString({ message: 'message must be a string' })
  @IsNotEmpty({ message: 'message is required' })
  message: string;

  @ApiPropertyOptional({ ...OPEN_OBJECT, description: 'Extra payload delivered to the service worker' })
  @IsObject({ message: 'data must be an object' })
  @IsOptional()
  data?: Record<string, unknown>;
}

/* Answers (OpenAPI documentation only: see src/common/api-responses.ts). Messaging answers without `datetime`. */

/** `{ status: Success }`. */
export class MessagingSuccess {
  @ApiProperty({ enum: ['Success'] }) status: 'Success';
}

/** `{ status: Failed, message: Notifications are disabled }` (HTTP 200: the app's disable_email is set). */
export class NotificationsDisabled {
  @ApiProperty({ enum: ['Failed'] }) status: 'Failed';
  @ApiProperty({ enum: ['Notifications are disabled'] }) message: 'Notifications are disabled';
}

/** `{ status: Error }` (HTTP 200): the push could not be sent (no subscription, no VAPID keys, the push service refused it). */
export class PushFailed {
  @ApiProperty({ enum: ['Error'] }) status: 'Error';
}
