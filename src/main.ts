import './compile-cache';
import 'reflect-metadata';
import { closeApp, createApp } from './app.factory';
import { flushLogs } from './common/logging';
import { ConfigError, loadConfig } from './config/app-config';
import { withDevSecrets } from './config/dev-secrets';
import { DataDirInUseError, openDatabase } from './database/embedded-database';
import { migrate } from './database/migrate';
import { seedDemoTenantOnce } from './cli/demo-tenant';
import { compactHeapAfterStart } from './heap-after-start';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(withDevSecrets(process.env));
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }

  const database = await openDatabase(config);
  const applied = await migrate(database);
  const { app, logger } = await createApp(config, database);
  for (const warning of config.warnings) logger.warn(warning);
  if (applied.length) logger.info({ migrations: applied }, 'Applied migrations');

  const demo = database.embedded ? await seedDemoTenantOnce(app) : null;

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'Shutting down: finishing requests in flight');
    const force = setTimeout(() => process.exit(1), 25_000).unref();
    await closeApp(app);
    await database.stop();
    logger.info('Stopped');
    await flushLogs(logger);
    clearTimeout(force);
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  // Soon after, not before or at once: the first requests (a load balancer's readiness check) need not wait for it.
  setTimeout(compactHeapAfterStart, 1500).unref();
  const base = `http://localhost:${config.port}${config.basePath}`;
  logger.info({ url: base, database: database.embedded ? 'embedded' : 'postgresql', docs: `${base}/docs` }, 'Listening');
  if (demo) {
    process.stdout.write(
      `\nDemo tenant: appID ${demo.appID} (${demo.domain}). Try:\n` +
        `  curl -s -X POST ${base}/getApp -H 'site-id: ${demo.appID}'\n` +
        `OpenAPI: ${base}/docs\n\n`,
    );
  }
}

void main().catch((error) => {
  // A module's own configuration check at start (ConfigError) reads like the loader's: the message only; so
  // does an embedded database another process holds.
  console.error(error instanceof ConfigError || error instanceof DataDirInUseError ? error.message : error);
  process.exit(1);
});
