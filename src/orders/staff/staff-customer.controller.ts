import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CustomerDirectoryService } from '../../auth';
import { RequirePermission } from '../../common/access-guards';
import { ApiAccess, ApiFailureResponse } from '../../common/api-responses';
import { successData } from '../../common/envelope';
import { pageAnswer, pageOf } from '../../common/list-fields';
import { Ctx, RequestContext } from '../../common/request-context';
import { TokensService } from '../../tokens';
import { OrderAdminService } from '../refunds/order-admin.service';
import { StaffCustomerAnswer, StaffCustomerRequest } from './staff-customer.dto';
import { STAFF_CUSTOMER_DESCRIPTION } from './staff-customer.docs';

const BEARER =
  '401 without a bearer (or with one of another app); 403 `Insufficient permissions` naming the permission for a staff member without it';

/**
 * POST /staff/customers/get (README "Staff API: customers"): one customer with a page of their orders and one of
 * their access tokens. Here rather than in auth, which owns the customer, because it reads orders and tokens,
 * which sit above auth; the list and the reset link are auth's StaffCustomersController.
 */
@ApiTags('Staff: customers')
@ApiAccess('admin-bearer')
@Controller('staff/customers')
export class StaffCustomerController {
  constructor(
    private readonly customers: CustomerDirectoryService,
    private readonly orders: OrderAdminService,
    private readonly tokens: TokensService,
  ) {}

  @Post('get')
  @HttpCode(200)
  @RequirePermission('customers.view')
  @ApiOperation({
    summary: 'A customer (never a password hash or any other secret) with their orders and access tokens, newest first, each paged',
    description: STAFF_CUSTOMER_DESCRIPTION,
  })
  @ApiOkResponse({
    type: StaffCustomerAnswer,
    description: '{ status: Success, data: { customer, orders: { data, paging }, tokens: { data, paging } } }',
  })
  @ApiFailureResponse(400, 'Validation error naming the field (customerId, ordersPage, tokensPage, perPage 1..100)')
  @ApiFailureResponse(401, BEARER)
  @ApiFailureResponse(403, BEARER)
  @ApiFailureResponse(404, "Customer not found (also another app's customer)")
  async get(@Ctx() ctx: RequestContext, @Body() body: StaffCustomerRequest): Promise<StaffCustomerAnswer> {
    const customer = await this.customers.get(ctx, body.customerId);
    const orders = await this.orders.list(ctx, { customerId: customer.id, page: body.ordersPage, perPage: body.perPage });
    const tokensPage = pageOf({ page: body.tokensPage, perPage: body.perPage });
    const tokens = await this.tokens.list(ctx, { customerId: customer.id, offset: tokensPage.offset, limit: tokensPage.limit });
    return successData({ customer, orders, tokens: pageAnswer(tokens, tokensPage) });
  }
}
