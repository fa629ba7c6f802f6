import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiAccess, ApiFailureResponse, MessageAnswer, PasswordFailure, RETRY_AFTER } from '../common/api-responses';
import { ApiError } from '../common/api-error';
import { success } from '../common/envelope';
import { Ctx, NoAppContext, RequestContext } from '../common/request-context';
import { Transactional } from '../common/transactional';
import { AuthTable } from './auth-tables';
import {
  LoginAnswer,
  LoginRequest,
  RefreshTokenAnswer,
  RefreshTokenRequest,
  RequestPassRequest,
  ResetPassRequest,
  SignOutRequest,
  SignUpAnswer,
  SignUpRequest,
} from './auth.dto';
import { PasswordAuthService } from './password/password-auth.service';
import { ResetLinksService } from './reset/reset-links.service';

const DEFAULT_TABLE: AuthTable = 'core_users';

@ApiTags('Auth')
@Controller('auth')
export class AuthController {
  constructor(
    private readonly auth: PasswordAuthService,
    private readonly resets: ResetLinksService,
  ) {}

  @Post('login')
  @HttpCode(200)
  @ApiOperation({ summary: 'Email and password login: access and refresh tokens (authTable core_customers gives a customer token)' })
  @ApiAccess('site-id')
  @ApiOkResponse({
    type: LoginAnswer,
    description: '{ status, token: { access_token, refresh_token, user: { id, email, firstName, lastName, role } } }',
  })
  @ApiFailureResponse(401, 'Invalid credentials / Authentication failed')
  @ApiFailureResponse(400, 'Validation error (errors[] of { field, message })')
  @ApiFailureResponse(429, 'Too many failed logins on this account from this client address, or from all addresses (Retry-After)', {
    headers: RETRY_AFTER,
  })
  async login(@Ctx() ctx: RequestContext, @Body() body: LoginRequest): Promise<LoginAnswer> {
    const table = (body.authTable as AuthTable | undefined) ?? DEFAULT_TABLE;
    const { tokens, account } = await this.auth.login(ctx, table, body.email, body.password);
    return success({
      token: {
        ...tokens,
        user: { id: account.id, email: account.email, firstName: account.firstname, lastName: account.lastname, role: account.role },
      },
    });
  }

  @Post('sign-up')
  @HttpCode(200)
  @Transactional()
  @ApiOperation({ summary: 'Create an account (default table core_users, role user) and log it in' })
  @ApiAccess('site-id')
  @ApiOkResponse({
    type: SignUpAnswer,
    description: '{ status, token: { access_token, refresh_token, user: { id, email, firstName, lastName } } }',
  })
  @ApiFailureResponse(409, 'User with this email already exists')
  @ApiFailureResponse(400, 'Password does not meet security requirements (with requirements) / Validation error', PasswordFailure)
  async signUp(@Ctx() ctx: RequestContext, @Body() body: SignUpRequest): Promise<SignUpAnswer> {
    const table = (body.authTable as AuthTable | undefined) ?? DEFAULT_TABLE;
    const account = await this.auth.signUp(ctx, table, {
      email: body.email,
      password: body.password,
      firstname: body.firstname,
      lastname: body.lastname,
    });
    const tokens = this.auth.issueTokens(account);
    return success({
      token: { ...tokens, user: { id: account.id, email: account.email, firstName: account.firstname, lastName: account.lastname } },
    });
  }

  @Post('refresh-token')
  @HttpCode(200)
  @ApiOperation({ summary: 'A new token pair for a refresh token (the access token may be expired)' })
  @ApiAccess('site-id')
  @ApiOkResponse({ type: RefreshTokenAnswer, description: '{ status, token: { access_token, refresh_token } }' })
  @ApiFailureResponse(400, 'Invalid token format')
  @ApiFailureResponse(401, 'Refresh token has expired / Invalid refresh token')
  @ApiFailureResponse(404, 'App not found (a site-id naming no app)')
  async refresh(@Ctx() ctx: RequestContext, @Body() body: RefreshTokenRequest): Promise<RefreshTokenAnswer> {
    return success({ token: await this.auth.refresh(ctx, body.payload) });
  }

  @Post('sign-out')
  @HttpCode(200)
  // Nothing to resolve and nothing to check: a bad site-id, bearer or body must not turn "always 200" into an error.
  @NoAppContext()
  @ApiAccess('none', 'bearer')
  @ApiBody({ type: SignOutRequest, required: false })
  @ApiOperation({ summary: 'Always succeeds: tokens are stateless, the client discards them' })
  @ApiOkResponse({ type: MessageAnswer, description: '{ status: Success, message: Signed out successfully }' })
  signOut(): MessageAnswer {
    return success({ message: 'Signed out successfully' });
  }

  @Post('request-pass')
  @HttpCode(200)
  @ApiOperation({
    summary:
      "Mail a reset link (same answer whether or not the account exists); the link is on `url` (app's domain) or https://<app domain>/reset-password",
  })
  @ApiAccess('site-id')
  @ApiOkResponse({
    type: MessageAnswer,
    description: '{ status: Success, message: Email with reset password instructions was sent to <EMAIL>. }',
  })
  @ApiFailureResponse(400, "Validation error (email, appID, url not on the app's domain)")
  @ApiFailureResponse(429, 'Too many password reset requests for this account (Retry-After)', { headers: RETRY_AFTER })
  async requestPass(@Ctx() ctx: RequestContext, @Body() body: RequestPassRequest): Promise<MessageAnswer> {
    assertSameApp(ctx, body.appID);
    await this.resets.request(ctx, (body.authTable as AuthTable | undefined) ?? DEFAULT_TABLE, body.email, body.url, false);
    return success({ message: `Email with reset password instructions was sent to ${body.email}.` });
  }

  @Post('reset-pass')
  @HttpCode(200)
  @ApiOperation({ summary: 'Set a new password with the token of a reset link; the token works once' })
  @ApiAccess('none', 'site-id') // the reset token names the app; a site-id, when sent, must name the same one
  @ApiOkResponse({ type: MessageAnswer, description: '{ status, message: Password reset successfully }' })
  @ApiFailureResponse(
    400,
    'Reset password token has expired or is invalid / Password does not meet security requirements (with requirements) / Validation error (confirmPassword)',
    PasswordFailure,
  )
  @ApiFailureResponse(401, "Unauthorized (the token is another app's than the site-id's)")
  async resetPass(@Ctx() ctx: RequestContext, @Body() body: ResetPassRequest): Promise<MessageAnswer> {
    if (body.password !== body.confirmPassword) throw ApiError.field('confirmPassword', 'Passwords do not match');
    await this.resets.reset(ctx, body.authTable as AuthTable | undefined, body.reset_password_token, body.password);
    return success({ message: 'Password reset successfully' });
  }
}

/** A body appID that names another app than the request's context is a mistake, not a switch of tenant. */
export function assertSameApp(ctx: RequestContext, appID: number): void {
  if (appID !== ctx.appId) throw ApiError.field('appID', 'appID does not match the app of this request');
}
