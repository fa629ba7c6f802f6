import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { ApiAccess, ApiFailureResponse, ApiMediaResponse } from '../common/api-responses';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { success } from '../common/envelope';
import { AppContext, Ctx, RequestContext } from '../common/request-context';
import { IdpCallbackAnswer, IdpCallbackRequest, IdpLogoutAnswer, IdpLogoutRequest, IdpStartAnswer, IdpStartRequest } from './idp.dto';
import { APP_CTX_COOKIE, APP_CTX_TTL_SECONDS, IdpLoginService, RelayAnswer } from './idp-login.service';
import { RELAY_HEADERS, relayPage } from './relay-page';
import { CALLBACK_ANSWER, CALLBACK_REFUSED, LOGOUT_RELAY_DESCRIPTION, NOT_CONFIGURED, START_REFUSED, UNAVAILABLE } from './idp.docs';

/**
 * External identity login (README "Single sign-on (OpenID Connect)"): the JSON routes the app calls, and
 * the two relays the IdP sends the browser to, which answer a meta-refresh page to the app's own URL.
 */
@ApiTags('SSO')
@Controller('auth/oauth/idp')
export class IdpController {
  constructor(private readonly sso: IdpLoginService) {}

  @Post('start')
  @HttpCode(200)
  @ApiOperation({
    summary: "The IdP's authorization URL for this app (scope openid email profile, PKCE S256, nonce) and the encrypted state",
    description:
      'Send the browser to authorizationUrl. Public clients generate a PKCE pair first and send codeChallenge (base64url SHA-256 of the verifier); ' +
      'with IDP_API_KEY set the service is a confidential client and PKCE is optional. The state (AES-256-GCM under IDP_COOKIE_PASSWORD) carries ' +
      'the app, authTable, the client state, the nonce and a 10-minute expiry.',
  })
  @ApiAccess('site-id')
  @ApiOkResponse({ type: IdpStartAnswer, description: '{ status: Success, authorizationUrl, state }' })
  @ApiFailureResponse(400, START_REFUSED)
  @ApiFailureResponse(404, 'App not found (a site-id naming no app)')
  @ApiFailureResponse(503, UNAVAILABLE)
  async start(@Ctx() ctx: RequestContext, @Body() body: IdpStartRequest): Promise<IdpStartAnswer> {
    return success(await this.sso.start(ctx, body));
  }

  @Post('callback')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Exchange the code for service tokens: the identity is found, linked by verified email, or created',
    description:
      'The app comes from the state (a site-id, when sent, must name the same app). The code is exchanged with the verifier; the ID token is checked ' +
      '(signature, issuer, audience, nonce). An existing identity logs into its user; else a user of (app, authTable) with the email is linked only when ' +
      "the IdP asserts email_verified; else a new user and identity are created. The IdP's tokens are never returned or stored. " +
      'clientState is the state the client gave to start, when it gave one.',
  })
  @ApiAccess('none', 'site-id') // the state names the app
  @ApiOkResponse({
    type: IdpCallbackAnswer,
    description: CALLBACK_ANSWER,
  })
  @ApiFailureResponse(400, CALLBACK_REFUSED)
  @ApiFailureResponse(503, UNAVAILABLE)
  @ApiFailureResponse(500, 'An error occurred while processing your request')
  async callback(@Ctx() ctx: RequestContext, @Body() body: IdpCallbackRequest): Promise<IdpCallbackAnswer> {
    return success(await this.sso.callback(ctx, body));
  }

  @Post('logout')
  @HttpCode(200)
  @ApiOperation({
    summary: "The IdP's logout URL (end_session_endpoint): open it in the browser, then clear the tokens",
    description:
      'With an app (site-id, or appID outside production) the IdP returns the browser to GET /auth/oauth/idp/logout/redirect with a sealed state, which ' +
      'sends it on to the app (idp_app_logout_url, oauth_logout_url, auth_logout_url, else returnTo, else /index.html on its domain). The session id goes as ' +
      'logout_hint; the IdP ends its session when the browser visits logoutUrl (its tokens are not kept, so there is no id_token_hint).',
  })
  @ApiAccess('none', 'site-id')
  @ApiOkResponse({ type: IdpLogoutAnswer, description: '{ status: Success, message: Signed out successfully, logoutUrl }' })
  @ApiFailureResponse(400, `sessionId is required / ${NOT_CONFIGURED} / Validation error (returnTo not on the app's domain)`)
  @ApiFailureResponse(503, UNAVAILABLE)
  async logout(@Ctx() ctx: RequestContext, @Body() body: IdpLogoutRequest): Promise<IdpLogoutAnswer> {
    const { logoutUrl } = await this.sso.logout(ctx, body);
    return success({ message: 'Signed out successfully', logoutUrl });
  }

  @Get(['redirect', 'callback'])
  @AppContext({ none: true }) // the state names the app; still rate limited per address
  @ApiOperation({
    summary: 'Relay for the IdP (not for clients): forwards the browser to the app callback URL with every query parameter',
    description:
      'Registered at the IdP as redirect URI (IDP_REDIRECT_URI). Sets the HttpOnly, SameSite=Lax idp_app_ctx cookie (Secure over https). The target is the ' +
      "app's idp_app_callback_url, oauth_callback_url, auth_callback_url, else https://<domain>/auth/callback; a relative path is resolved against the " +
      'domain. Answers a page with a meta refresh and a continue link, no script (Content-Security-Policy default-src none).',
  })
  @ApiQuery({ name: 'code', required: false })
  @ApiQuery({ name: 'state', required: true, description: 'The encrypted state from start' })
  @ApiQuery({ name: 'error', required: false })
  @ApiQuery({ name: 'error_description', required: false })
  @ApiAccess()
  @ApiMediaResponse(
    200,
    'text/html',
    'A page with a meta refresh and a continue link to the app callback URL (sets the idp_app_ctx cookie)',
  )
  @ApiFailureResponse(400, 'Invalid or missing OAuth state / Unable to resolve app redirect URL')
  async redirect(@Ctx() ctx: RequestContext, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const answer = await this.sso.relay(ctx, queryOf(request));
    this.sendPage(request, reply, answer);
  }

  @Get('logout/redirect')
  @AppContext({ none: true })
  @ApiOperation({
    summary: 'Post-logout relay for the IdP (not for clients): forwards the browser to the app logout URL',
    description: LOGOUT_RELAY_DESCRIPTION,
  })
  @ApiQuery({ name: 'state', required: false, description: 'The sealed logout state' })
  @ApiAccess()
  @ApiMediaResponse(200, 'text/html', 'A page with a meta refresh and a continue link to the app logout URL')
  @ApiFailureResponse(400, 'Invalid or missing OAuth logout state / Unable to resolve app logout redirect URL')
  async logoutRedirect(@Ctx() ctx: RequestContext, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const states = queryOf(request)
      .getAll('state')
      .filter((s) => s !== '');
    const answer = await this.sso.logoutRelay(ctx, states.length > 0 ? states[0] : null, request.headers.cookie);
    this.sendPage(request, reply, answer);
  }

  @Get('logout/redirect/:state')
  @AppContext({ none: true })
  @ApiOperation({ summary: 'Post-logout relay with the sealed state as a path segment (for IdPs that drop the state parameter)' })
  @ApiParam({ name: 'state', description: 'The sealed logout state' })
  @ApiAccess()
  @ApiMediaResponse(200, 'text/html', 'A page with a meta refresh and a continue link to the app logout URL')
  @ApiFailureResponse(400, 'Invalid or missing OAuth logout state / Unable to resolve app logout redirect URL')
  async logoutRedirectWithState(
    @Ctx() ctx: RequestContext,
    @Param('state') state: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const answer = await this.sso.logoutRelay(ctx, state, request.headers.cookie);
    this.sendPage(request, reply, answer);
  }

  private sendPage(request: FastifyRequest, reply: FastifyReply, answer: RelayAnswer): void {
    if (answer.appCookie !== null) {
      const secure = request.protocol === 'https' ? '; Secure' : '';
      reply.header(
        'set-cookie',
        `${APP_CTX_COOKIE}=${answer.appCookie}; Path=${this.sso.cookiePath}; Max-Age=${APP_CTX_TTL_SECONDS}; HttpOnly; SameSite=Lax${secure}`,
      );
    }
    reply.status(200).headers(RELAY_HEADERS).send(relayPage(answer.target));
  }
}

/** Every query parameter of the request, in order, repeated names kept. */
function queryOf(request: FastifyRequest): URLSearchParams {
  const index = request.url.indexOf('?');
  return new URLSearchParams(index === -1 ? '' : request.url.slice(index + 1));
}
