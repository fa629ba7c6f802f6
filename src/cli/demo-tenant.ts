import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { INestApplicationContext } from '@nestjs/common';
import { SitesService } from '../app-context';
import { projectRoot } from '../common/paths';
import { TransactionScope } from '../database/transaction-scope';
import { SeedService } from './seed.service';

export const DEMO_FIXTURE = join(projectRoot(), 'fixtures', 'demo.json');

/** On the embedded database's first start, loads fixtures/demo.json so there is an app to try. */
export async function seedDemoTenantOnce(app: INestApplicationContext): Promise<{ appID: number; domain: string } | null> {
  const sites = app.get(SitesService);
  const scope = new TransactionScope();
  const fixture = JSON.parse(readFileSync(DEMO_FIXTURE, 'utf8'));
  if ((await sites.count(scope)) === 0) await app.get(SeedService).load(fixture);
  const site = await sites.findById(scope, fixture.site.id);
  return site ? { appID: site.id, domain: site.domain } : null;
}
