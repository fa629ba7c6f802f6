import { Body, Controller, Get, HttpCode, Param, Post, Res, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiAccess, ApiAnyOfResponse, ApiFailureResponse, DataNullFailure, MessageAnswer } from '../common/api-responses';
import type { FastifyReply } from 'fastify';
import { CUSTOMER_TABLE, RequirePermission, CustomerGuard, OptionalBearerGuard } from '../common/access-guards';
import { ApiError } from '../common/api-error';
import { success } from '../common/envelope';
import { MAX_ID } from '../common/id-cipher.service';
import { pageAnswer, pageOf } from '../common/list-fields';
import { Ctx, RequestContext } from '../common/request-context';
import { Transactional } from '../common/transactional';
import { CUSTOMER_HIDDEN, customerRow, PUBLIC_HIDDEN, publicRow, PublicTokenRow, shownColumns } from './token-rows';
import {
  ActivateTokenRequest,
  CustomerTokensAnswer,
  CustomerTokensRequest,
  ExpireTokenRequest,
  ListTokensAnswer,
  ListTokensRequest,
  ExtendTokenRequest,
  RedeemTokenRequest,
  TokenActivatedAnswer,
  TokenCheckFailure,
  TokenExtendedAnswer,
  TokenFoundAnswer,
  TokenRedeemedAnswer,
  TokenValidAnswer,
  ValidateTokenRequest,
  MAX_EXTEND_DAYS,
} from './tokens.dto';
import { failureMessage, TokenFailure, tokensError } from './tokens.errors';
import { TokensService } from './tokens.service';

const ROW = shownColumns(PUBLIC_HIDDEN).join(', ');
const VALIDATION_MESSAGES =
  'Token not found (also a token of another product) / No valid token found for customer and product (mode 2) / Token ' +
  'product version not found / Gift token must be redeemed first (status gift_pending) / Token has expired / Token ' +
  'activation limit exceeded / Error validating token';
const NOT_FOUND_404 = '{ status: Failed, message: Token not found, data: null } (also a token of another app)';
const ADMIN_401 = 'Unauthorized: no bearer, or an invalid one';
const ADMIN_403 = 'Insufficient permissions: the bearer is a customer or a non-admin user';

/**
 * Digital access tokens: validation, activation, gift redemption and the admin's changes. Tokens are issued by order completion
 * (TokenIssuerService), never here. `productId` is always a product master id. Every query names the request's app.
 */
@ApiTags('Digital access tokens')
@Controller('ecommerce')
export class TokensController {
  constructor(private readonly tokens: TokensService) {}

  /*
   * Mode 1 (tokenValue) needs no bearer; an Authorization header that is sent must still be valid.
   * Not @Transactional(), on purpose: its only write is one conditional UPDATE (a token past its expiry date
   * becomes `expired`), atomic on its own, and BEGIN/COMMIT were two of the five round trips per validation
   * on this hot path (measured: throughput doubled without them and the product-mapping query).
   */
  @Post('validateToken')
  @HttpCode(200)
  @UseGuards(OptionalBearerGuard)
  @ApiAccess('site-id', 'customer-bearer')
  @ApiOperation({
    summary: 'Check a token for a product: mode 1 by tokenValue, mode 2 (no tokenValue) the customer bearer’s token for the product',
  })
  @ApiAnyOfResponse(
    200,
    `{ status: Success, message: Token is valid, data: { ${ROW} } }, or a failure, also HTTP 200: { status: Failed, message, ` +
      `data: <token row or null> } with message ${VALIDATION_MESSAGES}. A token past its expiry date becomes expired.`,
    TokenValidAnswer,
    TokenCheckFailure,
  )
  @ApiFailureResponse(400, 'Validation error (productId, tokenValue)')
  @ApiFailureResponse(401, 'No tokenValue and no customer bearer (mode 2), or an invalid bearer')
  async validateToken(@Ctx() ctx: RequestContext, @Body() body: ValidateTokenRequest): Promise<TokenValidAnswer | TokenCheckFailure> {
    const _app = ctx.app; // read first: a request without its app gets 400 Missing app context before mode 2's 401
    let outcome;
    if (body.tokenValue) {
      outcome = await this.tokens.validate(ctx, body.tokenValue, body.productId);
    } else {
      const customerId = customerOf(ctx);
      if (customerId === null) throw tokensError('CUSTOMER_REQUIRED');
      outcome = await this.tokens.validateForCustomer(ctx, customerId, body.productId);
    }
    if (!outcome.ok) return failed(outcome.failure, outcome.row && publicRow(outcome.row));
    return success({ message: 'Token is valid', data: publicRow(outcome.row) });
  }

  @Post('activateToken')
  @HttpCode(200)
  @UseGuards(OptionalBearerGuard)
  @Transactional()
  @ApiAccess('site-id', 'bearer')
  @ApiOperation({ summary: 'Validate and count one activation in one conditional update (status becomes active)' })
  @ApiOkResponse({ type: TokenActivatedAnswer, description: `{ status: Success, message: Token activated, data: { ${ROW} } }` })
  @ApiFailureResponse(
    400,
    `Our failure body: { status: Failed, message, data: <token row or null> } with the validation ` +
      `messages: ${VALIDATION_MESSAGES}; or Validation error (tokenValue, productId)`,
    TokenCheckFailure,
  )
  @ApiFailureResponse(401, 'An invalid bearer (a bearer is optional)')
  async activateToken(
    @Ctx() ctx: RequestContext,
    @Body() body: ActivateTokenRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<TokenActivatedAnswer | TokenCheckFailure> {
    const outcome = await this.tokens.activate(ctx, body.tokenValue, body.productId);
    if (!outcome.ok) {
      // Answered, not thrown: the transaction commits, so a token found past its expiry date stays `expired`.
      reply.status(400);
      return failed(outcome.failure, outcome.row && publicRow(outcome.row));
    }
    return success({ message: 'Token activated', data: publicRow(outcome.row) });
  }

  @Post('redeemToken')
  @HttpCode(200)
  @UseGuards(CustomerGuard)
  @Transactional()
  @ApiAccess('customer-bearer')
  @ApiOperation({
    summary:
      'Redeem a gift token: ownership moves to the customer of the bearer, activations 1, status active (under the token’s row lock)',
  })
  @ApiOkResponse({
    type: TokenRedeemedAnswer,
    description:
      '{ status: Success, message: Gift token redeemed, data: { id, token_value, customer_id, status: active, activations: 1, master_product_id } }',
  })
  @ApiFailureResponse(
    400,
    '{ status: Failed, message, data: null }: Token not found (also a token of another product than productId) / Token has ' +
      'expired (also an expired gift nobody redeemed: extendToken makes it redeemable again) / Token activation limit exceeded ' +
      '/ Token product version not found / Token is not redeemable as a gift (not gift_pending, e.g. already redeemed); or ' +
      'Validation error',
    DataNullFailure,
  )
  @ApiFailureResponse(401, 'No customer bearer')
  async redeemToken(@Ctx() ctx: RequestContext, @Body() body: RedeemTokenRequest): Promise<TokenRedeemedAnswer> {
    const outcome = await this.tokens.redeem(ctx, ctx.principal!.userId, body.tokenValue, body.productId);
    if (!outcome.ok) throw tokensError(outcome.failure, { body: { data: null } });
    return success({ message: 'Gift token redeemed', data: outcome.token });
  }

  @Post('expireToken')
  @HttpCode(200)
  @RequirePermission('tokens.manage')
  @Transactional()
  @ApiAccess('admin-bearer')
  @ApiOperation({ summary: 'Admin: the token becomes expired, whatever its status' })
  @ApiOkResponse({ type: MessageAnswer, description: '{ status: Success, message: Token expired }' })
  @ApiFailureResponse(400, 'Validation error (tokenId)')
  @ApiFailureResponse(401, ADMIN_401)
  @ApiFailureResponse(403, ADMIN_403)
  @ApiFailureResponse(404, NOT_FOUND_404, DataNullFailure)
  async expireToken(@Ctx() ctx: RequestContext, @Body() body: ExpireTokenRequest): Promise<MessageAnswer> {
    await this.tokens.expire(ctx, body.tokenId);
    return success({ message: 'Token expired' });
  }

  @Post('extendToken')
  @HttpCode(200)
  @RequirePermission('tokens.manage')
  @Transactional()
  @ApiAccess('admin-bearer')
  @ApiOperation({
    summary:
      'Admin: expiry = the later of now and the current expiry (now when it has none), plus days; an expired token becomes ' +
      'active, an expired unredeemed gift gift_pending',
    description:
      'An `expired` token becomes `active`, except a gift nobody has redeemed (issued for a gift order item, no customer yet): ' +
      'it becomes `gift_pending` again, so it stays redeemable and validateToken and activateToken still refuse it until it is ' +
      'redeemed. A redeemed gift (it has an owner) becomes `active`. Other statuses keep theirs; only the expiry moves.',
  })
  @ApiOkResponse({
    type: TokenExtendedAnswer,
    description: '{ status: Success, message: Token extended by <days> day(s), data: { newExpiry: <ISO datetime> } }',
  })
  @ApiFailureResponse(400, '{ status: Failed, message: tokenId and days (>= 1) are required, errors: [{ field, message }] }')
  @ApiFailureResponse(401, ADMIN_401)
  @ApiFailureResponse(403, ADMIN_403)
  @ApiFailureResponse(404, NOT_FOUND_404, DataNullFailure)
  async extendToken(@Ctx() ctx: RequestContext, @Body() body: ExtendTokenRequest): Promise<TokenExtendedAnswer> {
    const tokenId = body.tokenId;
    const days = body.days;
    if (!isInteger(tokenId, 1, MAX_ID))
      throw tokensError('EXTEND_INPUT').withField('tokenId', `tokenId must be an integer from 1 to ${MAX_ID}`);
    if (!isInteger(days, 1, MAX_EXTEND_DAYS))
      throw tokensError('EXTEND_INPUT').withField('days', `days must be an integer from 1 to ${MAX_EXTEND_DAYS}`);
    const token = await this.tokens.extend(ctx, tokenId, days);
    return success({ message: `Token extended by ${days} day(s)`, data: { newExpiry: token.expiry_date!.toISOString() } });
  }

  @Get('getToken/:id')
  @RequirePermission('orders.view')
  @ApiAccess('admin-bearer')
  @ApiParam({ name: 'id', type: 'integer', description: 'Token id' })
  @ApiOperation({ summary: 'Admin: one token of the app, including order_item_id' })
  @ApiOkResponse({ type: TokenFoundAnswer, description: `{ status: Success, message: Token found, data: { ${ROW}, order_item_id } }` })
  @ApiFailureResponse(400, 'Validation error (id must be a positive integer)')
  @ApiFailureResponse(401, ADMIN_401)
  @ApiFailureResponse(403, ADMIN_403)
  @ApiFailureResponse(404, NOT_FOUND_404, DataNullFailure)
  async getToken(@Ctx() ctx: RequestContext, @Param('id') id: string): Promise<TokenFoundAnswer> {
    const tokenId = /^\d{1,10}$/.test(id) ? Number(id) : NaN;
    if (!(tokenId >= 1 && tokenId <= MAX_ID)) throw ApiError.field('id', 'id must be a positive integer');
    return success({ message: 'Token found', data: await this.tokens.get(ctx, tokenId) });
  }

  @Post('listTokens')
  @HttpCode(200)
  @RequirePermission('orders.view')
  @ApiAccess('admin-bearer')
  @ApiOperation({
    summary: "Staff: the app's access tokens, newest first, one page",
    description:
      'Filters: productID (a product master id: tokens of any of its versions), customerId, orderID, status (pending, gift_pending, active, expired; ' +
      'a pending or active token whose expiry date has passed is listed, and filtered, as expired). Needs orders.view, as ' +
      'getToken does: the rows carry the token values.',
  })
  @ApiOkResponse({
    type: ListTokensAnswer,
    description: `{ status: Success, data: [ { ${ROW}, order_item_id, gift, productID } ], paging: { page, perPage, hasMore } }`,
  })
  @ApiFailureResponse(400, 'Validation error naming the field (productID, customerId, orderID, status, page, perPage 1..100)')
  @ApiFailureResponse(401, ADMIN_401)
  @ApiFailureResponse(403, 'Insufficient permissions (orders.view): the bearer is a customer or a staff member without it')
  async listTokens(@Ctx() ctx: RequestContext, @Body() body: ListTokensRequest): Promise<ListTokensAnswer> {
    const paging = pageOf(body);
    const rows = await this.tokens.list(ctx, {
      productID: body.productID,
      customerId: body.customerId,
      orderId: body.orderID,
      status: body.status,
      offset: paging.offset,
      limit: paging.limit,
    });
    return success(pageAnswer(rows, paging));
  }

  @Post('getCustomerTokens')
  @HttpCode(200)
  @UseGuards(CustomerGuard)
  @ApiAccess('customer-bearer')
  @ApiOperation({ summary: 'The tokens of the customer of the bearer (never of a customer id in the body), oldest first' })
  @ApiOkResponse({
    type: CustomerTokensAnswer,
    description: `{ status: Success, message: Tokens found, data: [ { ${shownColumns(CUSTOMER_HIDDEN).join(', ')} } ] } (an empty array when none match)`,
  })
  @ApiFailureResponse(400, 'Validation error (productId)')
  @ApiFailureResponse(401, 'No customer bearer')
  async getCustomerTokens(@Ctx() ctx: RequestContext, @Body() body: CustomerTokensRequest): Promise<CustomerTokensAnswer> {
    const rows = await this.tokens.customerTokens(ctx, ctx.principal!.userId, body.productId);
    return success({ message: 'Tokens found', data: rows.map(customerRow) });
  }
}

/** The failure body of a token check: `{ status: Failed, message, data }`. */
function failed(failure: TokenFailure, data: PublicTokenRow | null): TokenCheckFailure {
  return { status: 'Failed' as const, message: failureMessage(failure), data };
}

/** The customer of the request's bearer, or null (no bearer, or one of an admin or app user). */
function customerOf(ctx: RequestContext): number | null {
  return ctx.principal?.authTable === CUSTOMER_TABLE ? ctx.principal.userId : null;
}

function isInteger(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}
