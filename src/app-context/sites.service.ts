import { Injectable } from '@nestjs/common';
import { quoteIdentifier } from '../database/identifiers';
import { TransactionalConnection } from '../database/transactional-connection';
import { TransactionScope } from '../database/transaction-scope';
import { Site } from './entities/site.entity';
import { SiteCache } from './site-cache';

/** Columns a caller may set when creating a tenant (CLI, seed). */
export type NewSite = Partial<Omit<Site, 'id' | 'created' | 'updated'>> & { id?: number; name: string; domain: string };

/** Columns a caller may change on a tenant (CLI `tenant:update`). */
export type SiteChanges = Partial<Omit<Site, 'id' | 'created' | 'updated'>>;

@Injectable()
export class SitesService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly cache: SiteCache,
  ) {}

  /**
   * The tenant with every column, secrets included (the request context carries them to the services that
   * pay, push and mail for it). Outside a transaction from SiteCache when it can (every request runs this);
   * inside one always from the transaction, which may have just written it. Raw SQL: the benchmark's
   * cheapest route (/getApp) measured the repository's query building as a visible share of its cost.
   */
  async findById(scope: TransactionScope, id: number): Promise<Site | null> {
    const load = async () =>
      ((await this.connection.manager(scope).query('SELECT * FROM core_sites WHERE id = $1', [id])) as Site[])[0] ?? null;
    return scope.manager ? load() : this.cache.site(id, load);
  }

  /** By domain, case-insensitively (the unique index is on lower(domain)); cached and raw like findById. */
  async findByDomain(scope: TransactionScope, domain: string): Promise<Site | null> {
    const load = async () =>
      ((await this.connection.manager(scope).query('SELECT * FROM core_sites WHERE lower(domain) = lower($1)', [domain])) as Site[])[0] ??
      null;
    return scope.manager ? load() : this.cache.siteOfDomain(domain, load);
  }

  /**
   * Whether `origin` (a browser's Origin header, as browsers send it) is `https://<domain>` of an app: that
   * app's own front end, whose requests CORS lets read their answers (CORS_APP_DOMAINS). A preflight names no
   * app, so any app's domain counts. Through the cache like findByDomain.
   */
  async isAppOrigin(origin: string): Promise<boolean> {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    if (url.protocol !== 'https:' || url.origin !== origin) return false;
    return (await this.findByDomain(new TransactionScope(), url.host)) !== null;
  }

  /** Every tenant by id, without its secret columns (`select: false`): what may be shown to an operator. */
  async list(scope: TransactionScope): Promise<Site[]> {
    return this.connection.repository(scope, Site).find({ order: { id: 'ASC' } });
  }

  /** One tenant without its secret columns, never from the cache; `lock` holds its row until the transaction ends. */
  async findShown(scope: TransactionScope, id: number, lock = false): Promise<Site | null> {
    return this.connection
      .repository(scope, Site)
      .findOne({ where: { id }, ...(lock && scope.manager ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
  }

  /** The names of the secret columns (`select: false`) that hold a value, per tenant id: whether a key is set, never the key. */
  async secretsSet(scope: TransactionScope, ids: number[]): Promise<Map<number, string[]>> {
    const repository = this.connection.repository(scope, Site);
    const secrets = repository.metadata.columns.filter((column) => !column.isSelect).map((column) => column.propertyName);
    const result = new Map<number, string[]>(ids.map((id) => [id, []]));
    if (ids.length === 0 || secrets.length === 0) return result;
    const query = repository.createQueryBuilder('s').select('s.id', 'id').where('s.id IN (:...ids)', { ids });
    for (const name of secrets) query.addSelect(`s.${name} IS NOT NULL`, name);
    for (const row of await query.getRawMany<Record<string, unknown>>()) {
      result.set(
        Number(row.id),
        secrets.filter((name) => row[name] === true),
      );
    }
    return result;
  }

  /**
   * Changes columns of a tenant through the entity (`updated` is set by TypeORM; the core_sites trigger tells
   * every instance's cache). Every key must be a column of the entity, else UnknownColumnError naming it.
   * Whether the row existed.
   */
  async update(scope: TransactionScope, id: number, changes: SiteChanges): Promise<boolean> {
    const repository = this.connection.repository(scope, Site);
    const unknown = Object.keys(changes).find(
      (name) => ['id', 'created', 'updated'].includes(name) || !repository.metadata.findColumnWithPropertyName(name),
    );
    if (unknown) throw new UnknownColumnError('core_sites', unknown);
    const result = await repository.update({ id }, changes);
    return (result.affected ?? 0) > 0;
  }

  async count(scope: TransactionScope): Promise<number> {
    return this.connection.repository(scope, Site).count();
  }

  /** Inserts a tenant. Every key must be a column of the entity, else UnknownColumnError naming it. */
  async create(scope: TransactionScope, site: NewSite): Promise<Site> {
    const repository = this.connection.repository(scope, Site);
    const entries = Object.entries(site).filter(([, value]) => value !== undefined);
    const unknown = entries.find(([name]) => !repository.metadata.findColumnWithPropertyName(name));
    if (unknown) throw new UnknownColumnError('core_sites', unknown[0]);
    // Raw SQL: a fixture may choose the id, and TypeORM never writes a value into a generated column.
    const names = entries.map(([name]) => quoteIdentifier(name)).join(', ');
    const params = entries.map((_, i) => `$${i + 1}`).join(', ');
    const [inserted]: Site[] = await repository.query(
      `INSERT INTO core_sites (${names}) VALUES (${params}) RETURNING *`,
      entries.map(([, v]) => v),
    );
    if (site.id !== undefined) {
      // Keep the serial ahead of explicitly chosen ids.
      await repository.query(`SELECT setval(pg_get_serial_sequence('core_sites', 'id'), GREATEST((SELECT max(id) FROM core_sites), 1))`);
    }
    return inserted;
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
