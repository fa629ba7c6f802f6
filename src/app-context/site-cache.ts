import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Client } from 'pg';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { Site } from './entities/site.entity';

/** The channel core_sites' trigger notifies with the id of every inserted, updated or deleted row (migration SiteChanges). */
export const SITES_CHANGED_CHANNEL = 'core_sites_changed';
const RETRY_MAX_MS = 30_000;

interface Entry {
  site: Site;
  expires: number;
}

/**
 * core_sites rows in memory, for the tenant resolution that every request does (one database round trip of
 * every request otherwise). Coherent across instances: a trigger on core_sites notifies each change, and
 * every instance's listener connection drops the row at once; SITE_CACHE_MS bounds how long a row may be
 * served even if a notification were missed. The cache is used only while the listener is connected: an
 * instance that lost it (database restart) reads every row from the database until it has listened again.
 * No listener on the embedded database (one connection only), so no cache there.
 */
@Injectable()
export class SiteCache implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(SiteCache.name);
  private readonly byId = new Map<number, Entry>();
  private readonly idByDomain = new Map<string, number>();
  /** Bumped by every change notification: a read that started before one does not store what it read. */
  private generation = 0;
  private listener: Client | null = null;
  private listening = false;
  private stopped = false;
  private retryMs = 1000;
  private retry: NodeJS.Timeout | null = null;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** Whether rows are served from memory now. */
  get active(): boolean {
    return this.listening;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.siteCacheMs > 0 && this.config.databaseUrl) await this.listen();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    this.forget();
    await this.listener?.end().catch(() => undefined);
  }

  /** The site `id` from memory, or `load`ed (and kept when found and unchanged meanwhile). */
  async site(id: number, load: () => Promise<Site | null>): Promise<Site | null> {
    if (!this.listening) return load();
    const entry = this.byId.get(id);
    if (entry && entry.expires > Date.now()) return entry.site;
    return this.keep(await this.loadAt(load));
  }

  /** The site of `domain` (lower-cased) from memory, or `load`ed. */
  async siteOfDomain(domain: string, load: () => Promise<Site | null>): Promise<Site | null> {
    if (!this.listening) return load();
    const id = this.idByDomain.get(domain.toLowerCase());
    const entry = id === undefined ? undefined : this.byId.get(id);
    if (entry && entry.expires > Date.now() && entry.site.domain.toLowerCase() === domain.toLowerCase()) return entry.site;
    return this.keep(await this.loadAt(load));
  }

  private async loadAt(load: () => Promise<Site | null>): Promise<{ site: Site | null; generation: number }> {
    const generation = this.generation;
    return { site: await load(), generation };
  }

  private keep({ site, generation }: { site: Site | null; generation: number }): Site | null {
    if (site && this.listening && generation === this.generation) {
      this.byId.set(site.id, { site, expires: Date.now() + this.config.siteCacheMs });
      this.idByDomain.set(site.domain.toLowerCase(), site.id);
    }
    return site;
  }

  /** A row changed: drop it (and, as the domain may have changed, every domain naming it). */
  private changed(id: number): void {
    this.generation++;
    const entry = this.byId.get(id);
    this.byId.delete(id);
    if (entry) this.idByDomain.delete(entry.site.domain.toLowerCase());
    for (const [domain, siteId] of this.idByDomain) if (siteId === id) this.idByDomain.delete(domain);
  }

  private forget(): void {
    this.listening = false;
    this.generation++;
    this.byId.clear();
    this.idByDomain.clear();
  }

  private async listen(): Promise<void> {
    const client = new Client({ connectionString: this.config.databaseUrl!, application_name: 'platform-site-cache' });
    client.on('notification', (message) => {
      if (message.channel === SITES_CHANGED_CHANNEL) this.changed(Number(message.payload));
    });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${SITES_CHANGED_CHANNEL}`);
    } catch (error) {
      this.logger.warn(`Site cache off: cannot listen for core_sites changes (${(error as Error).message})`);
      this.lost(client);
      return;
    }
    this.listener = client;
    this.listening = true;
    this.retryMs = 1000;
  }

  /** The listener is gone: serve from the database until it listens again. */
  private lost(client: Client): void {
    if (client !== this.listener && this.listener !== null) return; // an older connection's late event
    this.listener = null;
    this.forget();
    client.end().catch(() => undefined);
    if (this.stopped || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.listen();
    }, this.retryMs);
    this.retry.unref();
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
  }
}
