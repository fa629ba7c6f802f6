import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { INestApplicationContext } from '@nestjs/common';
import { SitesService } from '../app-context';
import { projectRoot } from '../common/paths';
import { CommandEdge } from './command-edge';

export const DEMO_FIXTURE = join(projectRoot(), 'fixtures', 'demo.json');

/**
 * On the embedded database's first start, loads fixtures/demo.json so there is an app to try; never on a
 * production instance, which refuses the fixture's published sample keys (app-context/published-secrets.ts).
 */
export async function seedDemoTenantOnce(app: INestApplicationContext): Promise<{ appID: number; domain: string } | null> {
  const sites = app.get(SitesService);
  const edge = app.get(CommandEdge);
  const ctx = edge.context();
  if (ctx.production) return null;
  const fixture = JSON.parse(readFileSync(DEMO_FIXTURE, 'utf8'));
  if ((await sites.count(ctx)) === 0) await edge.seed(fixture);
  const site = await sites.findById(ctx, fixture.site.id);
  return site ? { appID: site.id, domain: site.domain } : null;
}
