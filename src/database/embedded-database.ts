import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AppConfig } from '../config/app-config';

/** Where the service's PostgreSQL is, and how to let go of it at shutdown. */
export interface DatabaseHandle {
  /** DATABASE_URL: the request, system and merge pools (it may be a transaction-mode pooler). */
  url: string;
  /**
   * DATABASE_DIRECT_URL (default DATABASE_URL): what needs a session of its own, i.e. migrations and their
   * advisory lock and the LISTEN connection (README "Running on PostgreSQL and Redis"). Unset: `url`.
   */
  directUrl?: string;
  embedded: boolean;
  /** Resolves once no client is attached (PGlite serves one connection at a time). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * `DATABASE_URL` when set; otherwise an embedded PostgreSQL (PGlite) kept in DATA_DIR/pgdata and served
 * over the wire protocol on a loopback port, so the same `pg`/TypeORM code runs on both. PGlite is a
 * single-connection database: the pool is limited to one connection (see `poolSize`).
 *
 * The embedded database has one writer: PGlite runs inside the process that opened it, so a second process
 * opening the same DATA_DIR would write behind the first one's back (and the first would never see it).
 * The opener takes DATA_DIR/embedded-db.lock (DataDirLock), and a second opener is refused with a message
 * naming the holder (`holder`: `server` for the service, a command's name for the CLI).
 */
export async function openDatabase(config: AppConfig, options: { holder?: string } = {}): Promise<DatabaseHandle> {
  if (config.databaseUrl) {
    const directUrl = config.databaseDirectUrl ?? config.databaseUrl;
    return { url: config.databaseUrl, directUrl, embedded: false, idle: async () => undefined, stop: async () => undefined };
  }

  const lock = DataDirLock.acquire(config.dataDir, options.holder ?? 'server');
  try {
    // Loaded only for the embedded database; require, not import(): the bundle runs without a module loader for import() (src/launcher.ts).
    const { PGlite } = require('@electric-sql/pglite') as typeof import('@electric-sql/pglite');
    const { PGLiteSocketServer } = require('@electric-sql/pglite-socket') as typeof import('@electric-sql/pglite-socket');
    const dataDir = resolve(config.dataDir, 'pgdata');
    mkdirSync(dataDir, { recursive: true });
    // PostgreSQL's default shared_buffers (128 MB) lives in the WebAssembly memory, i.e. in this process:
    // a development database needs far less.
    const db = await PGlite.create({
      dataDir,
      startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${EMBEDDED_SHARED_BUFFERS}`],
    });
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
        try {
          await server.stop();
          await db.close();
        } finally {
          lock.release();
        }
      },
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** Another live process holds the embedded database of DATA_DIR. */
export class DataDirInUseError extends Error {}

interface LockContent {
  pid: number;
  holder: string;
  since: string;
}

/**
 * DATA_DIR/embedded-db.lock: `{ pid, holder, since }` of the process that has the embedded database open.
 * Created only where none exists (a hard link of a fully written draft; O_EXCL where a file system has no
 * hard links); a lock whose pid no longer runs (a crash, a killed process, a container
 * restarted with the same pid) is stale and taken over. Removed by `release` and, should the process end
 * without it, by an exit hook.
 */
export class DataDirLock {
  private released = false;
  private readonly onExit = () => this.release();

  private constructor(readonly file: string) {
    process.once('exit', this.onExit);
  }

  static file(dataDir: string): string {
    return resolve(dataDir, 'embedded-db.lock');
  }

  static acquire(dataDir: string, holder: string): DataDirLock {
    mkdirSync(resolve(dataDir), { recursive: true });
    const file = DataDirLock.file(dataDir);
    // Written whole to a file of its own, then linked into place: link fails when the lock exists, and a
    // reader never sees a lock half written.
    const draft = `${file}.${process.pid}`;
    writeFileSync(draft, JSON.stringify({ pid: process.pid, holder, since: new Date().toISOString() } satisfies LockContent), {
      mode: 0o644,
    });
    try {
      return DataDirLock.take(file, draft, dataDir);
    } finally {
      removeFile(draft);
    }
  }

  private static take(file: string, draft: string, dataDir: string): DataDirLock {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        createFrom(draft, file);
        return new DataDirLock(file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const text = readText(file);
      if (text === null) continue; // released meanwhile: try again
      const current = parseLock(text);
      if (current && current.pid !== process.pid && isRunning(current.pid)) {
        const who = current.holder === 'server' ? 'the running server' : `the running command "${current.holder}"`;
        throw new DataDirInUseError(
          `The embedded database in DATA_DIR ${resolve(dataDir)} is in use by ${who} (pid ${current.pid}); it has one writer. ` +
            `Stop it first, or run both against PostgreSQL (DATABASE_URL). If no such process runs, delete ${file}.`,
        );
      }
      // Stale (its process is gone, or unreadable): take it over, unless another process did so meanwhile.
      if (readText(file) === text) removeFile(file);
    }
    throw new DataDirInUseError(`Could not take ${file}: other processes are opening the embedded database at the same time`);
  }

  /** Removes the lock file if it is still this process's. Idempotent. */
  release(): void {
    if (this.released) return;
    this.released = true;
    process.removeListener('exit', this.onExit);
    const current = parseLock(readText(this.file) ?? '');
    if (current?.pid === process.pid) removeFile(this.file);
  }
}

/** Creates `file` with the content of `draft`; EEXIST when `file` exists. */
function createFrom(draft: string, file: string): void {
  try {
    linkSync(draft, file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOENT') throw error;
    writeFileSync(file, readFileSync(draft), { flag: 'wx', mode: 0o644 }); // no hard links here (EPERM, ENOTSUP…)
  }
}

function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

function removeFile(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // gone already
  }
}

function parseLock(text: string): LockContent | null {
  try {
    const parsed = JSON.parse(text) as Partial<LockContent>;
    return Number.isInteger(parsed.pid) && (parsed.pid as number) > 0
      ? { pid: parsed.pid as number, holder: String(parsed.holder ?? 'server'), since: String(parsed.since ?? '') }
      : null;
  } catch {
    return null;
  }
}

/** Whether a process with this pid exists (signal 0 checks without signalling; EPERM: it exists, under another user). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const EMBEDDED_SHARED_BUFFERS = '16MB';

export function poolSize(handle: { embedded: boolean }, config: AppConfig): number {
  return handle.embedded ? 1 : config.database.poolSize;
}

export function outboxDir(config: AppConfig, kind: 'outbox' | 'sms'): string {
  const dir = resolve(join(config.dataDir, kind));
  mkdirSync(dir, { recursive: true });
  return dir;
}
