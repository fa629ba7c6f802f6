import { createECDH } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { SITE_DOMAIN, Site, SiteChanges, SitesService, siteTextValue } from '../app-context';
import { AccountsService } from '../auth';
import { IdCipherService } from '../common/id-cipher.service';
import { RequestContext } from '../common/request-context';
import { isUniqueViolation } from '../database/transaction';
import { TransactionalConnection } from '../database/transactional-connection';
import { CommandError } from './command-errors';
import { flagOf } from './tenant-columns';

export interface CreatedTenant {
  appID: number;
  name: string;
  domain: string;
  _id: string;
  appKey: string;
  vapid_public_key: string;
}

/** A tenant as the command line shows it: every column but the secrets, whose names are listed when set. */
export type ShownTenant = { appID: number } & Omit<Site, 'id'> & { _id: string; appKey: string; secrets_set: string[] };

/** What `tenant:update` prints. */
export type UpdatedTenant = { appID: number; changed: string[]; tenant: ShownTenant };

@Injectable()
export class TenantService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly sites: SitesService,
    private readonly accounts: AccountsService,
    private readonly cipher: IdCipherService,
  ) {}

  /**
   * A new tenant with its own web-push (VAPID) key pair; payment keys come from the provider later. In the
   * transaction of `ctx`, opened by the command's edge.
   */
  async create(ctx: RequestContext, name: string, domain: string): Promise<CreatedTenant> {
    this.connection.transactionManager(ctx); // asserts the edge's transaction: the check and the insert belong together
    const cleanDomain = domain.trim().toLowerCase();
    if (!name.trim()) throw new CommandError('--name is required');
    if (!SITE_DOMAIN.test(cleanDomain)) throw new CommandError(`--domain "${domain}" is not a valid domain name`);
    if (await this.sites.findByDomain(ctx, cleanDomain)) throw new CommandError(`A tenant with domain "${cleanDomain}" already exists`);
    const vapid = createVapidKeys();
    const site = await this.sites.create(ctx, {
      name: name.trim(),
      domain: cleanDomain,
      vapid_public_key: vapid.publicKey,
      vapid_private_key: vapid.privateKey,
      vapid_subject: `mailto:admin@${cleanDomain}`,
    });
    return {
      appID: site.id,
      name: site.name,
      domain: site.domain,
      _id: this.cipher.encryptAppId(site.id),
      appKey: this.cipher.legacyAppKey(site.id),
      vapid_public_key: vapid.publicKey,
    };
  }

  /** Every tenant (or the one of `appId`), without secrets: the operator's view, across tenants. */
  async list(ctx: RequestContext, appId: number | null): Promise<ShownTenant[]> {
    if (appId === null) return this.shown(ctx, await this.sites.list(ctx));
    const site = await this.sites.findShown(ctx, appId);
    if (!site) throw new CommandError(`App ${appId} not found`);
    return this.shown(ctx, [site]);
  }

  /**
   * Changes columns of the ctx's tenant, given as the command line's text (`""` clears a column that may be
   * empty), each checked for what the service needs of it; all or nothing, in the transaction of `ctx`
   * (opened by the command's edge) with the row locked.
   */
  async update(ctx: RequestContext, raw: Record<string, string>): Promise<UpdatedTenant> {
    this.connection.transactionManager(ctx); // asserts the edge's transaction: the lock holds until it ends
    const appId = ctx.appId;
    try {
      if (!(await this.sites.findShown(ctx, appId, true))) throw new CommandError(`App ${appId} not found`);
      const changes: SiteChanges = {};
      for (const [column, text] of Object.entries(raw)) {
        Object.assign(changes, { [column]: await this.valueOf(ctx, column, text) });
      }
      await this.sites.update(ctx, appId, changes);
      const [tenant] = await this.shown(ctx, [(await this.sites.findShown(ctx, appId))!]);
      return { appID: appId, changed: Object.keys(changes), tenant };
    } catch (error) {
      if (isUniqueViolation(error)) throw new CommandError(`A tenant with domain "${raw.domain?.trim().toLowerCase()}" already exists`);
      throw error;
    }
  }

  private async shown(ctx: RequestContext, sites: Site[]): Promise<ShownTenant[]> {
    const secrets = await this.sites.secretsSet(
      ctx,
      sites.map((site) => site.id),
    );
    return sites.map(({ id, ...columns }) => ({
      appID: id,
      ...columns,
      _id: this.cipher.encryptAppId(id),
      appKey: this.cipher.legacyAppKey(id),
      secrets_set: secrets.get(id) ?? [],
    }));
  }

  /** The column value of `text` for `column`, or CommandError naming the flag and what it takes. */
  private async valueOf(ctx: RequestContext, column: string, text: string): Promise<unknown> {
    const appId = ctx.appId;
    const flag = `--${flagOf(column)}`;
    const metadata = this.connection.repository(ctx, Site).metadata.findColumnWithPropertyName(column);
    if (!metadata || ['id', 'created', 'updated', 'vapid_public_key', 'vapid_private_key'].includes(column))
      throw new CommandError(`${flag}: core_sites has no column "${column}" to set`);
    const value = text.trim();
    if (value === '') {
      if (!metadata.isNullable) throw new CommandError(`${flag} cannot be empty`);
      return null;
    }
    if (metadata.type === 'boolean') {
      if (/^(1|true|yes|on)$/i.test(value)) return true;
      if (/^(0|false|no|off)$/i.test(value)) return false;
      throw new CommandError(`${flag} must be true or false (got "${text}")`);
    }
    if (metadata.type === 'integer') {
      // email_cc, email_bcc: a core_users account of this app.
      if (!/^\d{1,10}$/.test(value) || Number(value) < 1 || Number(value) > 2_147_483_647)
        throw new CommandError(`${flag} must be a core_users id (got "${text}")`);
      if (!(await this.accounts.findById(ctx, 'core_users', Number(value))))
        throw new CommandError(`${flag}: app ${appId} has no core_users row ${value}`);
      return Number(value);
    }
    const length = Number(metadata.length) || Infinity;
    if (value.length > length) throw new CommandError(`${flag} must be at most ${length} characters`);
    const checked = siteTextValue(column, value, ctx.production, text);
    if ('problem' in checked) throw new CommandError(`${flag} ${checked.problem}`);
    if (column === 'domain') {
      const other = await this.sites.findByDomain(ctx, checked.value);
      if (other && other.id !== appId) throw new CommandError(`A tenant with domain "${checked.value}" already exists`);
    }
    return checked.value;
  }
}

/** A P-256 key pair in the base64url forms web push uses (65-byte public point, 32-byte private scalar). */
export function createVapidKeys(): { publicKey: string; privateKey: string } {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { publicKey: ecdh.getPublicKey().toString('base64url'), privateKey: ecdh.getPrivateKey().toString('base64url') };
}
