import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The staff console's browser sessions (issue 39, README "Staff console"): core_console_sessions, one row per
 * signed-in browser, holding a digest of the current refresh cookie's secret (replaced at every refresh, so an
 * old cookie no longer matches) and the time of the last refresh (the idle timeout, CONSOLE_IDLE_MINUTES).
 * Sign-out deletes the row.
 */
export class ConsoleSessions1764002300000 implements MigrationInterface {
  name = 'ConsoleSessions1764002300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE core_console_sessions (
        id          uuid NOT NULL CONSTRAINT core_console_sessions_pkey PRIMARY KEY,
        app_id      integer NOT NULL CONSTRAINT core_console_sessions_app_id_fkey REFERENCES core_sites(id) ON DELETE CASCADE,
        user_id     integer NOT NULL,
        secret_hash bytea NOT NULL,
        created     timestamptz NOT NULL DEFAULT now(),
        last_active timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX core_console_sessions_last_active_idx ON core_console_sessions (last_active)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE core_console_sessions`);
  }
}
