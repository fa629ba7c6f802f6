import { Server } from '../lib';

export interface BenchContext {
  /** The service, started on PostgreSQL with the bench fixture (production mode: base path /api/v2). */
  service: Server;
  basePath: string;
  appId: number;
  databaseUrl: string;
  /** The service's environment, for scenarios that start a baseline or a second process. */
  env: Record<string, string>;
}

/** One benchmark scenario: it measures the service and, where it has one, its raw baseline in the same run. */
export interface Scenario {
  name: string;
  run(ctx: BenchContext): Promise<string[]>;
}
