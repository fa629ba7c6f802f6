import { Injectable } from '@nestjs/common';
import type { TenantSite } from '../../common/request-context';
import { insertRow, syncIdSequence } from '../../database/insert-row';
import { TransactionScope } from '../../database/transaction-scope';
import { ReplicaReads } from '../../database/replica-reads';
import { TransactionalConnection } from '../../database/transactional-connection';
import { Site } from '../entities/site.entity';
import { SITE_SECRET_COLUMNS, SiteSecrets } from '../site-secrets';

const SECRETS_BY_ID = `SELECT ${SITE_SECRET_COLUMNS.join(', ')} FROM core_sites WHERE id = $1`;

/** Every query on core_sites (the tenants themselves: the table has no app_id, its id is the tenant). */
@Injectable()
export class SiteRepository {
  private requestSelect?: string;

  constructor(
    private readonly connection: TransactionalConnection,
    private readonly replicas: ReplicaReads,
  ) {}

  /**
   * The tenant as requests see it: every column but its secrets (site-secrets.ts). Raw SQL: the benchmark's
   * cheapest route (/getApp) measured query building as a visible share of its cost. `replica`: a tenant lookup the
   * site cache missed, which a read replica may answer (ReplicaReads.siteLookup); every other caller reads the primary.
   */
  async findById(scope: TransactionScope, id: number, replica = false): Promise<TenantSite | null> {
    return (await this.read(scope, `SELECT ${this.requestColumns()} FROM core_sites WHERE id = $1`, [id], replica))[0] ?? null;
  }

  /** By domain, case-insensitively (the unique index is on lower(domain)). Raw SQL: as findById, on every request. */
  async findByDomain(scope: TransactionScope, domain: string, replica = false): Promise<TenantSite | null> {
    if (domain.includes('\u0000')) return null; // PostgreSQL text cannot hold NUL: no app has it, and the statement would fail
    const sql = `SELECT ${this.requestColumns()} FROM core_sites WHERE lower(domain) = lower($1)`;
    return (await this.read(scope, sql, [domain], replica))[0] ?? null;
  }

  /**
   * The tenant's secrets: in the scope's transaction, else on the system pool, as the payment webhook's lookups,
   * so a flood of the tenant's own reads never keeps a payment waiting for its key. Never refused for a
   * request whose client left (TransactionalConnection.query would): a payment call already decided on needs its key.
   */
  async findSecrets(scope: TransactionScope, id: number): Promise<SiteSecrets | null> {
    const manager = scope.manager ?? this.connection.systemDataSource.manager;
    const rows = (await manager.query(SECRETS_BY_ID, [id])) as SiteSecrets[];
    return rows[0] ?? null;
  }

  private read(scope: TransactionScope, sql: string, params: unknown[], replica: boolean): Promise<TenantSite[]> {
    const primary = () => this.connection.query<TenantSite>(scope, sql, params);
    return replica ? this.replicas.siteLookup(scope, sql, params, primary) : primary();
  }

  /** The select list of a request's tenant: the entity's columns but the secrets (made once). */
  private requestColumns(): string {
    return (this.requestSelect ??= this.metadata()
      .columns.filter((column) => !(SITE_SECRET_COLUMNS as readonly string[]).includes(column.propertyName))
      .map((column) => `"${column.databaseName}"`)
      .join(', '));
  }

  /** Whether any tenant lists `origin` in cors_origins (the GIN index answers `@>`). */
  async anyListsOrigin(scope: TransactionScope, origin: string): Promise<boolean> {
    return this.connection
      .repository(scope, Site)
      .createQueryBuilder('s')
      .where('s.cors_origins @> ARRAY[:origin]::text[]', { origin })
      .getExists();
  }

  /** Every tenant by id, without its secret columns (`select: false`). */
  list(scope: TransactionScope): Promise<Site[]> {
    return this.connection.repository(scope, Site).find({ order: { id: 'ASC' } });
  }

  /** One tenant without its secret columns; `lock` holds its row until the scope's transaction ends. */
  findShown(scope: TransactionScope, id: number, lock: boolean): Promise<Site | null> {
    return this.connection
      .repository(scope, Site)
      .findOne({ where: { id }, ...(lock && scope.manager ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
  }

  /** The property names of the secret columns (`select: false`). */
  secretColumns(): string[] {
    return this.metadata()
      .columns.filter((column) => !column.isSelect)
      .map((column) => column.propertyName);
  }

  /** Whether `name` is a property of the entity. */
  hasColumn(name: string): boolean {
    return this.metadata().findColumnWithPropertyName(name) !== undefined;
  }

  /** For each tenant id, whether each of `columns` holds a value (`<column> IS NOT NULL`). */
  async columnsSet(scope: TransactionScope, ids: number[], columns: string[]): Promise<Record<string, unknown>[]> {
    const query = this.connection.repository(scope, Site).createQueryBuilder('s').select('s.id', 'id').where('s.id IN (:...ids)', { ids });
    for (const name of columns) query.addSelect(`s.${name} IS NOT NULL`, name);
    return query.getRawMany<Record<string, unknown>>();
  }

  /** Every tenant's id and domain with the values of `columns` (secret ones included), by id. */
  columnValues(scope: TransactionScope, columns: readonly string[]): Promise<Record<string, unknown>[]> {
    const query = this.connection.repository(scope, Site).createQueryBuilder('s').select('s.id', 'id').addSelect('s.domain', 'domain');
    for (const name of columns) query.addSelect(`s.${name}`, name);
    return query.orderBy('s.id').getRawMany<Record<string, unknown>>();
  }

  /** Changes columns through the entity (`updated` set by TypeORM); whether the row existed. */
  async update(scope: TransactionScope, id: number, changes: Partial<Site>): Promise<boolean> {
    const result = await this.connection.repository(scope, Site).update({ id }, changes);
    return (result.affected ?? 0) > 0;
  }

  count(scope: TransactionScope): Promise<number> {
    return this.connection.repository(scope, Site).count();
  }

  /** Inserts a tenant, possibly with a chosen id (insertRow: TypeORM never writes a generated column), and keeps the serial ahead of it. */
  async insert(scope: TransactionScope, values: Record<string, unknown>): Promise<Site> {
    const em = this.connection.manager(scope);
    const inserted = await insertRow<Site>(em, 'core_sites', values, '*');
    if (values.id !== undefined) await syncIdSequence(em, 'core_sites');
    return inserted;
  }

  private metadata() {
    return this.connection.dataSource.getMetadata(Site);
  }
}
