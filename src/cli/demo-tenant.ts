import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { INestApplicationContext } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { projectRoot } from '../common/paths';
import { SeedService } from './seed.service';

export const DEMO_FIXTURE = join(projectRoot(), 'fixtures', 'demo.json');

/** On the embedded database's first start, loads fixtures/demo.json so there is an app to try. */
export async function seedDemoTenantOnce(app: INestApplicationContext): Promise<{ appID: number; domain: string } | null> {
  const dataSource = app.get<DataSource>(getDataSourceToken());
  const fixture = JSON.parse(readFileSync(DEMO_FIXTURE, 'utf8'));
  const [{ count }] = await dataSource.query('SELECT count(*)::int AS count FROM core_sites');
  if (count === 0) await app.get(SeedService).load(fixture);
  const [site] = await dataSource.query('SELECT id, domain FROM core_sites WHERE id = $1', [fixture.site.id]);
  return site ? { appID: site.id, domain: site.domain } : null;
}
