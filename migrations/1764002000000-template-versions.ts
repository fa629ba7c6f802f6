import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Versions of the apps' notification templates (docs/messaging.md "Templates per tenant"): every create,
 * update, delete and restore of a core_notifications row writes the template as it stands after the change
 * (a delete: as it stood before), numbered per app and event, so any earlier text can be listed and restored,
 * also after the template was deleted. Keyed by event rather than by the row id, which a re-created template
 * does not keep.
 */
export class TemplateVersions1764002000000 implements MigrationInterface {
  name = 'TemplateVersions1764002000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE core_notification_versions (
        id              serial PRIMARY KEY,
        app_id          integer NOT NULL REFERENCES core_sites(id) ON DELETE CASCADE,
        event           varchar(100) NOT NULL,
        version         integer NOT NULL,
        action          varchar(10) NOT NULL,
        notification_id integer,
        enabled         boolean NOT NULL,
        subject         varchar(500) NOT NULL,
        content         text NOT NULL,
        "from"          varchar(320),
        bcc             varchar(2000),
        user_id         integer,
        created         timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT core_notification_versions_action_check CHECK (action IN ('create', 'update', 'delete', 'restore'))
      )`);
    await q.query(`CREATE UNIQUE INDEX core_notification_versions_uq ON core_notification_versions (app_id, event, version)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE core_notification_versions`);
  }
}
