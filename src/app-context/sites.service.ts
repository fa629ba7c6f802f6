import { Injectable } from '@nestjs/common';
import { quoteIdentifier } from '../database/identifiers';
import { TransactionalConnection } from '../database/transactional-connection';
import { TransactionScope } from '../database/transaction-scope';
import { Site } from './entities/site.entity';
import { SiteCache } from './site-cache';

/** Columns a caller may set when creating a tenant (CLI, seed). */
export type NewSite = Partial<Omit<Site, 'id' | 'created' | 'updated'>> & { id?: number; name: string; domain: string };

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
    const load = async () => ((await this.connection.manager(scope).query('SELECT * FROM core_sites WHERE id = $1', [id])) as Site[])[0] ?? null;
    return scope.manager ? load() : this.cache.site(id, load);
  }

  /** By domain, case-insensitively (the unique index is on lower(domain)); cached and raw like findById. */
  async findByDomain(scope: TransactionScope, domain: string): Promise<Site | null> {
    const load = async () => ((await this.connection.manager(scope).query('SELECT * FROM core_sites WHERE lower(domain) = lower($1)', [domain])) as Site[])[0] ?? null;
    return scope.manager ? load() : this.cache.siteOfDomain(domain, load);
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
    const [inserted]: Site[] = await repository.query(`INSERT INTO core_sites (${names}) VALUES (${params}) RETURNING *`, entries.map(([, v]) => v));
    if (site.id !== undefined) {
      // Keep the serial ahead of explicitly chosen ids.
      await repository.query(`SELECT setval(pg_get_serial_sequence('core_sites', 'id'), GREATEST((SELECT max(id) FROM core_sites), 1))`);
    }
    return inserted;
  }
}

export class UnknownColumnError extends Error {
  constructor(readonly table: string, readonly column: string) {
    super(`Unknown column "${column}" in table "${table}"`);
  }
}
