import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AppConfig } from '../config/app-config';

/** Where the service's PostgreSQL is, and how to let go of it at shutdown. */
export interface DatabaseHandle {
  url: string;
  embedded: boolean;
  /** Resolves once no client is attached (PGlite serves one connection at a time). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * `DATABASE_URL` when set; otherwise an embedded PostgreSQL (PGlite) kept in DATA_DIR/pgdata and served
 * over the wire protocol on a loopback port, so the same `pg`/TypeORM code runs on both. PGlite is a
 * single-connection database: the pool is limited to one connection (see `poolSize`).
 */
export async function openDatabase(config: AppConfig): Promise<DatabaseHandle> {
  if (config.databaseUrl) return { url: config.databaseUrl, embedded: false, idle: async () => undefined, stop: async () => undefined };

  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const dataDir = resolve(config.dataDir, 'pgdata');
  mkdirSync(dataDir, { recursive: true });
  // PostgreSQL's default shared_buffers (128 MB) lives in the WebAssembly memory, i.e. in this process:
  // a development database needs far less.
  const db = await PGlite.create({ dataDir, startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${EMBEDDED_SHARED_BUFFERS}`] });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0 });
  await server.start();
  const address = server.getServerConn();
  return {
    url: `postgresql://postgres@${address}/postgres`,
    embedded: true,
    async idle() {
      for (let i = 0; i < 100 && server.getStats().activeConnections > 0; i++) await new Promise((r) => setTimeout(r, 20));
    },
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}

const EMBEDDED_SHARED_BUFFERS = '16MB';

export function poolSize(handle: { embedded: boolean }): number {
  return handle.embedded ? 1 : 10;
}

export function outboxDir(config: AppConfig, kind: 'outbox' | 'sms'): string {
  const dir = resolve(join(config.dataDir, kind));
  mkdirSync(dir, { recursive: true });
  return dir;
}
