import { createHmac, createSecretKey, KeyObject, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { JwtService, TokenExpiredError as JwtExpiredError } from '@nestjs/jwt';
import { AuthPrincipal } from '../../common/request-context';
import { AppConfig, PreviousKey, stillAccepted } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';

export type TokenType = 'access' | 'refresh';

interface Claims {
  sub: string;
  app: number;
  tbl: string;
  role: string | null;
  typ: TokenType;
  /** Password version (the account's password_changed) the token was issued for; a password change voids the token for refresh. */
  pwv?: string;
}

export interface TokenPair {
  access_token: string;
  refresh_token: string;
}

/** What a verified token says: the principal, its issue time (seconds since the epoch) and password version. */
export interface VerifiedToken {
  principal: AuthPrincipal;
  issuedAt: number;
  passwordVersion: string | null;
}

export class TokenExpiredError extends Error {}
export class InvalidTokenError extends Error {}
/** Not a JWT at all (not three base64url parts with a JSON header and payload): a format error, not a forgery. */
export class MalformedTokenError extends InvalidTokenError {}

const ALGORITHM = 'HS256';

/**
 * The auth module's session JWTs (access and refresh; not the digital access tokens of src/tokens), made and
 * checked through @nestjs/jwt. The algorithm is pinned (no `none`, no key confusion), access and refresh
 * tokens have their own secrets and a `typ` claim, so neither can stand in for the other.
 *
 * Key rotation (docs/operations.md "Rotating keys"): tokens are always signed with the current secret; until
 * JWT_ACCESS_SECRET_PREVIOUS_UNTIL (JWT_REFRESH_SECRET_PREVIOUS_UNTIL) a token whose signature is the previous
 * secret's is verified with that one, so sessions issued before the rotation go on until then.
 */
@Injectable()
export class SessionTokensService {
  /**
   * Each token type's secret, as a key object made once, and lifetime. Given the secret's text, jsonwebtoken
   * first tries to read it as a PEM key and catches the error: a stack trace and several times the work per
   * token signed, and per token verified, i.e. on every bearer request (docs/performance.md "Figures that
   * explain code choices").
   */
  private readonly keys: Record<TokenType, { key: KeyObject; ttl: number; previous: PreviousKey<KeyObject> | null }>;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly jwt: JwtService,
  ) {
    const { accessSecret, refreshSecret, accessTtlSeconds, refreshTtlSeconds } = config.jwt;
    const { jwtAccess, jwtRefresh } = config.previousKeys;
    const previous = (p: PreviousKey<string> | null) => p && { value: createSecretKey(p.value, 'utf8'), until: p.until };
    this.keys = {
      access: { key: createSecretKey(accessSecret, 'utf8'), ttl: accessTtlSeconds, previous: previous(jwtAccess) },
      refresh: { key: createSecretKey(refreshSecret, 'utf8'), ttl: refreshTtlSeconds, previous: previous(jwtRefresh) },
    };
  }

  issuePair(principal: AuthPrincipal, passwordVersion?: string): TokenPair {
    return {
      access_token: this.sign(principal, 'access', passwordVersion),
      refresh_token: this.sign(principal, 'refresh', passwordVersion),
    };
  }

  sign(principal: AuthPrincipal, typ: TokenType, passwordVersion?: string): string {
    const claims: Claims = { sub: String(principal.userId), app: principal.appId, tbl: principal.authTable, role: principal.role, typ };
    if (passwordVersion !== undefined) claims.pwv = passwordVersion;
    const { key, ttl } = this.keys[typ];
    return this.jwt.sign(claims, { privateKey: key, algorithm: ALGORITHM, expiresIn: ttl });
  }

  /** The principal of a valid token of type `typ`; throws TokenExpiredError or InvalidTokenError. */
  verify(token: string, typ: TokenType, options: { ignoreExpiration?: boolean } = {}): AuthPrincipal {
    return this.verifyWithIssuedAt(token, typ, options).principal;
  }

  /** As `verify`, with the token's issue time (seconds since the epoch) and password version, to refuse tokens older than a password change. */
  verifyWithIssuedAt(token: string, typ: TokenType, options: { ignoreExpiration?: boolean } = {}): VerifiedToken {
    if (this.jwt.decode(token) === null) throw new MalformedTokenError('Malformed token');
    let payload: unknown;
    try {
      payload = this.jwt.verify(token, {
        secret: asJwtSecret(this.keyFor(typ, token)),
        algorithms: [ALGORITHM],
        ignoreExpiration: options.ignoreExpiration,
      });
    } catch (error) {
      if (error instanceof JwtExpiredError) throw new TokenExpiredError('Token has expired');
      throw new InvalidTokenError('Invalid token');
    }
    return readClaims(payload, typ);
  }

  /**
   * The key to verify a token of type `typ` with: the previous secret's while it is accepted and the token's
   * signature is its (one HMAC, only while rotating), else the current one (which then accepts or refuses it).
   * AccessTokenStrategy verifies bearer tokens with the access key this gives.
   */
  keyFor(typ: TokenType, token: string): KeyObject {
    const { key, previous } = this.keys[typ];
    const old = stillAccepted(previous);
    return old && signedWith(token, old) ? old : key;
  }
}

/** Whether the HS256 signature of a compact JWT is the one `key` makes. */
function signedWith(token: string, key: KeyObject): boolean {
  const last = token.lastIndexOf('.');
  if (last <= 0) return false;
  const signature = Buffer.from(token.slice(last + 1), 'base64url');
  const expected = createHmac('sha256', key).update(token.slice(0, last)).digest();
  return signature.length === expected.length && timingSafeEqual(signature, expected);
}

/**
 * A key object where @nestjs/jwt's and passport-jwt's option types list only string | Buffer: both hand it to
 * jsonwebtoken as it is, whose own type (`Secret`) takes a KeyObject.
 */
export function asJwtSecret(key: KeyObject): string {
  return key as unknown as string;
}

/**
 * The claims of a token whose signature and expiry were verified, checked for shape: `typ` as expected,
 * an `exp`, `sub` a positive integer (string or number), `app` a positive integer, `tbl` and `role` strings.
 */
export function readClaims(payload: unknown, typ: TokenType): VerifiedToken {
  const claims = (payload ?? {}) as { [K in keyof Claims]?: unknown } & { iat?: unknown; exp?: unknown };
  const userId = subjectId(claims.sub);
  if (
    claims.typ !== typ ||
    userId === null ||
    typeof claims.exp !== 'number' ||
    !isAppId(claims.app) ||
    typeof claims.tbl !== 'string' ||
    !isRole(claims.role)
  ) {
    throw new InvalidTokenError('Invalid token');
  }
  if (claims.pwv !== undefined && typeof claims.pwv !== 'string') throw new InvalidTokenError('Invalid token');
  return {
    principal: { userId, appId: claims.app, authTable: claims.tbl, role: claims.role ?? null },
    issuedAt: typeof claims.iat === 'number' ? claims.iat : 0,
    passwordVersion: claims.pwv ?? null,
  };
}

/** `sub` as a user id: a string or a number holding a positive integer, nothing else (no arrays, booleans, objects). */
function subjectId(sub: unknown): number | null {
  if (typeof sub !== 'string' && typeof sub !== 'number') return null;
  if (typeof sub === 'string' && !/^[1-9]\d{0,15}$/.test(sub)) return null;
  const id = Number(sub);
  return Number.isSafeInteger(id) && id > 0 ? id : null;
}

function isAppId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

function isRole(value: unknown): value is string | null | undefined {
  return value === undefined || value === null || typeof value === 'string';
}
