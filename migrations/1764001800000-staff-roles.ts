import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Staff roles (README "Staff roles and permissions"): core_users.staff_roles holds the roles a tenant assigns
 * to a staff member (owner, orders, content, support, viewer; several at once). An `admin` primary role keeps
 * meaning owner, so nothing changes for existing admins.
 */
export class StaffRoles1764001800000 implements MigrationInterface {
  name = 'StaffRoles1764001800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE core_users ADD staff_roles varchar(20)[] NOT NULL DEFAULT '{}'`);
    await q.query(
      `ALTER TABLE core_users ADD CONSTRAINT core_users_staff_roles_check
        CHECK (staff_roles <@ ARRAY['owner', 'orders', 'content', 'support', 'viewer']::varchar[])`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE core_users DROP CONSTRAINT core_users_staff_roles_check`);
    await q.query(`ALTER TABLE core_users DROP COLUMN staff_roles`);
  }
}
