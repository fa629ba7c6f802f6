import { Body, Controller, Get, HttpCode, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../common/api-error';
import { ApiAccess, ApiFailureResponse, MessageAnswer, RETRY_AFTER } from '../common/api-responses';
import { success, successData } from '../common/envelope';
import { AppContext, Ctx, RequestContext } from '../common/request-context';
import { ConsoleCookies } from './console-cookies.service';
import { ConsoleCsrfGuard } from './console-csrf.guard';
import { CSRF_HEADER } from './console-paths';
import { ConsoleCsrfAnswer, ConsoleSessionAnswer, ConsoleSignInRequest } from './console-session.dto';
import { ConsoleSessionService } from './console-session.service';
import { COOKIE, CSRF_REFUSED, REFRESH_REFUSED } from './console-session.docs';

const CSRF_TOKEN_HEADER = ApiHeader({
  name: CSRF_HEADER,
  required: true,
  description: 'The token of GET /console/session/csrf (made for the secret in the `console_csrf` cookie)',
});

/**
 * The staff console's browser session (README "Staff console"), outside the API's base path at /console/session,
 * on the console's own origin. The routes name no tenant through headers: the sign-in names it in its body, the
 * others through the session. They are rate limited per client address like any request without a tenant.
 */
@ApiTags('Console')
@ApiAccess()
@AppContext({ none: true })
@Controller('console/session')
export class ConsoleSessionController {
  constructor(
    private readonly sessions: ConsoleSessionService,
    private readonly cookies: ConsoleCookies,
  ) {}

  @Get('csrf')
  @ApiOperation({
    summary: 'A CSRF token for the session POSTs; sets the `console_csrf` secret cookie when the browser has none',
    description: 'The secret cookie is HttpOnly, SameSite=Strict, Path=/console/session, Secure in production.',
  })
  @ApiOkResponse({ type: ConsoleCsrfAnswer })
  csrf(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): ConsoleCsrfAnswer {
    reply.header('cache-control', 'no-store');
    return successData({ csrfToken: this.cookies.csrfToken(request, reply) });
  }

  @Post('sign-in')
  @HttpCode(200)
  @UseGuards(ConsoleCsrfGuard)
  @CSRF_TOKEN_HEADER
  @ApiOperation({
    summary: 'Sign a staff member (core_users account with a staff role) of the tenant into the console',
    description: 'The tenant by `domain` or `appID`; the password login of POST /auth/login with its per-account limits. ' + COOKIE,
  })
  @ApiOkResponse({ type: ConsoleSessionAnswer })
  @ApiFailureResponse(400, 'Validation error naming email, password, domain or appID (neither given, or naming no app)')
  @ApiFailureResponse(401, 'Invalid credentials / Authentication failed')
  @ApiFailureResponse(403, `Insufficient permissions (an account without a staff role); ${CSRF_REFUSED}`)
  @ApiFailureResponse(429, 'Too many failed logins on this account from this client address, or from all addresses (Retry-After)', {
    headers: RETRY_AFTER,
  })
  async signIn(
    @Ctx() ctx: RequestContext,
    @Body() body: ConsoleSignInRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ConsoleSessionAnswer> {
    const grant = await this.sessions.signIn(ctx, body);
    this.cookies.setRefreshCookie(reply, grant.cookie);
    reply.header('cache-control', 'no-store');
    return successData(grant.data);
  }

  @Post('refresh')
  @HttpCode(200)
  @UseGuards(ConsoleCsrfGuard)
  @CSRF_TOKEN_HEADER
  @ApiOperation({
    summary: 'A new access token for the session of the `console_refresh` cookie, which is replaced (the old one no longer works)',
    description:
      'Roles and permissions are read from the account. A session not refreshed within CONSOLE_IDLE_MINUTES has ended. ' +
      'On 401 and 403 the cookie is cleared. ' +
      COOKIE,
  })
  @ApiOkResponse({ type: ConsoleSessionAnswer })
  @ApiFailureResponse(401, REFRESH_REFUSED)
  @ApiFailureResponse(403, `Insufficient permissions (no staff role any more); ${CSRF_REFUSED}`)
  async refresh(
    @Ctx() ctx: RequestContext,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ConsoleSessionAnswer> {
    reply.header('cache-control', 'no-store');
    try {
      const grant = await this.sessions.refresh(ctx, this.cookies.refreshCookie(request));
      this.cookies.setRefreshCookie(reply, grant.cookie);
      return successData(grant.data);
    } catch (error) {
      if (error instanceof ApiError && (error.httpStatus === 401 || error.httpStatus === 403)) this.cookies.clearRefreshCookie(reply);
      throw error;
    }
  }

  @Post('sign-out')
  @HttpCode(200)
  @UseGuards(ConsoleCsrfGuard)
  @CSRF_TOKEN_HEADER
  @ApiOperation({
    summary: 'End the session of the `console_refresh` cookie (its refresh token no longer works) and clear the cookie',
    description: 'Succeeds without a session too.',
  })
  @ApiOkResponse({ type: MessageAnswer, description: '{ status: Success, message: Signed out successfully }' })
  @ApiFailureResponse(403, CSRF_REFUSED)
  async signOut(
    @Ctx() ctx: RequestContext,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<MessageAnswer> {
    await this.sessions.signOut(ctx, this.cookies.refreshCookie(request));
    this.cookies.clearRefreshCookie(reply);
    return success({ message: 'Signed out successfully' });
  }
}
