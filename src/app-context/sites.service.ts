import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { SiteRecord } from './site.record';

/** Columns a caller may set when creating a tenant (CLI, seed). */
export type NewSite = Partial<Omit<SiteRecord, 'id' | 'created' | 'updated'>> & { id?: number; name: string; domain: string };

@Injectable()
export class SitesService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async findById(id: number): Promise<SiteRecord | null> {
    const rows: SiteRecord[] = await this.dataSource.query('SELECT * FROM core_sites WHERE id = $1', [id]);
    return rows[0] ?? null;
  }

  async findByDomain(domain: string): Promise<SiteRecord | null> {
    const rows: SiteRecord[] = await this.dataSource.query('SELECT * FROM core_sites WHERE lower(domain) = lower($1)', [domain]);
    return rows[0] ?? null;
  }

  /** Inserts a tenant; the column names come from the caller's keys, checked against the table's columns first. */
  async create(em: EntityManager, site: NewSite): Promise<SiteRecord> {
    const columns = await tableColumns(em, 'core_sites');
    const entries = Object.entries(site).filter(([, value]) => value !== undefined);
    const unknown = entries.find(([name]) => !columns.has(name));
    if (unknown) throw new UnknownColumnError('core_sites', unknown[0]);
    const names = entries.map(([name]) => `"${name}"`).join(', ');
    const params = entries.map((_, i) => `$${i + 1}`).join(', ');
    const rows: SiteRecord[] = await em.query(`INSERT INTO core_sites (${names}) VALUES (${params}) RETURNING *`, entries.map(([, v]) => v));
    if (site.id !== undefined) {
      // Keep the serial ahead of explicitly chosen ids.
      await em.query(`SELECT setval(pg_get_serial_sequence('core_sites', 'id'), GREATEST((SELECT max(id) FROM core_sites), 1))`);
    }
    return rows[0];
  }
}

export class UnknownColumnError extends Error {
  constructor(readonly table: string, readonly column: string) {
    super(`Unknown column "${column}" in table "${table}"`);
  }
}

/** The column names of a table in the public schema. */
export async function tableColumns(em: EntityManager | DataSource, table: string): Promise<Set<string>> {
  const rows: { column_name: string }[] = await em.query(
    `SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1`,
    [table],
  );
  return new Set(rows.map((r) => r.column_name));
}
