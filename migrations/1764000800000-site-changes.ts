import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every change of a core_sites row is announced on the channel `core_sites_changed` (payload: the id), so
 * that each instance's in-memory copy of the tenant rows (SiteCache) drops the row at once, whoever changed
 * it (the service, the CLI, an operator's SQL).
 */
export class SiteChanges1764000800000 implements MigrationInterface {
  name = 'SiteChanges1764000800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION core_sites_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('core_sites_changed', COALESCE(NEW.id, OLD.id)::text);
        RETURN NULL;
      END $$`);
    await q.query(
      `CREATE TRIGGER core_sites_changed AFTER INSERT OR UPDATE OR DELETE ON core_sites FOR EACH ROW EXECUTE FUNCTION core_sites_notify_change()`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER core_sites_changed ON core_sites`);
    await q.query(`DROP FUNCTION core_sites_notify_change()`);
  }
}
