import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { getDataSourceToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { closeApp, createApp } from '../../src/app.factory';
import { CommandEdge } from '../../src/cli/command-edge';
import { Fixture, SeedResult } from '../../src/cli/seed.service';
import { AppConfig, loadConfig } from '../../src/config/app-config';
import { databaseUrl, dropDatabase, withAdmin } from './database';
import { ApiContract } from './openapi-contract';
import { TEST_ENV } from './test-env';

export { TEST_ENV } from './test-env';

let databases = 0;

/** A fresh database cloned from the run's migrated template; dropped by `dropDatabase`. */
export async function createTestDatabase(): Promise<{ name: string; url: string }> {
  const run = process.env.TEST_RUN_ID;
  const template = process.env.TEST_TEMPLATE_DB;
  if (!run || !template) throw new Error('test/support/global-setup.ts did not run');
  const name = `t_${run}_${process.pid}_${++databases}`;
  await withAdmin((c) => c.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`));
  return { name, url: databaseUrl(name) };
}

export interface TestResponse {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: any;
}

export class TestApp {
  private contract?: ApiContract;

  constructor(
    readonly app: NestFastifyApplication,
    readonly config: AppConfig,
    readonly database: { name: string; url: string },
    private readonly ownsDatabase: boolean,
  ) {}

  get dataSource(): DataSource {
    return this.app.get<DataSource>(getDataSourceToken());
  }

  get<T>(token: new (...args: never[]) => T): T {
    return this.app.get(token, { strict: false });
  }

  seed(fixture: Fixture): Promise<SeedResult> {
    return this.app.get(CommandEdge).seed(fixture);
  }

  /**
   * One request through Fastify's inject. Its answer is checked against the OpenAPI document of the app
   * (test/support/openapi-contract.ts): a status, header or body the description does not allow fails the test.
   */
  async request(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<TestResponse> {
    const sent = body === undefined ? headers : { 'content-type': 'application/json', ...headers };
    const response = await this.app.inject({
      method: method as 'POST',
      url,
      headers: sent,
      payload: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    this.contract ??= ApiContract.of(this.app, this.config);
    const problems = this.contract.check(
      { method, url, headers: lowerCased(sent) },
      { status: response.statusCode, headers: response.headers, body: response.body },
    );
    if (problems.length > 0) {
      throw new Error(
        `The answer to ${method} ${url} is not the one the OpenAPI document describes:\n  - ${problems.join('\n  - ')}\n  body: ${response.body.slice(0, 800)}`,
      );
    }
    let parsed: unknown = response.body;
    try {
      parsed = JSON.parse(response.body);
    } catch {
      // not JSON: keep the text
    }
    return { status: response.statusCode, headers: response.headers, body: parsed };
  }

  post(url: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse> {
    return this.request('POST', url, body ?? {}, headers);
  }

  async close(): Promise<void> {
    await closeApp(this.app);
    if (this.ownsDatabase) await dropDatabase(this.database.name);
  }
}

/**
 * Boots the whole application on its own cloned database (or on `database` to run a second instance
 * beside another one). `env` overrides the test configuration.
 */
export async function startTestApp(env: Record<string, string> = {}, database?: { name: string; url: string }): Promise<TestApp> {
  const db = database ?? (await createTestDatabase());
  try {
    const config = loadConfig({ ...TEST_ENV, DATABASE_URL: db.url, ...env });
    const { app } = await createApp(config, { url: db.url, directUrl: config.databaseDirectUrl ?? db.url, embedded: false });
    return new TestApp(app, config, db, database === undefined);
  } catch (error) {
    // A start that fails (a configuration a test expects refused) leaves no database behind for the next name.
    if (database === undefined) await dropDatabase(db.name);
    throw error;
  }
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

let sites = 1000;

/** A tenant fixture with a unique id and domain. */
export function siteFixture(overrides: Record<string, unknown> = {}): Fixture['site'] {
  const id = ++sites + (process.pid % 1000) * 100;
  return {
    id,
    name: `Tenant ${id}`,
    domain: `t${id}.example.test`,
    logo: '/img/logo.png',
    splash_logo: '/img/splash.png',
    background: '#fff',
    colour1: '#111',
    colour2: '#222',
    payment_test_public_key: `pk_test_${id}`,
    payment_live_public_key: `pk_live_${id}`,
    payment_test_private_key: `sk_test_${id}`,
    payment_webhook_secret: `whsec_${id}`,
    email_from: `shop${id}@example.test`,
    ...overrides,
  } as Fixture['site'];
}
