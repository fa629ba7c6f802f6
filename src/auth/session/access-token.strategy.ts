import type { KeyObject } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { AuthPrincipal, RequestContext, RequestWithContext } from '../../common/request-context';
import { asJwtSecret } from './session-tokens.service';

export const ACCESS_TOKEN_STRATEGY = 'access-token';

/**
 * What the guard of the app serving a request gives the strategy: the app's access key for a token (key rotation: the
 * previous one for a token it signed) and its account check.
 */
export interface AccessTokenCheck {
  keyFor(token: string): KeyObject;
  principalOf(ctx: RequestContext, payload: unknown): Promise<AuthPrincipal>;
}

export type RequestWithAccessTokenCheck = RequestWithContext & { accessTokenCheck?: AccessTokenCheck };

/**
 * The `Authorization: Bearer <access token>` of a request, through passport-jwt (HS256 pinned, signature and
 * expiry checked), then the account check of BearerAuthService. Passport keeps its strategies in one
 * process-wide registry, so this strategy holds no app state: it reads the secret and the check from the
 * request, where the app's guard put them (two app instances in one process, as in the tests, each keep
 * their own).
 */
@Injectable()
export class AccessTokenStrategy extends PassportStrategy(Strategy, ACCESS_TOKEN_STRATEGY) {
  constructor() {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      secretOrKeyProvider: (request: RequestWithAccessTokenCheck, token: string, done: (error: Error | null, secret?: string) => void) =>
        request.accessTokenCheck
          ? done(null, asJwtSecret(request.accessTokenCheck.keyFor(token)))
          : done(new Error('No access token check for this request')),
      algorithms: ['HS256'],
      passReqToCallback: true,
    });
  }

  validate(request: RequestWithAccessTokenCheck, payload: unknown): Promise<AuthPrincipal> {
    return request.accessTokenCheck!.principalOf(request.ctx!, payload);
  }
}
