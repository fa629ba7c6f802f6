import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiAccess, ApiFailureResponse, MessageAnswer, PasswordFailure, RETRY_AFTER } from '../../common/api-responses';
import { ApiError } from '../../common/api-error';
import { success } from '../../common/envelope';
import { Ctx, RequestContext } from '../../common/request-context';
import { Transactional } from '../../common/transactional';
import { CUSTOMER_ROUTE_TABLES, CustomerRouteTable } from '../auth-tables';
import {
  CustomerLoginAnswer,
  CustomerLoginRequest,
  CustomerRequestResetRequest,
  CustomerResetPasswordRequest,
  CustomerSignupAnswer,
  CustomerSignupRequest,
  EmptyDataFailure,
} from './customers.dto';
import { CustomerProfilesService } from './customer-profiles.service';
import { PasswordAuthService } from '../password/password-auth.service';
import { ResetLinksService } from '../reset/reset-links.service';

const DEFAULT_TABLE: CustomerRouteTable = 'core_customers';

const PROFILE_ANSWER = '{ status, _id (encrypted), email, emailverified, firstname, lastname, displayname, photourl, description }';
const LOGIN_ANSWER =
  '{ status, message: Login successful, data: { _id, email, firstname, lastname, displayname, description, photourl, emailverified, ...extraFields } }';
const RESET_MAIL_ANSWER = '{ status, message: Email with reset password instructions was sent to <EMAIL>. }';
const RESET_FAILURES =
  'Reset password token has expired or is invalid / Password does not meet security requirements (with requirements) / ' +
  'Validation error (confirmPassword: Passwords do not match; token: token and reset_password_token must be equal)';

/**
 * The customer routes, served under /customers and, with the same shapes, under /user/app
 * (`authTable: core_app_users` selects the app-user table). No route here issues a token: customer JWTs
 * come from /auth/login with authTable core_customers.
 */
@ApiTags('Customers')
@Controller(['customers', 'user/app'])
export class CustomersController {
  constructor(
    private readonly auth: PasswordAuthService,
    private readonly profiles: CustomerProfilesService,
    private readonly resets: ResetLinksService,
  ) {}

  @Post('signup')
  @HttpCode(200)
  @Transactional()
  @ApiOperation({ summary: 'Create a customer (core_customers, or core_app_users); answers the profile with the encrypted _id' })
  @ApiAccess('site-id')
  @ApiOkResponse({ type: CustomerSignupAnswer, description: PROFILE_ANSWER })
  @ApiFailureResponse(409, 'User with this email already exists')
  @ApiFailureResponse(
    400,
    'Validation error (errors[] of { field, message }) / Password does not meet security requirements (with requirements)',
    PasswordFailure,
  )
  async signup(@Ctx() ctx: RequestContext, @Body() body: CustomerSignupRequest): Promise<CustomerSignupAnswer> {
    const table = tableOf(body);
    const account = await this.auth.signUp(ctx, table, body);
    return success(await this.profiles.profile(ctx, table, account.id));
  }

  @Post('login')
  @HttpCode(200)
  @ApiOperation({ summary: 'Check a customer password and answer the profile (no token: use /auth/login with authTable core_customers)' })
  @ApiAccess('site-id')
  @ApiOkResponse({ type: CustomerLoginAnswer, description: LOGIN_ANSWER })
  @ApiFailureResponse(401, '{ status: Failed, message: Invalid credentials (or Authentication failed), data: {} }', EmptyDataFailure)
  @ApiFailureResponse(400, 'Validation error (extraFields naming an unknown or secret column)')
  @ApiFailureResponse(429, 'Too many failed logins on this account from this client address, or from all addresses (Retry-After)', {
    headers: RETRY_AFTER,
  })
  async login(@Ctx() ctx: RequestContext, @Body() body: CustomerLoginRequest): Promise<CustomerLoginAnswer> {
    const table = tableOf(body);
    const extra = await this.profiles.parseExtraFields(ctx, table, body.extraFields);
    const account = await this.auth.verifyCredentials(ctx, table, body.email, body.password, { data: {} });
    return success({ message: 'Login successful', data: await this.profiles.profile(ctx, table, account.id, extra) });
  }

  @Post('request-reset')
  @HttpCode(200)
  @ApiOperation({ summary: 'Mail a reset link; 404 No user found for an unknown email' })
  @ApiAccess('site-id')
  @ApiOkResponse({ type: MessageAnswer, description: RESET_MAIL_ANSWER })
  @ApiFailureResponse(400, "Validation error (email; url not on the app's domain)")
  @ApiFailureResponse(404, 'No user found / App not found')
  @ApiFailureResponse(429, 'Too many password reset requests for this account (Retry-After)', { headers: RETRY_AFTER })
  async requestReset(@Ctx() ctx: RequestContext, @Body() body: CustomerRequestResetRequest): Promise<MessageAnswer> {
    await this.resets.request(ctx, tableOf(body), body.email, body.url, true);
    return success({ message: `Email with reset password instructions was sent to ${body.email}.` });
  }

  @Post('reset-password')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Set a new password with the token from the reset link (token and reset_password_token equal); the token names the app, no site-id needed',
  })
  @ApiAccess('none', 'site-id') // the reset token names the app
  @ApiOkResponse({ type: MessageAnswer, description: '{ status, message: Password reset successfully }' })
  @ApiFailureResponse(400, RESET_FAILURES, PasswordFailure)
  @ApiFailureResponse(401, "Unauthorized (the token is another app's than the site-id's)")
  async resetPassword(@Ctx() ctx: RequestContext, @Body() body: CustomerResetPasswordRequest): Promise<MessageAnswer> {
    if (body.token !== body.reset_password_token) throw ApiError.field('token', 'token and reset_password_token must be equal');
    if (body.password !== body.confirmPassword) throw ApiError.field('confirmPassword', 'Passwords do not match');
    // The sealed token names its table; an authTable that is sent must match it, one that is not sent defaults to the token's.
    await this.resets.reset(ctx, body.authTable as CustomerRouteTable | undefined, body.token, body.password, CUSTOMER_ROUTE_TABLES);
    return success({ message: 'Password reset successfully' });
  }
}

function tableOf(body: { authTable?: string }): CustomerRouteTable {
  return (body.authTable as CustomerRouteTable | undefined) ?? DEFAULT_TABLE;
}
