import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiError } from '../common/api-error';
import { success } from '../common/envelope';
import { Ctx, RequestContext } from '../common/request-context';
import { CUSTOMER_ROUTE_TABLES, CustomerRouteTable } from './auth-tables';
import { CustomerLoginRequest, CustomerRequestResetRequest, CustomerResetPasswordRequest, CustomerSignupRequest } from './customers.dto';
import { CustomerProfilesService } from './customer-profiles.service';
import { PasswordAuthService } from './password-auth.service';
import { ResetLinksService } from './reset-links.service';

const DEFAULT_TABLE: CustomerRouteTable = 'core_customers';

const PROFILE_ANSWER = '{ status, _id (encrypted), email, emailverified, firstname, lastname, displayname, photourl, description }';
const LOGIN_ANSWER = '{ status, message: Login successful, data: { _id, email, firstname, lastname, displayname, description, photourl, emailverified, ...extraFields } }';
const RESET_MAIL_ANSWER = '{ status, message: Email with reset password instructions was sent to <EMAIL>. }';
const RESET_FAILURES =
  'Reset password token has expired or is invalid / Password does not meet security requirements (with requirements) / Validation error (confirmPassword: Passwords do not match; token: token and reset_password_token must be equal)';

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
  @ApiOperation({ summary: 'Create a customer (core_customers, or core_app_users); answers the profile with the encrypted _id' })
  @ApiResponse({ status: 200, description: PROFILE_ANSWER })
  @ApiResponse({ status: 409, description: 'User with this email already exists' })
  @ApiResponse({ status: 400, description: 'Validation error (errors[] of { field, message }) / Password does not meet security requirements (with requirements)' })
  async signup(@Ctx() ctx: RequestContext, @Body() body: CustomerSignupRequest) {
    const table = tableOf(body);
    const account = await this.auth.signUp(ctx, table, body);
    return success(await this.profiles.profile(ctx, ctx.appId, table, account.id));
  }

  @Post('login')
  @HttpCode(200)
  @ApiOperation({ summary: 'Check a customer password and answer the profile (no token: use /auth/login with authTable core_customers)' })
  @ApiResponse({ status: 200, description: LOGIN_ANSWER })
  @ApiResponse({ status: 401, description: '{ status: Failed, message: Invalid credentials, data: {} }' })
  @ApiResponse({ status: 400, description: 'Validation error (extraFields naming an unknown or secret column)' })
  @ApiResponse({ status: 429, description: 'Too many failed logins on this account from this client address, or from all addresses (Retry-After)' })
  async login(@Ctx() ctx: RequestContext, @Body() body: CustomerLoginRequest) {
    const table = tableOf(body);
    const extra = await this.profiles.parseExtraFields(ctx, table, body.extraFields);
    const account = await this.auth.verifyCredentials(ctx, table, body.email, body.password, { data: {} });
    return success({ message: 'Login successful', data: await this.profiles.profile(ctx, ctx.appId, table, account.id, extra) });
  }

  @Post('request-reset')
  @HttpCode(200)
  @ApiOperation({ summary: 'Mail a reset link; 404 No user found for an unknown email' })
  @ApiResponse({ status: 200, description: RESET_MAIL_ANSWER })
  @ApiResponse({ status: 404, description: 'No user found' })
  @ApiResponse({ status: 429, description: 'Too many password reset requests for this account' })
  async requestReset(@Ctx() ctx: RequestContext, @Body() body: CustomerRequestResetRequest) {
    await this.resets.request(ctx, tableOf(body), body.email, body.url, true);
    return success({ message: `Email with reset password instructions was sent to ${body.email}.` });
  }

  @Post('reset-password')
  @HttpCode(200)
  @ApiOperation({ summary: 'Set a new password with the token from the reset link (token and reset_password_token equal); the token names the app, no site-id needed' })
  @ApiResponse({ status: 200, description: '{ status, message: Password reset successfully }' })
  @ApiResponse({ status: 400, description: RESET_FAILURES })
  @ApiResponse({ status: 401, description: "Unauthorized (the token is another app's than the site-id's)" })
  async resetPassword(@Ctx() ctx: RequestContext, @Body() body: CustomerResetPasswordRequest) {
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
