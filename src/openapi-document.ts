import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { loadConfig } from './config/app-config';
import { createOpenApiDocument } from './openapi';

/**
 * Writes the OpenAPI document (development mode: paths without the /api/v2 base path) to the file named by
 * the first argument, or to standard output: `node dist/src/openapi-document.js client/openapi.json`.
 *
 * No server starts and no database is opened: Nest's preview mode builds the module graph without creating
 * any provider, which is all the document needs. The configuration is the defaults (not this shell's
 * environment), so the document is the same on every machine.
 */
async function main(): Promise<void> {
  const config = loadConfig({ NODE_ENV: 'development', LOG_LEVEL: 'silent' });
  const app = await NestFactory.create(AppModule.forRoot(config, { url: '', embedded: false }), new FastifyAdapter(), {
    preview: true,
    logger: false,
    abortOnError: false,
  });
  const document = createOpenApiDocument(app, config);
  await app.close();
  const text = `${JSON.stringify(document, null, 2)}\n`;
  const file = process.argv[2];
  if (file) writeFileSync(file, text);
  else process.stdout.write(text);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
