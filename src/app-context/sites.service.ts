import { Injectable } from '@nestjs/common';
import { RequestContext, TenantSite } from '../common/request-context';
import { TransactionScope } from '../database/transaction-scope';
import { Site } from './entities/site.entity';
import { PAYMENT_KEY_COLUMNS, PaymentKeyColumn, sampleKeysOf } from './published-secrets';
import { SiteRepository } from './repositories/site.repository';
import { SiteCache } from './site-cache';
import { SiteSecrets } from './site-secrets';

/** Columns a caller may set when creating a tenant (CLI, seed). */
export type NewSite = Partial<Omit<Site, 'id' | 'created' | 'updated'>> & { id?: number; name: string; domain: string };

/** Columns a caller may change on a tenant (CLI `tenant:update`). */
export type SiteChanges = Partial<Omit<Site, 'id' | 'created' | 'updated'>>;

/**
 * The tenants (core_sites). `ctx` is the context of the work asking (a request resolving its tenant, a job,
 * a command): its transaction, when one is open, is the one every read and write joins.
 */
@Injectable()
export class SitesService {
  constructor(
    private readonly sites: SiteRepository,
    private readonly cache: SiteCache,
  ) {}

  /**
   * The tenant as requests see it: every column but its secrets (the request context carries it to the services
   * that pay, push and mail for it; those that need a secret read it with secretsOf). Outside a transaction from
   * SiteCache when it can (every request runs this); inside one always from the transaction, which may have just written it.
   */
  async findById(ctx: RequestContext, id: number): Promise<TenantSite | null> {
    const load = () => this.sites.findById(ctx, id);
    return ctx.manager ? load() : this.cache.site(id, load);
  }

  /**
   * The tenant resolution's lookups (AppContextGuard, /getApp/:domain): as findById and findByDomain, except that a
   * miss of the site cache may be read from a replica (ReplicaReads.siteLookup: not after the client's own write,
   * nor after a change of core_sites until the replica has replayed it). Every other caller reads the primary.
   */
  async resolveById(ctx: RequestContext, id: number): Promise<TenantSite | null> {
    const load = () => this.sites.findById(ctx, id, true);
    return ctx.manager ? this.sites.findById(ctx, id) : this.cache.site(id, load);
  }

  resolveByDomain(ctx: RequestContext, domain: string): Promise<TenantSite | null> {
    return this.byDomain(ctx, domain, true);
  }

  /** The tenant `id` when the site cache holds it and `ctx` has no transaction (what findById would answer), else undefined. */
  cachedById(ctx: RequestContext, id: number): TenantSite | undefined {
    return ctx.manager ? undefined : this.cache.cached(id);
  }

  /**
   * The secrets of tenant `id` (null: no such tenant), for the payment gateway, the webhook's verification, web
   * push (its VAPID private key) and the owner's settings (masked) only. Cached like findById: outside a transaction from SiteCache when it can,
   * inside one from the transaction.
   */
  secretsOf(scope: TransactionScope, id: number): Promise<SiteSecrets | null> {
    const load = () => this.sites.findSecrets(scope, id);
    return scope.manager ? load() : this.cache.secrets(id, load);
  }

  /** The secrets of tenant `id` when the site cache holds them and `scope` has no transaction, else undefined. */
  cachedSecretsOf(scope: TransactionScope, id: number): SiteSecrets | undefined {
    return scope.manager ? undefined : this.cache.cachedSecrets(id);
  }

  /** By domain, case-insensitively; cached like findById. */
  findByDomain(ctx: RequestContext, domain: string): Promise<TenantSite | null> {
    return this.byDomain(ctx, domain);
  }

  /**
   * Whether `origin` (a browser's Origin header, as browsers send it) is an app's own front end, whose requests
   * CORS lets read their answers (CORS_APP_DOMAINS): `https://<domain>` of an app, or an origin an app lists in
   * its `cors_origins` setting. It runs in the CORS hook, before any request context exists; a preflight names
   * no app, so any app's origins count. Both answers come through the site cache.
   */
  async isAppOrigin(origin: string): Promise<boolean> {
    if (origin.includes('\u0000')) return false; // PostgreSQL text cannot hold NUL
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    if (url.origin !== origin) return false;
    const scope = new TransactionScope();
    if (url.protocol === 'https:' && (await this.byDomain(scope, url.host)) !== null) return true;
    return this.cache.originListed(origin, () => this.sites.anyListsOrigin(scope, origin));
  }

  /** Every tenant by id, without its secret columns (`select: false`): what may be shown to an operator. */
  list(ctx: RequestContext): Promise<Site[]> {
    return this.sites.list(ctx);
  }

  /** One tenant without its secret columns, never from the cache; `lock` holds its row until the transaction ends. */
  findShown(ctx: RequestContext, id: number, lock = false): Promise<Site | null> {
    return this.sites.findShown(ctx, id, lock);
  }

  /** The names of the secret columns (`select: false`) that hold a value, per tenant id: whether a key is set, never the key. */
  async secretsSet(ctx: RequestContext, ids: number[]): Promise<Map<number, string[]>> {
    const secrets = this.sites.secretColumns();
    const result = new Map<number, string[]>(ids.map((id) => [id, []]));
    if (ids.length === 0 || secrets.length === 0) return result;
    for (const row of await this.sites.columnsSet(ctx, ids, secrets)) {
      result.set(
        Number(row.id),
        secrets.filter((name) => row[name] === true),
      );
    }
    return result;
  }

  /**
   * The tenants whose payment keys hold a sample published in this repository (published-secrets.ts), with
   * those columns: what a production start refuses. One read of every tenant's keys, at start only.
   */
  async withPublishedSampleKeys(ctx: RequestContext): Promise<{ id: number; domain: string; columns: PaymentKeyColumn[] }[]> {
    const found: { id: number; domain: string; columns: PaymentKeyColumn[] }[] = [];
    for (const row of await this.sites.columnValues(ctx, PAYMENT_KEY_COLUMNS)) {
      const columns = sampleKeysOf(row);
      if (columns.length) found.push({ id: Number(row.id), domain: String(row.domain), columns });
    }
    return found;
  }

  /**
   * Changes columns of a tenant through the entity (`updated` is set by TypeORM; the core_sites trigger tells
   * every instance's cache). Every key must be a column of the entity, else UnknownColumnError naming it.
   * Whether the row existed.
   */
  async update(ctx: RequestContext, id: number, changes: SiteChanges): Promise<boolean> {
    const unknown = Object.keys(changes).find((name) => ['id', 'created', 'updated'].includes(name) || !this.sites.hasColumn(name));
    if (unknown) throw new UnknownColumnError('core_sites', unknown);
    return this.sites.update(ctx, id, changes);
  }

  count(ctx: RequestContext): Promise<number> {
    return this.sites.count(ctx);
  }

  /** Inserts a tenant (a fixture may choose its id). Every key must be a column of the entity, else UnknownColumnError naming it. */
  async create(ctx: RequestContext, site: NewSite): Promise<Site> {
    const unknown = Object.entries(site).find(([name, value]) => value !== undefined && !this.sites.hasColumn(name));
    if (unknown) throw new UnknownColumnError('core_sites', unknown[0]);
    return this.sites.insert(ctx, site);
  }

  private byDomain(scope: TransactionScope, domain: string, replica = false): Promise<TenantSite | null> {
    if (scope.manager) return this.sites.findByDomain(scope, domain);
    return this.cache.siteOfDomain(domain, () => this.sites.findByDomain(scope, domain, replica));
  }
}

export class UnknownColumnError extends Error {
  constructor(
    readonly table: string,
    readonly column: string,
  ) {
    super(`Unknown column "${column}" in table "${table}"`);
  }
}
