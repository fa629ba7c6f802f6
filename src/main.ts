import './node-version';
import './compile-cache';
import { EventEmitter } from 'node:events';
import 'reflect-metadata';
import { closeApp, createApp } from './app.factory';
import { publishedSamplesMessage, SitesService } from './app-context';
import { RequestContext } from './common/request-context';
import { flushLogs } from './common/logging';
import { ConfigError, loadConfig } from './config/app-config';
import { withDevSecrets } from './config/dev-secrets';
import { DatabaseConnectError, isDatabaseUnavailable } from './database/connection-errors';
import { DataDirInUseError, openDatabase } from './database/embedded-database';
import { migrate } from './database/migrate';
import { seedDemoTenantOnce } from './cli/demo-tenant';
import { compactHeapAfterStart } from './heap-after-start';
import { STARTED_EVENT } from './service-process';

/** A start-up failure whose message is the one line to print. */
class StartError extends Error {}

async function main(): Promise<void> {
  const config = loadConfig(withDevSecrets(process.env));
  const database = await openDatabase(config);
  const applied = await migrate(database); // its first connection fails with DatabaseConnectError
  const { app, logger } = await createApp(config, database).catch((error: unknown) => {
    throw isDatabaseUnavailable(error) ? new DatabaseConnectError(database.url, error) : error;
  });
  if (config.production) {
    // A tenant holding a payment key or webhook secret this repository publishes (fixtures/demo.json's
    // whsec_demo…) would let anyone sign its payment events: the start stops, naming the app and column.
    const samples = await app.get(SitesService).withPublishedSampleKeys(RequestContext.background('start', true));
    if (samples.length) throw new StartError(publishedSamplesMessage(samples));
  }
  for (const warning of config.warnings) logger.warn(warning);
  if (applied.length) logger.info({ migrations: applied }, 'Applied migrations');

  const demo = database.embedded && !config.production ? await seedDemoTenantOnce(app) : null;

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

  await app.listen({ port: config.port, host: config.host }).catch((error: NodeJS.ErrnoException) => {
    throw new StartError(`Cannot listen on ${config.host}:${config.port} (${error.code ?? error.message})`);
  });
  // Soon after, not before or at once: the first requests (a load balancer's readiness check) need not wait for
  // them. The launcher's code cache first: the compaction may drop compiled code it would keep.
  setTimeout(() => {
    (process as EventEmitter).emit(STARTED_EVENT);
    compactHeapAfterStart();
    logger.debug('Started'); // after the launcher's code cache (if it writes one) and the compaction
  }, 1500).unref();
  const base = `http://localhost:${config.port}${config.basePath}`;
  const docs = config.docsEnabled ? `${base}/docs` : undefined;
  logger.info(
    {
      url: base,
      database: database.embedded ? 'embedded' : 'postgresql',
      ...(docs ? { docs } : {}),
      ...(demo ? { demo: { appID: demo.appID, domain: demo.domain } } : {}),
    },
    'Listening',
  );
  if (demo) {
    // For the person at the terminal; stdout stays JSON lines.
    process.stderr.write(
      `\nDemo tenant: appID ${demo.appID} (${demo.domain}). Try:\n` +
        `  curl -s -X POST ${base}/getApp -H 'site-id: ${demo.appID}'\n` +
        (docs ? `OpenAPI: ${docs}\n` : '') +
        '\n',
    );
  }
}

/**
 * A start that fails prints one line on stderr and exits 1: the configuration at fault (ConfigError, also a
 * module's own check), an embedded database another process holds, a database that cannot be connected to,
 * an address in use, else `Start failed: <message>` (DEBUG=1 adds the stack).
 */
void main().catch((error: unknown) => {
  const known =
    error instanceof ConfigError ||
    error instanceof DataDirInUseError ||
    error instanceof DatabaseConnectError ||
    error instanceof StartError;
  const message = error instanceof Error ? error.message : String(error);
  console.error(known ? message : `Start failed: ${message.split('\n')[0]}${process.env.DEBUG ? '' : ' (DEBUG=1 prints the stack)'}`);
  if (!known && process.env.DEBUG && error instanceof Error) console.error(error.stack);
  process.exit(1);
});
