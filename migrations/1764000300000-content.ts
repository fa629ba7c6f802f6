import { MigrationInterface, QueryRunner } from 'typeorm';

/** Content tables registered as versioned. */
export class Content1764000300000 implements MigrationInterface {
  name = 'Content1764000300000';

  async up(_q: QueryRunner): Promise<void> {}

  async down(_q: QueryRunner): Promise<void> {}
}
