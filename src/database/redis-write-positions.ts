import { Logger } from '@nestjs/common';
import Redis from 'ioredis';

/**
 * Keeps the highest of ARGV[1] and each key's value (WAL positions as 16 hexadecimal digits, whose text order is
 * their numeric order) and gives each key ARGV[2] ms more to live.
 */
const RECORD_SCRIPT = `
for _, key in ipairs(KEYS) do
  local known = redis.call('GET', key)
  if (not known) or known < ARGV[1] then
    redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
  else
    redis.call('PEXPIRE', key, ARGV[2])
  end
end
return 1`;

const COMMAND_TIMEOUT_MS = 250;
const CONNECT_TIMEOUT_MS = 1000;

interface PositionCommands {
  writePositionRecord(...args: (string | number)[]): Promise<number>;
}

/**
 * The clients' write positions across instances (read-your-writes, replica-reads.ts): keys
 * `<REDIS_KEY_PREFIX>ryw:p:<app>:<table>:<user>` and `…ryw:a:<address>`, each the highest WAL position the client
 * wrote at, expiring. A command never waits for a connection nor longer than COMMAND_TIMEOUT_MS: `highest` answers
 * undefined then (the caller sends the read to the primary), `record` gives up (the position is still kept in the
 * instance). Each switch between reachable and not is logged once.
 */
export class RedisWritePositions {
  private readonly logger = new Logger('ReplicaReads');
  private readonly redis: Redis & PositionCommands;
  private reachable = true;
  private lastError = '';
  /** Settles at the first connection, or once the connect timeout passed without one. */
  readonly started: Promise<void>;

  constructor(
    url: string,
    private readonly prefix: string,
  ) {
    this.redis = new Redis(url, {
      enableOfflineQueue: false,
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: CONNECT_TIMEOUT_MS,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    }) as Redis & PositionCommands;
    this.redis.defineCommand('writePositionRecord', { lua: RECORD_SCRIPT });
    this.redis.on('error', (error: Error) => (this.lastError = error.message));
    this.started = new Promise((resolve) => {
      this.redis.once('ready', resolve);
      setTimeout(resolve, CONNECT_TIMEOUT_MS + 100).unref();
    });
  }

  /** Keeps `lsn` (lsnKey) for each of `keys` unless a higher one is kept, for at least `ttlMs`. */
  async record(keys: string[], lsn: string, ttlMs: number): Promise<void> {
    if (this.redis.status !== 'ready') return this.unreachable();
    try {
      const full = keys.map((key) => this.prefix + key);
      await this.redis.writePositionRecord(full.length, ...full, lsn, ttlMs);
      this.reachableAgain();
    } catch (error) {
      this.lastError = (error as Error).message;
      this.unreachable();
    }
  }

  /** The highest position kept under `keys` (lsnKey), null for none, undefined when Redis could not answer. */
  async highest(keys: string[]): Promise<string | null | undefined> {
    if (this.redis.status !== 'ready') return this.unreachable();
    try {
      const values = await this.redis.mget(...keys.map((key) => this.prefix + key));
      this.reachableAgain();
      let highest: string | null = null;
      for (const value of values) if (value !== null && (highest === null || value > highest)) highest = value;
      return highest;
    } catch (error) {
      this.lastError = (error as Error).message;
      return this.unreachable();
    }
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private unreachable(): undefined {
    if (this.reachable) {
      this.reachable = false;
      this.logger.warn(
        { event: 'write_positions_store', store: 'memory', err: this.lastError || undefined },
        "Redis unreachable: clients' write positions cannot be read, so the reads replicas would serve go to the primary until it is back",
      );
    }
    return undefined;
  }

  private reachableAgain(): void {
    if (this.reachable) return;
    this.reachable = true;
    this.logger.log({ event: 'write_positions_store', store: 'redis' }, "Redis reachable again: clients' write positions shared");
  }
}
