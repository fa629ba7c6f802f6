import { DataSource } from 'typeorm';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The migrations are the schema's reviewed source; the entities must describe exactly what they build.
 * TypeORM's schema builder, run against a freshly migrated database, must find nothing to change, and
 * every table the migrations create must have an entity.
 */
describe('schema: migrations and entities agree', () => {
  let t: TestApp;
  let dataSource: DataSource;

  beforeAll(async () => {
    t = await startTestApp();
    dataSource = t.get(DataSource);
  });
  afterAll(() => t.close());

  it('the schema builder finds nothing to change on a migrated database', async () => {
    const log = await dataSource.driver.createSchemaBuilder().log();
    expect(log.upQueries.map((q) => q.query)).toEqual([]);
  });

  it('every table the migrations create has an entity', async () => {
    const rows: { table_name: string }[] = await dataSource.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'typeorm_migrations'`,
    );
    const withEntity = new Set(dataSource.entityMetadatas.map((m) => m.tableName));
    expect(
      rows
        .map((r) => r.table_name)
        .filter((name) => !withEntity.has(name))
        .sort(),
    ).toEqual([]);
  });
});
