import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { SuccessEnvelope } from '../common/api-responses';
import { IsIn, IsOptional } from 'class-validator';
import { IdField, TextField } from '../common/dto-fields';

/*
 * Bodies of the IdP routes. `code` and `sessionId` are checked by the service, not here, so that a missing
 * one answers the contract's own message (`code is required`, `sessionId is required`).
 */

const TABLE_DOC = { description: 'User table to log into; default core_customers. Must be listed in IDP_ALLOWED_AUTH_TABLES.' };
const REDIRECT_DOC = {
  description:
    'Compatibility only: when given it must equal the configured relay URI (IDP_REDIRECT_URI with /auth/oauth/idp/redirect appended when missing)',
};

export class IdpStartRequest {
  @IdField('appID', { doc: { description: 'App id; the site-id header is preferred. Read from the body only outside production.' } })
  appID?: number;

  @TextField('authTable', 50, { doc: TABLE_DOC })
  authTable?: string;

  @TextField('redirectUri', 2000, { doc: REDIRECT_DOC })
  redirectUri?: string;

  @TextField('state', 512, {
    doc: { description: "The client's own state, carried inside the encrypted state and answered back by the callback as clientState" },
  })
  state?: string;

  @ApiPropertyOptional({ enum: ['signin', 'signup'], description: "Becomes the IdP's screen_hint" })
  @IsIn(['signin', 'signup'], { message: 'flow must be signin or signup' })
  @IsOptional()
  flow?: string;

  @TextField('codeChallenge', 128, {
    doc: {
      description:
        'PKCE challenge: base64url (no padding) of the SHA-256 of the verifier, 43 characters. Required when the service has no IDP_API_KEY (public client).',
    },
  })
  codeChallenge?: string;

  @TextField('codeChallengeMethod', 20, { doc: { description: 'Only S256 (the default when codeChallenge is given)', enum: ['S256'] } })
  codeChallengeMethod?: string;
}

export class IdpCallbackRequest {
  @TextField('code', 2048, { doc: { description: 'Authorization code from the IdP redirect (required)' } })
  code?: string;

  @TextField('state', 8192, { doc: { description: 'The encrypted state from start, as the relay forwarded it (required)' } })
  state?: string;

  @TextField('redirectUri', 2000, { doc: REDIRECT_DOC })
  redirectUri?: string;

  @TextField('authTable', 50, { doc: { description: 'Default core_customers; must be the one given to start' } })
  authTable?: string;

  @TextField('codeVerifier', 128, {
    doc: { description: 'PKCE verifier (43 to 128 characters of A-Z a-z 0-9 - . _ ~); required when start got a codeChallenge' },
  })
  codeVerifier?: string;
}

export class IdpLogoutRequest {
  @IdField('appID', { doc: { description: 'App id; the site-id header is preferred. Read from the body only outside production.' } })
  appID?: number;

  @TextField('sessionId', 512, { doc: { description: 'user.sessionid from the callback (required)' } })
  sessionId?: string;

  @TextField('returnTo', 2000, {
    doc: { description: "Where to land after logout: a path or a URL on the app's domain (used when the app configures no logout URL)" },
  })
  returnTo?: string;
}

/* Answers (OpenAPI documentation only: see src/common/api-responses.ts). */

export class IdpStartAnswer extends SuccessEnvelope {
  @ApiProperty({ description: "The IdP's authorization URL: send the browser there" }) authorizationUrl: string;
  @ApiProperty({ description: 'The encrypted state (app, authTable, client state, nonce, 10-minute expiry): pass it to callback' })
  state: string;
}

export class IdpTokens {
  @ApiProperty() access_token: string;
  @ApiProperty() refresh_token: string;
  @ApiProperty({ type: 'integer', description: 'Seconds the access token lives (3600)' }) expires_in: number;
}

export class IdpUser {
  @ApiProperty({ description: 'Encrypted user id' }) _id: string;
  @ApiProperty({ type: String, nullable: true }) email: string | null;
  @ApiProperty({ type: String, nullable: true }) firstname: string | null;
  @ApiProperty({ type: String, nullable: true }) lastname: string | null;
  @ApiProperty({ type: String, nullable: true }) displayname: string | null;
  @ApiProperty({ type: String, nullable: true }) photourl: string | null;
  @ApiProperty() emailverified: boolean;
  @ApiPropertyOptional({ description: 'The IdP session id, when the IdP provides a revocable session (pass it to logout)' })
  sessionid?: string;
}

export class IdpCallbackAnswer extends SuccessEnvelope {
  @ApiProperty({ type: IdpTokens }) token: IdpTokens;
  @ApiProperty({ type: IdpUser }) user: IdpUser;
  @ApiPropertyOptional({ description: 'The state the client gave to start, when it gave one' }) clientState?: string;
}

export class IdpLogoutAnswer extends SuccessEnvelope {
  @ApiProperty({ enum: ['Signed out successfully'] }) message: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "Open it in the browser: the IdP's logout URL (or the logout relay); null when there is nothing to visit",
  })
  logoutUrl: string | null;
}
