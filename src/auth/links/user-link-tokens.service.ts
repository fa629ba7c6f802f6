import { Injectable } from '@nestjs/common';
import { SitesService } from '../../app-context';
import { ADMIN_TABLE } from '../../common/access-guards';
import { ApiError } from '../../common/api-error';
import { authError } from '../auth.errors';
import { IdCipherService } from '../../common/id-cipher.service';
import { RequestContext } from '../../common/request-context';
import { Account, AccountsService } from '../accounts/accounts.service';

const PURPOSE = 'user-link';

export interface UserLink {
  userId: number;
  appId: number;
  expires: Date;
}

/**
 * The `userId` token of /auth/user-email, /auth/user-sms-code and /auth/verify-sms-code, issued by
 * /auth/invite-link: a core_users id, its app id and an expiry, sealed with ENCRYPTION_KEY for this purpose
 * only (AES-256-GCM through IdCipherService), so it can be neither read nor altered by clients (docs/auth.md).
 */
@Injectable()
export class UserLinkTokensService {
  constructor(
    private readonly cipher: IdCipherService,
    private readonly sites: SitesService,
    private readonly accounts: AccountsService,
  ) {}

  issue(link: UserLink): string {
    return this.cipher.seal(PURPOSE, JSON.stringify({ u: link.userId, a: link.appId, e: link.expires.getTime() }));
  }

  /** The link inside a token: 400 `Token expired` past its expiry, 400 Validation error for anything not ours, 401 for another app's. */
  read(ctx: RequestContext, token: string): UserLink {
    const plain = this.cipher.open(PURPOSE, token);
    let claims: { u?: unknown; a?: unknown; e?: unknown } | null;
    try {
      claims = plain === null ? null : JSON.parse(plain);
    } catch {
      claims = null;
    }
    if (!claims || !Number.isSafeInteger(claims.u) || !Number.isSafeInteger(claims.a) || typeof claims.e !== 'number') {
      throw ApiError.field('userId', 'userId is not a valid user token');
    }
    // The token names its app; a request that named another one is refused.
    if (ctx.site && ctx.site.id !== claims.a) throw ApiError.unauthorized();
    if (claims.e <= Date.now()) throw authError('TOKEN_EXPIRED');
    return { userId: claims.u as number, appId: claims.a as number, expires: new Date(claims.e) };
  }

  /**
   * The core_users account a token names (a bad token answers as `read` does); a request that named no app
   * gets the token's app as its tenant.
   */
  async account(ctx: RequestContext, token: string): Promise<Account> {
    const link = this.read(ctx, token);
    ctx.site ??= await this.sites.findById(ctx, link.appId);
    const account = ctx.site ? await this.accounts.findById(ctx, ADMIN_TABLE, link.userId) : null;
    if (!account) throw ApiError.field('userId', 'userId is not a valid user token');
    return account;
  }
}
