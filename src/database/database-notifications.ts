import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { requestStore } from '../common/logging';

/** What a service subscribed to a channel hears. */
export interface ChannelSubscriber {
  /** A notification on the channel, with its payload ('' when none). */
  notified(payload: string): void;
  /**
   * true once LISTEN is in effect for the channel; false when the connection is lost (notifications sent
   * meanwhile are missed) until it is true again.
   */
  listening?(listening: boolean): void;
}

/** Shown in pg_stat_activity for the listener connection. */
export const LISTENER_APPLICATION_NAME = 'platform-listener';
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 30_000;
const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * PostgreSQL notifications between instances. Listening: the instance's one LISTEN connection, shared by
 * every service that reacts to other instances' writes (SiteCache, the notification sender): a service
 * subscribes to a channel before the application bootstraps, the connection opens at bootstrap when anything
 * subscribed, and reconnects with a growing back-off when lost. Announcing: `notify`, after the writer's
 * commit. Neither on the embedded database, which serves one connection only and one instance: there,
 * subscribers never hear `listening(true)`.
 */
@Injectable()
export class DatabaseNotifications implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(DatabaseNotifications.name);
  private readonly channels = new Map<string, ChannelSubscriber[]>();
  /** The connection being opened or in use; an event of any other (older) client is ignored. */
  private current: Client | null = null;
  private listening = false;
  private bootstrapped = false;
  private stopped = false;
  private retryMs = RETRY_FIRST_MS;
  private retry: NodeJS.Timeout | null = null;
  /** Channels with a NOTIFY in flight, and whether another call came meanwhile. */
  private readonly announcing = new Map<string, { again: boolean; done: Promise<void> }>();

  /** `url` of the database to listen on, null on the embedded database; `dataSource` sends the NOTIFYs. */
  constructor(
    private readonly url: string | null,
    private readonly dataSource: DataSource,
  ) {}

  /** Calls `subscriber` for every notification on `channel` (a plain lower-case identifier). Before bootstrap only. */
  subscribe(channel: string, subscriber: ChannelSubscriber): void {
    if (!CHANNEL.test(channel)) throw new Error(`Not a notification channel name: ${channel}`);
    if (this.bootstrapped) throw new Error(`Subscribe to ${channel} before the application bootstraps`);
    this.channels.set(channel, [...(this.channels.get(channel) ?? []), subscriber]);
  }

  /**
   * Tells every instance listening on `channel` about something this instance has committed. At most one
   * NOTIFY per channel is in flight; the calls made meanwhile are covered by one more, sent once it is done.
   * Sent after the writer's commit, not from its transaction: a transaction that notifies holds a
   * cluster-wide lock through its commit (WAL flush included), so notifying writers would commit one at a
   * time (measured: /message/notification accepted far fewer requests with a NOTIFY in its transaction;
   * docs/performance.md "Figures that explain code choices").
   * A NOTIFY that fails is only logged: listeners poll as well.
   */
  notify(channel: string): void {
    if (!this.url || this.stopped) return;
    const pending = this.announcing.get(channel);
    if (pending) {
      pending.again = true;
      return;
    }
    const state = { again: false, done: Promise.resolve() };
    this.announcing.set(channel, state);
    // Outside the request that asked for it: the announcement is every tenant's (later ones join it), so it must
    // not wait for that request's tenant share of the pool (tenant-pool.ts counts what a request's context checks out).
    state.done = requestStore.exit(() => this.announce(channel, state));
  }

  private async announce(channel: string, state: { again: boolean }): Promise<void> {
    try {
      do {
        state.again = false;
        // Raw SQL: NOTIFY has no TypeORM API; pg_notify takes the channel as a parameter.
        await this.dataSource.query(`SELECT pg_notify($1, '')`, [channel]);
      } while (state.again && !this.stopped);
    } catch (error) {
      this.logger.warn(`Cannot notify ${channel}: ${(error as Error).message}`);
    } finally {
      this.announcing.delete(channel);
    }
  }

  async onApplicationBootstrap(): Promise<void> {
    this.bootstrapped = true;
    if (this.url && this.channels.size > 0) await this.connect();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    if (this.current) await this.lost(this.current);
    await Promise.all([...this.announcing.values()].map((state) => state.done));
  }

  private async connect(): Promise<void> {
    const client = new Client({ connectionString: this.url!, application_name: LISTENER_APPLICATION_NAME });
    this.current = client;
    client.on('notification', (message) => {
      for (const subscriber of this.channels.get(message.channel) ?? []) {
        try {
          subscriber.notified(message.payload ?? '');
        } catch (error) {
          this.logger.error(`Handler of ${message.channel} failed: ${(error as Error).message}`);
        }
      }
    });
    client.on('error', (error) => {
      if (client === this.current && this.listening) this.logger.warn(`Database listener lost, listening again shortly: ${error.message}`);
      void this.lost(client);
    });
    client.on('end', () => void this.lost(client));
    try {
      await client.connect();
      // Raw SQL: LISTEN has no TypeORM API and takes no parameters; channel names are checked identifiers (CHANNEL).
      for (const channel of this.channels.keys()) await client.query(`LISTEN ${channel}`);
    } catch (error) {
      if (client === this.current)
        this.logger.warn(`Cannot listen for ${[...this.channels.keys()].join(', ')}: ${(error as Error).message}`);
      await this.lost(client);
      return;
    }
    if (client !== this.current) return; // lost (or stopped) meanwhile
    this.listening = true;
    this.retryMs = RETRY_FIRST_MS;
    this.tell(true);
  }

  /** The connection is gone (or is being closed): subscribers hear it, and a retry is scheduled unless stopping. */
  private lost(client: Client): Promise<void> {
    if (client !== this.current) return Promise.resolve(); // an older connection's late event, or told already
    this.current = null;
    const ended = client.end().catch(() => undefined);
    if (this.listening) {
      this.listening = false;
      this.tell(false);
    }
    if (!this.stopped) {
      this.retry = setTimeout(() => {
        this.retry = null;
        void this.connect();
      }, this.retryMs);
      this.retry.unref();
      this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
    }
    return ended;
  }

  private tell(listening: boolean): void {
    for (const subscribers of this.channels.values()) for (const subscriber of subscribers) subscriber.listening?.(listening);
  }
}
