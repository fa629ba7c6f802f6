import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * core_sites.cors_origins: the browser origins besides `https://<domain>` whose requests CORS lets read the
 * answers, set by the tenant's owner (POST /staff/settings/update). The CORS hook asks, for an Origin header,
 * whether any app lists it: the GIN index answers `cors_origins @> ARRAY[origin]`.
 */
export class SiteCorsOrigins1764002250000 implements MigrationInterface {
  name = 'SiteCorsOrigins1764002250000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE core_sites ADD COLUMN cors_origins text[] NOT NULL DEFAULT '{}'`);
    await q.query(`CREATE INDEX core_sites_cors_origins_idx ON core_sites USING gin (cors_origins)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS core_sites_cors_origins_idx`);
    await q.query(`ALTER TABLE core_sites DROP COLUMN IF EXISTS cors_origins`);
  }
}
