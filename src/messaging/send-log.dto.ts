import { ApiProperty } from '@nestjs/swagger';
import { DateProperty, SuccessEnvelope } from '../common/api-responses';
import { EmailField, IdField, TextField } from '../common/dto-fields';
import { DateField, OneOfField, PerPageField } from '../common/list-fields';
import { NotificationStatus } from './entities/notification-log.entity';

/* Request and answer bodies of the send log (README "Staff API: the send log"): POST /message/log, /read, /retry. */

const STATUSES: NotificationStatus[] = ['Pending', 'Sent', 'Failed'];

class SendLogAppRequest {
  @IdField('appID', { doc: { description: 'App id; the site-id header is preferred. Read from the body only outside production.' } })
  appID?: number;
}

export class ListSendLogRequest extends SendLogAppRequest {
  @OneOfField('status', STATUSES, 'Pending (queued or being retried), Sent, or Failed (given up after NOTIFY_MAX_ATTEMPTS refusals)')
  status?: NotificationStatus;

  @EmailField('email', {
    doc: { description: 'The recipient (To address), exact but without regard to case' },
  })
  email?: string;

  @TextField('event', 100, { doc: { description: "The template's event name (core_notifications.event), exact" } })
  event?: string;

  @DateField('from', 'Mails queued (created) at or after this time')
  from?: string;

  @DateField('to', 'Mails queued (created) before this time')
  to?: string;

  @TextField('cursor', 200, {
    doc: { description: "The previous page's `paging.nextCursor`, with the same filters; omit it for the first (newest) page" },
  })
  cursor?: string;

  @PerPageField('Mails')
  perPage?: number;
}

export class SendLogMailRequest extends SendLogAppRequest {
  @IdField('id', { required: true, doc: { description: 'The mail (core_notification_log id, as the list shows it)' } })
  id: number;
}

/* Answers (OpenAPI documentation only: see src/common/api-responses.ts). */

export class SendLogItemDto {
  @ApiProperty({ type: 'integer', description: 'core_notification_log id' }) id: number;
  @ApiProperty({ description: "The template's event" }) event: string;
  @ApiProperty({ type: 'integer', nullable: true, description: 'The template (core_notifications id); null once it was deleted' })
  templateID: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'The To address; null for a mail to its BCC addresses only (NONE)' })
  email: string | null;
  @ApiProperty({ description: 'The subject as merged' }) subject: string;
  @ApiProperty({ enum: STATUSES }) status: NotificationStatus;
  @ApiProperty({ type: 'integer', description: 'Delivery attempts the mail server gave a verdict on' }) attempts: number;
  @ApiProperty({ type: String, nullable: true, description: "The mail server's last refusal" }) lastError: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The linked record, when the notification named one' })
  linkedTable: string | null;
  @ApiProperty({ type: 'integer', nullable: true }) masterID: number | null;
  @DateProperty({ description: 'When the mail was queued' }) created: Date;
  @DateProperty({ nullable: true, description: 'When the mail server accepted it' }) sent: Date | null;
}

export class SendLogPaging {
  @ApiProperty({ type: 'integer' }) perPage: number;
  @ApiProperty({ description: 'More mails follow this page' }) hasMore: boolean;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Send it as `cursor` (with the same filters) for the next page; null on the last page',
  })
  nextCursor: string | null;
}

export class ListSendLogAnswer extends SuccessEnvelope {
  @ApiProperty({ type: [SendLogItemDto] }) data: SendLogItemDto[];
  @ApiProperty({ type: SendLogPaging }) paging: SendLogPaging;
}

export class SendLogDetailDto extends SendLogItemDto {
  @ApiProperty({ description: 'The From address' }) from: string;
  @ApiProperty({ type: String, nullable: true, description: 'CC addresses' }) cc: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'BCC addresses (comma-separated)' }) bcc: string | null;
  @ApiProperty({ enum: ['html', 'text'], description: 'Whether the body is sent as HTML or as plain text' }) contentType: 'html' | 'text';
  @ApiProperty({ type: String, nullable: true, description: 'The HTML part as merged; null for a plain-text mail' }) html: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The plain-text part; null for an HTML mail sent without one' })
  text: string | null;
  @DateProperty({ nullable: true, description: 'A Pending mail: when the sender takes it next; null otherwise' })
  nextAttempt: Date | null;
}

export class SendLogMailAnswer extends SuccessEnvelope {
  @ApiProperty({ type: SendLogDetailDto }) data: SendLogDetailDto;
}
