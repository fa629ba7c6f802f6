import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../../common/access-guards';
import { ApiAccess, ApiFailureResponse, RETRY_AFTER } from '../../common/api-responses';
import { success } from '../../common/envelope';
import { pageAnswer, pageOf } from '../../common/list-fields';
import { Ctx, RequestContext } from '../../common/request-context';
import { Transactional } from '../../common/transactional';
import { CustomerDirectoryService } from './customer-directory.service';
import { CustomerResetLinkAnswer, CustomerResetLinkRequest, ListCustomersAnswer, ListCustomersRequest } from './staff-customers.dto';
import { LIST_CUSTOMERS_ANSWER, LIST_CUSTOMERS_DESCRIPTION } from './staff-customers.docs';

const BEARER =
  '401 without a bearer (or with one of another app); 403 `Insufficient permissions` naming the permission for a staff member without it';

/** The app's customers for its staff (README "Staff API: customers"); POST /staff/customers/get is the orders module's. */
@ApiTags('Staff: customers')
@ApiAccess('admin-bearer')
@Controller('staff/customers')
export class StaffCustomersController {
  constructor(private readonly customers: CustomerDirectoryService) {}

  @Post()
  @HttpCode(200)
  @RequirePermission('customers.view')
  @ApiOperation({
    summary: 'The app\'s customers, newest first, one page; `search` by id, or the start of the email, last name or "first last"',
    description: LIST_CUSTOMERS_DESCRIPTION,
  })
  @ApiOkResponse({
    type: ListCustomersAnswer,
    description: LIST_CUSTOMERS_ANSWER,
  })
  @ApiFailureResponse(400, 'Validation error naming the field (search, page, perPage 1..100)')
  @ApiFailureResponse(401, BEARER)
  @ApiFailureResponse(403, BEARER)
  async list(@Ctx() ctx: RequestContext, @Body() body: ListCustomersRequest): Promise<ListCustomersAnswer> {
    const paging = pageOf(body);
    return success(pageAnswer(await this.customers.list(ctx, { search: body.search, offset: paging.offset, limit: paging.limit }), paging));
  }

  @Post('reset-link')
  @HttpCode(200)
  @Transactional()
  @RequirePermission('customers.invite')
  @ApiOperation({
    summary: 'Mail a customer a password reset link (as /customers/request-reset does), audited as customer.reset_link',
    description: "The link's lifetime, mail and rate limits are the reset link's; the mail leaves through the outbox after commit.",
  })
  @ApiOkResponse({
    type: CustomerResetLinkAnswer,
    description: '{ status: Success, message: Email with reset password instructions was sent to <email>., data: { customerId, email } }',
  })
  @ApiFailureResponse(400, "Validation error naming customerId or url (not on the app's domain)")
  @ApiFailureResponse(401, BEARER)
  @ApiFailureResponse(403, BEARER)
  @ApiFailureResponse(404, "Customer not found (also another app's customer)")
  @ApiFailureResponse(
    409,
    'The customer has no email address to send a reset link to / Email is disabled for this app: no reset link can be sent',
  )
  @ApiFailureResponse(429, 'Too many password reset requests for this account (Retry-After)', { headers: RETRY_AFTER })
  async resetLink(@Ctx() ctx: RequestContext, @Body() body: CustomerResetLinkRequest): Promise<CustomerResetLinkAnswer> {
    const sent = await this.customers.sendResetLink(ctx, body.customerId, body.url);
    return success({ message: `Email with reset password instructions was sent to ${sent.email}.`, data: sent });
  }
}
