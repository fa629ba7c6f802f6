import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsObject, IsOptional, Max, Min } from 'class-validator';
import { DateProperty, SuccessEnvelope } from '../../common/api-responses';
import { EmailField, TextField } from '../../common/dto-fields';
import { VERSION_ACTIONS, VersionAction } from '../entities/notification-version.entity';
import { TEMPLATE_LIMITS } from './template-rules';

/*
 * Bodies and answers of the staff API of notification templates (docs/messaging.md "Templates per tenant").
 * A template is named by its event (unique per app). Types and sizes are checked here; the event name's
 * shape, the markup and the merge fields when the template is saved (template-rules.ts), 400 naming the field.
 */

function EnabledField(): PropertyDecorator {
  return (target, key) => {
    ApiPropertyOptional({ type: Boolean, description: 'Whether /message/notification (or the mail of the service) uses it; default true' })(
      target,
      key,
    );
    Transform(({ value }) => (value === null ? undefined : value))(target, key);
    IsOptional()(target, key);
    IsBoolean({ message: 'enabled must be true or false' })(target, key);
  };
}

function DataField(): PropertyDecorator {
  return (target, key) => {
    ApiPropertyOptional({
      type: 'object',
      additionalProperties: true,
      description: 'Values of the merge fields ([name] placeholders); without it, sample data',
      example: { firstname: 'Cy' },
    })(target, key);
    Transform(({ value }) => (value === null ? undefined : value))(target, key);
    IsOptional()(target, key);
    IsObject({ message: 'data must be an object' })(target, key);
  };
}

const EVENT_DOC = {
  description:
    'Event name (unique per app): a letter, then letters, digits, _, . or - (at most 100). ' +
    "order_confirmation, order_admin and order_refund replace the service's order mails",
  example: 'welcome',
};

export class TemplateEventRequest {
  @TextField('event', TEMPLATE_LIMITS.event, { required: true, doc: EVENT_DOC })
  event: string;
}

export class CreateTemplateRequest extends TemplateEventRequest {
  @EnabledField()
  enabled?: boolean;

  @TextField('subject', TEMPLATE_LIMITS.subject, {
    required: true,
    doc: { description: 'Subject line with [field] placeholders (one line)', example: 'Hi [firstname]' },
  })
  subject: string;

  @TextField('content', TEMPLATE_LIMITS.content, {
    required: true,
    doc: { description: 'HTML with [field] placeholders; its markup must be balanced', example: '<p>Hello [firstname]</p>' },
  })
  content: string;

  @TextField('from', TEMPLATE_LIMITS.from, { doc: { description: "Sender address; blank: the app's email_from" } })
  from?: string;

  @TextField('bcc', TEMPLATE_LIMITS.bcc, { doc: { description: 'BCC addresses, separated by , or ;' } })
  bcc?: string;
}

export class UpdateTemplateRequest extends TemplateEventRequest {
  @EnabledField()
  enabled?: boolean;

  @TextField('subject', TEMPLATE_LIMITS.subject, { doc: { description: 'New subject; absent: unchanged' } })
  subject?: string;

  @TextField('content', TEMPLATE_LIMITS.content, { doc: { description: 'New HTML content; absent: unchanged' } })
  content?: string;

  @TextField('from', TEMPLATE_LIMITS.from, { doc: { description: 'New sender address; blank clears it, absent: unchanged' } })
  from?: string;

  @TextField('bcc', TEMPLATE_LIMITS.bcc, { doc: { description: 'New BCC list; blank clears it, absent: unchanged' } })
  bcc?: string;
}

export class RestoreTemplateRequest extends TemplateEventRequest {
  @ApiProperty({ type: 'integer', minimum: 1, description: 'The version to make current again (templates/versions)' })
  @Max(2_147_483_647, { message: 'version must be at most 2147483647' })
  @Min(1, { message: 'version must be a positive integer' })
  @IsInt({ message: 'version must be an integer' })
  version: number;
}

export class PreviewTemplateRequest extends TemplateEventRequest {
  @DataField()
  data?: Record<string, unknown>;

  @TextField('subject', TEMPLATE_LIMITS.subject, {
    doc: { description: 'A subject to preview in place of the saved one (checked, not saved)' },
  })
  subject?: string;

  @TextField('content', TEMPLATE_LIMITS.content, {
    doc: { description: 'Content to preview in place of the saved one (checked, not saved)' },
  })
  content?: string;
}

export class TestSendTemplateRequest extends TemplateEventRequest {
  @EmailField('email', { required: true, doc: { description: 'The one address the test goes to (no CC, no BCC)' } })
  email: string;

  @DataField()
  data?: Record<string, unknown>;
}

export class TemplateItem {
  @ApiProperty() event: string;
  @ApiProperty() enabled: boolean;
  @ApiProperty() subject: string;
  @ApiProperty() content: string;
  @ApiProperty({ type: String, nullable: true }) from: string | null;
  @ApiProperty({ type: String, nullable: true }) bcc: string | null;
  @DateProperty() created: Date;
  @DateProperty() updated: Date;
  @ApiProperty({ type: 'integer', description: 'Its latest version (0: saved before versions were kept, unchanged since)' })
  version: number;
  @ApiProperty({ description: "Whether the event is one of the service's own mails (order_confirmation, order_admin, order_refund)" })
  reserved: boolean;
  @ApiProperty({ type: [String], description: 'The merge fields it may use (a mail of the service) or those it uses' })
  mergeFields: string[];
}

export class TemplateVersionItem {
  @ApiProperty({ type: 'integer' }) version: number;
  @ApiProperty({ enum: VERSION_ACTIONS, description: 'The change that left the template so (delete: its state before)' })
  action: VersionAction;
  @ApiProperty() enabled: boolean;
  @ApiProperty() subject: string;
  @ApiProperty() content: string;
  @ApiProperty({ type: String, nullable: true }) from: string | null;
  @ApiProperty({ type: String, nullable: true }) bcc: string | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'The core_users account that made the change' })
  userId: number | null;
  @DateProperty() created: Date;
}

export class TemplatePreview {
  @ApiProperty() subject: string;
  @ApiProperty() html: string;
  @ApiProperty({ description: 'The plain-text part, derived from the HTML' }) text: string;
  @ApiProperty({ type: [String], description: 'Merge fields used that the data filled' }) usedFields: string[];
  @ApiProperty({ type: [String], description: 'Merge fields used that the data did not fill (left as [name])' }) missingFields: string[];
  @ApiProperty({ description: 'Whether sample data was used (no data given)' }) sample: boolean;
}

export class TemplateTestSend {
  @ApiProperty({ type: 'integer', description: 'The core_notification_log row of the test mail (Pending; the sender sends it)' })
  logId: number;
  @ApiProperty() subject: string;
  @ApiProperty({ type: [String] }) missingFields: string[];
}

export class TemplateDeleted {
  @ApiProperty() event: string;
  @ApiProperty({ type: 'integer', description: 'The version that keeps its last state (restore it with templates/restore)' })
  version: number;
}

export class TemplateListAnswer extends SuccessEnvelope {
  @ApiProperty({ type: [TemplateItem] }) data: TemplateItem[];
}
export class TemplateAnswer extends SuccessEnvelope {
  @ApiProperty({ type: TemplateItem }) data: TemplateItem;
}
export class TemplateVersionsAnswer extends SuccessEnvelope {
  @ApiProperty({ type: [TemplateVersionItem], description: 'Newest first' }) data: TemplateVersionItem[];
}
export class TemplatePreviewAnswer extends SuccessEnvelope {
  @ApiProperty({ type: TemplatePreview }) data: TemplatePreview;
}
export class TemplateTestSendAnswer extends SuccessEnvelope {
  @ApiProperty({ type: TemplateTestSend }) data: TemplateTestSend;
}
export class TemplateDeletedAnswer extends SuccessEnvelope {
  @ApiProperty({ type: TemplateDeleted }) data: TemplateDeleted;
}
