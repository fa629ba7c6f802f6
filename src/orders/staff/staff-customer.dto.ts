import { ApiProperty } from '@nestjs/swagger';
import { StaffCustomerDto } from '../../auth';
import { SuccessEnvelope } from '../../common/api-responses';
import { IdField } from '../../common/dto-fields';
import { ListPaging, PerPageField } from '../../common/list-fields';
import { ListedTokenDto } from '../../tokens';
import { IntField } from '../cart/cart.dto';
import { ListedOrderDto } from '../refunds/order-admin.dto';

/* POST /staff/customers/get (README "Staff API: customers"): a customer with their orders and access tokens. */

export class StaffCustomerRequest {
  @IdField('appID', { doc: { description: 'App id; the site-id header is preferred. Read from the body only outside production.' } })
  appID?: number;

  @IdField('customerId', { required: true, doc: { description: 'The customer (core_customers id)', example: 12 } })
  customerId: number;

  @IntField('ordersPage', 1, 1_000_000, { doc: { description: "Page of the customer's orders, from 1" } })
  ordersPage?: number;

  @IntField('tokensPage', 1, 1_000_000, { doc: { description: "Page of the customer's access tokens, from 1" } })
  tokensPage?: number;

  @PerPageField('Orders and tokens')
  perPage?: number;
}

/* Answers (OpenAPI documentation only: see src/common/api-responses.ts). */

export class CustomerOrdersPage {
  @ApiProperty({ type: [ListedOrderDto], description: 'Newest first, as listOrders shows them' }) data: ListedOrderDto[];
  @ApiProperty({ type: ListPaging }) paging: ListPaging;
}

export class CustomerTokensPage {
  @ApiProperty({ type: [ListedTokenDto], description: 'Newest first, as listTokens shows them' }) data: ListedTokenDto[];
  @ApiProperty({ type: ListPaging }) paging: ListPaging;
}

export class StaffCustomerDetailDto {
  @ApiProperty({ type: StaffCustomerDto }) customer: StaffCustomerDto;
  @ApiProperty({ type: CustomerOrdersPage }) orders: CustomerOrdersPage;
  @ApiProperty({ type: CustomerTokensPage }) tokens: CustomerTokensPage;
}

export class StaffCustomerAnswer extends SuccessEnvelope {
  @ApiProperty({ type: StaffCustomerDetailDto }) data: StaffCustomerDetailDto;
}
