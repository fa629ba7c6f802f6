import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { adminUrl } from './database';
import { eventually } from './wait';

/**
 * A PgBouncer (Debian's, 1.18 on the development machine and in CI: `.ci/run` installs it) in transaction
 * mode in front of the test PostgreSQL, in a temporary directory, as production runs behind one. PgBouncer
 * refuses to run as root: started as the `postgres` user when the tests run as root. Every database name is
 * passed through to the server (`* =`), with trust authentication for the users of its auth file.
 */
export class PgBouncer {
  private constructor(
    readonly port: number,
    private readonly dir: string,
    private readonly pid: number,
  ) {}

  /** `url` (a URL of the test PostgreSQL) through this PgBouncer. */
  url(url: string): string {
    const through = new URL(url);
    through.hostname = '127.0.0.1';
    through.port = String(this.port);
    return through.toString();
  }

  /** A client of PgBouncer's own admin console (`SHOW POOLS`, `SHOW SERVERS`), connected. */
  async admin(): Promise<Client> {
    const address = new URL(this.url(adminUrl()));
    address.pathname = '/pgbouncer';
    const client = new Client({ connectionString: address.toString() });
    await client.connect();
    return client;
  }

  /** PgBouncer's log so far (for a failing test's message). */
  log(): string {
    try {
      return readFileSync(join(this.dir, 'pgbouncer.log'), 'utf8');
    } catch {
      return '';
    }
  }

  /**
   * Starts one with `poolSize` server connections per database and user; ready when it returns. `server`: a URL of
   * the PostgreSQL it pools (default the test PostgreSQL; the bench passes its own, bench/scenarios/tenants.ts).
   */
  static async start(options: { poolSize?: number; server?: string } = {}): Promise<PgBouncer> {
    const server = new URL(options.server ?? adminUrl());
    const user = decodeURIComponent(server.username || 'postgres');
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'pgbouncer-'));
    const ini = join(dir, 'pgbouncer.ini');
    writeFileSync(join(dir, 'userlist.txt'), `"${user}" ""\n`);
    writeFileSync(
      ini,
      [
        '[databases]',
        `* = host=${server.hostname} port=${server.port || 5432}`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${port}`,
        'unix_socket_dir =',
        'auth_type = trust',
        `auth_file = ${join(dir, 'userlist.txt')}`,
        `admin_users = ${user}`,
        'pool_mode = transaction',
        `default_pool_size = ${options.poolSize ?? 20}`,
        'max_client_conn = 1000',
        'ignore_startup_parameters = extra_float_digits',
        `logfile = ${join(dir, 'pgbouncer.log')}`,
        `pidfile = ${join(dir, 'pgbouncer.pid')}`,
        '',
      ].join('\n'),
    );
    const asRoot = process.getuid?.() === 0;
    if (asRoot) {
      const { uid, gid } = postgresUser();
      for (const file of [dir, ini, join(dir, 'userlist.txt')]) chownSync(file, uid, gid);
    }
    execFileSync(asRoot ? 'runuser' : 'pgbouncer', asRoot ? ['-u', 'postgres', '--', 'pgbouncer', '-d', ini] : ['-d', ini], {
      stdio: 'pipe',
    });
    const pid = await eventually(() => Number(readFileSync(join(dir, 'pgbouncer.pid'), 'utf8').trim()));
    const bouncer = new PgBouncer(port, dir, pid);
    await eventually(async () => {
      const client = new Client({ connectionString: bouncer.url(adminUrl()) });
      await client.connect();
      await client.end();
      return true;
    });
    return bouncer;
  }

  /** Stops it (SIGINT: at once, closing every connection) and removes its directory. */
  async stop(): Promise<void> {
    try {
      process.kill(this.pid, 'SIGINT');
    } catch {
      // already gone
    }
    await eventually(() => {
      try {
        process.kill(this.pid, 0);
      } catch {
        return true;
      }
      throw new Error(`PgBouncer ${this.pid} still runs`);
    }).catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function postgresUser(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('No postgres user to run PgBouncer as (it refuses to run as root)');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
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
