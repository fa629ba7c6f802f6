import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * core_audit_log (README "Audit log", issue 38 part 4): every staff action that changed something, written in
 * the transaction of the change. Listed newest first per app through indexes ending in (created DESC, id DESC),
 * one per filter, so a page reads about one page of index entries whatever the number of rows.
 */
export class AuditLog1764001900000 implements MigrationInterface {
  name = 'AuditLog1764001900000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE core_audit_log (
        id          bigserial NOT NULL CONSTRAINT core_audit_log_pkey PRIMARY KEY,
        app_id      integer NOT NULL CONSTRAINT core_audit_log_app_id_fkey REFERENCES core_sites(id) ON DELETE CASCADE,
        actor_id    integer,
        actor_table varchar(64),
        action      varchar(64) NOT NULL,
        table_name  varchar(64) NOT NULL,
        record_id   varchar(64),
        ip          varchar(64),
        created     timestamptz NOT NULL DEFAULT now(),
        changes     jsonb NOT NULL DEFAULT '{}'
      )`);
    await q.query(`CREATE INDEX core_audit_log_app_created_idx ON core_audit_log (app_id, created DESC, id DESC)`);
    await q.query(`CREATE INDEX core_audit_log_app_actor_idx ON core_audit_log (app_id, actor_id, created DESC, id DESC)`);
    await q.query(`CREATE INDEX core_audit_log_app_action_idx ON core_audit_log (app_id, action, created DESC, id DESC)`);
    await q.query(`CREATE INDEX core_audit_log_app_record_idx ON core_audit_log (app_id, table_name, record_id, created DESC, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE core_audit_log`);
  }
}
