import { Injectable } from '@nestjs/common';
import { Account, AccountsService, AuthTable, ExternalProfile } from '../auth';
import { RequestContext } from '../common/request-context';
import { isUniqueViolation } from '../database/transaction';
import { TransactionalConnection } from '../database/transactional-connection';
import { idpError } from './idp.errors';
import type { IdpClaims } from './idp-client.service';
import { IdentityRepository } from './repositories/identity.repository';

/** The provider name of the one configured IdP: identities are looked up by (`idp`, the IdP's user id). */
export const PROVIDER = 'idp';
/** Attempts of a first login that lost a race (the other login's identity or email committed first). */
const ATTEMPTS = 4;

export interface SignIn {
  account: Account;
  /** How the account was reached: an existing identity, a link by verified email, or a new account. */
  outcome: 'identity' | 'linked' | 'created';
}

/** Another first login of the same IdP account committed its identity first: this attempt is rolled back and retried. */
class IdentityTaken extends Error {}

/**
 * The identities of IdP accounts (core_identities) and the accounts they log into, always within one app and
 * one user table (the request context's app).
 */
@Injectable()
export class IdentitiesService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly identities: IdentityRepository,
    private readonly accounts: AccountsService,
  ) {}

  /**
   * The account of an IdP login, in one transaction: the identity's account when the
   * (provider, subject) is known in (app, table); else the one account of that scope with the email, when the
   * IdP asserts it verified (the identity is linked to it); else a new account and identity.
   *
   * Two first logins of one IdP account at once make one account: the identity's unique key (ON CONFLICT DO
   * NOTHING) or the account email's unique index stops the second, whose transaction is rolled back (with the
   * account it created) and run again, finding the first one's identity.
   *
   * The transaction opens here rather than on the route: it starts after the IdP's code exchange (a call out
   * that must neither hold a connection nor be repeated) and is retried on its own after a lost race.
   */
  async signIn(ctx: RequestContext, table: AuthTable, claims: IdpClaims): Promise<SignIn> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.connection.inTransaction(ctx, () => this.signInOnce(ctx, table, claims));
      } catch (error) {
        if (attempt < ATTEMPTS && (error instanceof IdentityTaken || isUniqueViolation(error))) continue;
        throw error;
      }
    }
  }

  private async signInOnce(ctx: RequestContext, table: AuthTable, claims: IdpClaims): Promise<SignIn> {
    const key = { table, provider: PROVIDER, sub: claims.sub };
    const known = await this.identities.find(ctx, key);
    if (known) {
      const account = await this.accounts.findById(ctx, table, known.user_id);
      if (account) return { account, outcome: 'identity' };
      // Its account was deleted: the identity goes with it, and this login is a first one again.
      await this.identities.delete(ctx, known.id, known.user_id);
    }

    let outcome: SignIn['outcome'] = 'linked';
    const holder = claims.email ? await this.accounts.findByEmail(ctx, table, claims.email) : null;
    let account = holder && claims.emailVerified ? holder : null;
    if (!account) {
      outcome = 'created';
      // An email another account holds is not taken over (nor copied: it is unique per app and table).
      const email = holder || claims.email === null || claims.email.length > 320 ? null : claims.email;
      if (table === 'core_users' && email === null) throw idpError('NO_USABLE_EMAIL');
      account = await this.accounts.createExternal(ctx, table, newProfile(claims, email));
    }

    const identityEmail = claims.email !== null && claims.email.length <= 320 ? claims.email : null;
    if (!(await this.identities.insert(ctx, key, account.id, identityEmail))) throw new IdentityTaken();
    return { account, outcome };
  }
}

/** A new account's profile from the IdP's claims, cut to the columns' sizes. */
function newProfile(claims: IdpClaims, email: string | null): ExternalProfile {
  const cut = (value: string | null, max: number) => (value === null ? null : value.slice(0, max));
  return {
    email,
    firstname: cut(claims.givenName, 50),
    lastname: cut(claims.familyName, 50),
    displayname: cut(claims.name, 100),
    photourl: claims.picture !== null && claims.picture.length <= 1000 && /^https?:\/\//i.test(claims.picture) ? claims.picture : null,
    emailverified: email !== null && claims.emailVerified,
  };
}
