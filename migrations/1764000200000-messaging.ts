import { MigrationInterface, QueryRunner } from 'typeorm';

/** Messaging tables: notification templates and the notification log. */
export class Messaging1764000200000 implements MigrationInterface {
  name = 'Messaging1764000200000';

  async up(_q: QueryRunner): Promise<void> {}

  async down(_q: QueryRunner): Promise<void> {}
}
