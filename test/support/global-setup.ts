import { randomBytes } from 'node:crypto';
import { migrate } from '../../src/database/migrate';
import { databaseUrl, withAdmin } from './database';

/**
 * One migrated template database per test run; every test file clones its own database from it
 * (test/support/test-app.ts) and drops it afterwards, so runs and files never see each other's rows.
 */
export default async function globalSetup(): Promise<void> {
  const run = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const template = `tpl_${run}`;
  await withAdmin((c) => c.query(`CREATE DATABASE "${template}"`));
  await migrate({ url: databaseUrl(template), embedded: false, idle: async () => undefined });
  process.env.TEST_RUN_ID = run;
  process.env.TEST_TEMPLATE_DB = template;
}
