import { withAdmin } from './database';

export default async function globalTeardown(): Promise<void> {
  const run = process.env.TEST_RUN_ID;
  if (!run) return;
  await withAdmin(async (c) => {
    const { rows } = await c.query(`SELECT datname FROM pg_database WHERE datname LIKE $1 OR datname LIKE $2`, [
      `tpl_${run}`,
      `t_${run}_%`,
    ]);
    for (const { datname } of rows) await c.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  });
}
