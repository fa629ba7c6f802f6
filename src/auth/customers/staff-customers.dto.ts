import { ApiProperty } from '@nestjs/swagger';
import { DateProperty, SuccessEnvelope } from '../../common/api-responses';
import { IdField, TextField } from '../../common/dto-fields';
import { ListPaging, PageField, PerPageField } from '../../common/list-fields';
import { SearchField } from '../../common/search';

/* The staff's customer directory (README "Staff API: customers"): /staff/customers, /staff/customers/reset-link. */

const APP_ID_DOC = { description: 'App id; the site-id header is preferred. Read from the body only outside production.' };

export class ListCustomersRequest {
  @IdField('appID', { doc: APP_ID_DOC })
  appID?: number;

  @SearchField(
    'search',
    'The customer id exactly, or the start of the email, last name or "first last", without regard to case (`%` and `_` are plain characters)',
  )
  search?: string;

  @PageField()
  page?: number;

  @PerPageField('Customers')
  perPage?: number;
}

export class CustomerResetLinkRequest {
  @IdField('appID', { doc: APP_ID_DOC })
  appID?: number;

  @IdField('customerId', { required: true, doc: { description: 'The customer (core_customers id)', example: 12 } })
  customerId: number;

  @TextField('url', 2000, {
    doc: {
      description:
        "The reset page the link opens (on the app's domain or a subdomain; a loopback " +
        'address outside production); default https://<app domain>/reset-password',
    },
  })
  url?: string;
}

/* Answers (OpenAPI documentation only: see src/common/api-responses.ts). */

/** A customer as staff see it: never the password hash, push keys or any other secret. */
export class StaffCustomerDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ type: String, nullable: true }) email: string | null;
  @ApiProperty({ type: String, nullable: true }) firstname: string | null;
  @ApiProperty({ type: String, nullable: true }) lastname: string | null;
  @ApiProperty({ type: String, nullable: true }) displayname: string | null;
  @ApiProperty({ type: String, nullable: true }) mobile: string | null;
  @ApiProperty() emailverified: boolean;
  @ApiProperty({ description: 'Whether the customer has a password (can log in with one); never the password itself' })
  passwordSet: boolean;
  @DateProperty() created: Date;
  @DateProperty() updated: Date;
}

export class ListCustomersAnswer extends SuccessEnvelope {
  @ApiProperty({ type: [StaffCustomerDto] }) data: StaffCustomerDto[];
  @ApiProperty({ type: ListPaging }) paging: ListPaging;
}

export class ResetLinkSentDto {
  @ApiProperty({ type: 'integer' }) customerId: number;
  @ApiProperty({ description: 'Where the link was mailed' }) email: string;
}

export class CustomerResetLinkAnswer extends SuccessEnvelope {
  @ApiProperty({ description: 'Email with reset password instructions was sent to <email>.' }) message: string;
  @ApiProperty({ type: ResetLinkSentDto }) data: ResetLinkSentDto;
}
