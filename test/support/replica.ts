import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { eventually } from './wait';

/** PostgreSQL's server programs (Debian's layout): PG_BIN, else 15's, else the newest installed. */
const BIN = process.env.PG_BIN ?? serverPrograms();

function serverPrograms(): string {
  const root = '/usr/lib/postgresql';
  if (existsSync(join(root, '15', 'bin', 'initdb'))) return join(root, '15', 'bin');
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v)) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  return newest ? join(root, newest, 'bin') : join(root, '15', 'bin');
}

/** Settings that make a throwaway server start fast and small; durability does not matter to a test. */
const FAST = [
  "listen_addresses = '127.0.0.1'",
  "unix_socket_directories = ''",
  'shared_buffers = 16MB',
  'fsync = off',
  'full_page_writes = off',
  'max_connections = 60',
  'wal_level = replica',
  'max_wal_senders = 4',
  'max_replication_slots = 4',
  'hot_standby = on',
  // The replica answers reads while it replays: no query of the tests is cancelled by a replayed change.
  'max_standby_streaming_delay = -1',
  'wal_receiver_status_interval = 1s',
  'logging_collector = off',
];

/** One server of the pair: its port, data directory and a URL of one of its databases. */
export class PgServer {
  constructor(
    readonly name: string,
    readonly port: number,
    readonly dataDir: string,
  ) {}

  url(database = 'postgres'): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /** Runs one statement on `database` on a connection of its own. */
  async query<T = Record<string, unknown>>(sql: string, params: unknown[] = [], database = 'postgres'): Promise<T[]> {
    const client = new Client({ connectionString: this.url(database) });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return (await client.query(sql, params)).rows as T[];
    } finally {
      await client.end();
    }
  }

  /** Starts it (`pg_ctl start -w`). */
  start(): void {
    pgCtl(['start', '-w', '-t', '30', '-D', this.dataDir, '-l', join(this.dataDir, 'server.log')]);
  }

  /** Stops it at once (`pg_ctl stop -m fast`); a server already stopped is fine. */
  stop(): void {
    try {
      pgCtl(['stop', '-w', '-t', '30', '-m', 'fast', '-D', this.dataDir]);
    } catch {
      // not running
    }
  }

  /** Changes a setting of postgresql.auto.conf and reloads (a setting of context sighup takes effect at once). */
  async set(name: string, value: string): Promise<void> {
    await this.query(`ALTER SYSTEM SET ${name} = '${value.replace(/'/g, "''")}'`);
    await this.query('SELECT pg_reload_conf()');
  }

  log(): string {
    try {
      return readFileSync(join(this.dataDir, 'server.log'), 'utf8');
    } catch {
      return '';
    }
  }
}

/**
 * A PostgreSQL 15 primary and a streaming replica of it, each in a temporary directory on a free port, for the read
 * replica tests (issue 40, part 3). The primary is made with initdb (trust authentication, replication allowed from
 * 127.0.0.1); the replica with `pg_basebackup -R -X stream` from it, over a physical replication slot, and
 * `recovery_min_apply_delay` (default 300 ms) so that it lags the primary for real. As the `postgres` user when the
 * tests run as root (PostgreSQL refuses to run as root). `stop()` stops both and removes their directories.
 */
export class ReplicaPair {
  private constructor(
    readonly primary: PgServer,
    readonly replica: PgServer,
    private readonly root: string,
  ) {}

  static async start(options: { applyDelayMs?: number } = {}): Promise<ReplicaPair> {
    const root = mkdtempSync(join(tmpdir(), 'pg-replica-'));
    if (asRoot()) chown(root);
    const [primaryPort, replicaPort] = [await freePort(), await freePort()];
    const primary = new PgServer('primary', primaryPort, join(root, 'primary'));
    const replica = new PgServer('replica', replicaPort, join(root, 'replica'));
    const pair = new ReplicaPair(primary, replica, root);
    try {
      run('initdb', ['-D', primary.dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
      appendConf(primary.dataDir, [...FAST, `port = ${primaryPort}`]);
      writeFileSync(
        join(primary.dataDir, 'pg_hba.conf'),
        ['host all all 127.0.0.1/32 trust', 'host replication all 127.0.0.1/32 trust', ''].join('\n'),
      );
      primary.start();
      await primary.query("SELECT pg_create_physical_replication_slot('replica1')");
      run('pg_basebackup', [
        '-h',
        '127.0.0.1',
        '-p',
        String(primaryPort),
        '-U',
        'postgres',
        '-D',
        replica.dataDir,
        '-R',
        '-X',
        'stream',
        '-S',
        'replica1',
        '--no-sync',
        '-c',
        'fast',
      ]);
      // postgresql.conf came with the backup (the primary's port): the replica's own port and delay are appended.
      appendConf(replica.dataDir, [`port = ${replicaPort}`, `recovery_min_apply_delay = '${options.applyDelayMs ?? 300}ms'`]);
      replica.start();
      await eventually(async () => {
        const [row] = await replica.query<{ recovery: boolean }>('SELECT pg_is_in_recovery() AS recovery');
        if (!row.recovery) throw new Error('the replica is not in recovery');
        return true;
      }, 15_000);
      return pair;
    } catch (error) {
      await pair.stop();
      throw error;
    }
  }

  /**
   * Creates `name` on the primary and waits until the replica has it (the CREATE DATABASE replayed), so that a
   * replica pool can connect to it at once.
   */
  async createDatabase(name: string): Promise<void> {
    await this.primary.query(`CREATE DATABASE "${name}"`);
    await this.caughtUp();
    await eventually(async () => (await this.replica.query('SELECT 1', [], name)).length === 1, 15_000);
  }

  /** Waits until the replica has replayed everything the primary has written so far. */
  async caughtUp(ms = 15_000): Promise<void> {
    const [{ lsn }] = await this.primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
    await eventually(async () => {
      const [row] = await this.replica.query<{ behind: boolean }>('SELECT pg_last_wal_replay_lsn() < $1::pg_lsn AS behind', [lsn]);
      if (row.behind) throw new Error(`the replica has not replayed ${lsn} yet`);
      return true;
    }, ms);
  }

  async stop(): Promise<void> {
    this.replica.stop();
    this.primary.stop();
    rmSync(this.root, { recursive: true, force: true });
  }
}

function asRoot(): boolean {
  return process.getuid?.() === 0;
}

/** Runs one of PostgreSQL's programs, as the postgres user when we are root. */
function run(program: string, args: string[]): string {
  const path = join(BIN, program);
  const [command, argv] = asRoot() ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, args];
  try {
    return execFileSync(command, argv, { stdio: 'pipe', encoding: 'utf8' });
  } catch (error) {
    const failed = error as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${program} failed: ${failed.stderr || failed.stdout || failed.message}`, { cause: error });
  }
}

function pgCtl(args: string[]): void {
  run('pg_ctl', args);
}

function appendConf(dataDir: string, lines: string[]): void {
  const file = join(dataDir, 'postgresql.conf');
  writeFileSync(file, `${readFileSync(file, 'utf8')}\n${lines.join('\n')}\n`);
}

function chown(path: string): void {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('No postgres user to run PostgreSQL as (it refuses to run as root)');
  const [, , uid, gid] = line.split(':');
  chownSync(path, Number(uid), Number(gid));
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
