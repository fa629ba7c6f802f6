import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { DatabaseNotifications } from '../database/database-notifications';
import { ReplicaReads } from '../database/replica-reads';
import type { TenantSite } from '../common/request-context';
import { SiteSecrets } from './site-secrets';

/** The channel core_sites' trigger notifies with the id of every inserted, updated or deleted row (migration SiteChanges). */
export const SITES_CHANGED_CHANNEL = 'core_sites_changed';

/** How many origins' answers `originListed` keeps. */
const ORIGINS_KEPT = 10_000;

interface Entry<T> {
  value: T;
  expires: number;
}

/**
 * core_sites rows in memory, for the tenant resolution that every request does (one database round trip of
 * every request otherwise): each tenant as requests see it, without its secrets, and apart from it the
 * secrets of the tenants that paid or pushed lately (what the payment gateway and web push read). Coherent across
 * instances: a trigger on core_sites notifies each change, and every instance drops the row and its secrets at
 * once (through its DatabaseNotifications listener); SITE_CACHE_MS bounds how long a row may be served even if a
 * notification were missed. The cache is used only while the listener is
 * connected: an instance that lost it (database restart) reads every row from the database until it has
 * listened again. No listener on the embedded database (one connection only), so no cache there.
 */
@Injectable()
export class SiteCache implements OnModuleInit, OnModuleDestroy {
  private readonly byId = new Map<number, Entry<TenantSite>>();
  /** Payment secrets by site id: dropped with the site's row. */
  private readonly secretsById = new Map<number, Entry<SiteSecrets>>();
  private readonly idByDomain = new Map<string, number>();
  /** Whether any app lists an origin in cors_origins, by origin; emptied by every change (any row may list it). */
  private readonly listedOrigins = new Map<string, { listed: boolean; expires: number }>();
  /** Bumped by every change notification: a read that started before one does not store what it read. */
  private generation = 0;
  private listening = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly notifications: DatabaseNotifications,
    private readonly replicas: ReplicaReads,
  ) {}

  /** Whether rows are served from memory now. */
  get active(): boolean {
    return this.listening;
  }

  /**
   * Listens for core_sites changes while the cache is on, and with read replicas in any case: each change fences the
   * tenant lookups (ReplicaReads.fence), so the next ones come from the primary until the replicas have replayed it
   * (a row dropped here must not be read back from a replica that has not seen its change yet).
   */
  onModuleInit(): void {
    const caching = this.config.siteCacheMs > 0;
    if (!caching && !this.replicas.enabled) return;
    this.notifications.subscribe(SITES_CHANGED_CHANNEL, {
      notified: (payload) => {
        this.replicas.fence('site');
        this.changed(Number(payload));
      },
      listening: (listening) => {
        if (listening && caching) this.listening = true;
        else this.forget(); // changes are not heard meanwhile: serve from the database until listening again
      },
    });
  }

  onModuleDestroy(): void {
    this.forget();
  }

  /** The site `id` from memory, or `load`ed (and kept when found and unchanged meanwhile). */
  async site(id: number, load: () => Promise<TenantSite | null>): Promise<TenantSite | null> {
    if (!this.listening) return load();
    const entry = this.byId.get(id);
    if (entry && entry.expires > Date.now()) return entry.value;
    return this.keep(await this.loadAt(load));
  }

  /** The secrets of site `id` from memory, or `load`ed (and kept when found and unchanged meanwhile). */
  async secrets(id: number, load: () => Promise<SiteSecrets | null>): Promise<SiteSecrets | null> {
    if (!this.listening) return load();
    const entry = this.secretsById.get(id);
    if (entry && entry.expires > Date.now()) return entry.value;
    const { value, generation } = await this.loadAt(load);
    if (value && this.listening && generation === this.generation) this.secretsById.set(id, this.entry(value));
    return value;
  }

  /** The secrets of site `id` from memory, when they are there; else undefined. */
  cachedSecrets(id: number): SiteSecrets | undefined {
    if (!this.listening) return undefined;
    const entry = this.secretsById.get(id);
    return entry && entry.expires > Date.now() ? entry.value : undefined;
  }

  /** The site `id` from memory, when it is there (what `site` answers without loading); else undefined. */
  cached(id: number): TenantSite | undefined {
    if (!this.listening) return undefined;
    const entry = this.byId.get(id);
    return entry && entry.expires > Date.now() ? entry.value : undefined;
  }

  /** The site of `domain` (lower-cased) from memory, or `load`ed. */
  async siteOfDomain(domain: string, load: () => Promise<TenantSite | null>): Promise<TenantSite | null> {
    if (!this.listening) return load();
    const id = this.idByDomain.get(domain.toLowerCase());
    const entry = id === undefined ? undefined : this.byId.get(id);
    if (entry && entry.expires > Date.now() && entry.value.domain.toLowerCase() === domain.toLowerCase()) return entry.value;
    return this.keep(await this.loadAt(load));
  }

  /** Whether any app lists `origin` in its cors_origins, from memory or `load`ed; at most ORIGINS_KEPT origins are kept. */
  async originListed(origin: string, load: () => Promise<boolean>): Promise<boolean> {
    if (!this.listening) return load();
    const entry = this.listedOrigins.get(origin);
    if (entry && entry.expires > Date.now()) return entry.listed;
    const generation = this.generation;
    const listed = await load();
    if (this.listening && generation === this.generation) {
      // Any origin can be sent: a full map is emptied rather than grown, so strangers cannot fill the memory.
      if (this.listedOrigins.size >= ORIGINS_KEPT) this.listedOrigins.clear();
      this.listedOrigins.set(origin, { listed, expires: Date.now() + this.config.siteCacheMs });
    }
    return listed;
  }

  private async loadAt<T>(load: () => Promise<T | null>): Promise<{ value: T | null; generation: number }> {
    const generation = this.generation;
    return { value: await load(), generation };
  }

  private keep({ value: site, generation }: { value: TenantSite | null; generation: number }): TenantSite | null {
    if (site && this.listening && generation === this.generation) {
      this.byId.set(site.id, this.entry(site));
      this.idByDomain.set(site.domain.toLowerCase(), site.id);
    }
    return site;
  }

  private entry<T>(value: T): Entry<T> {
    return { value, expires: Date.now() + this.config.siteCacheMs };
  }

  /** A row changed: drop it (and, as the domain may have changed, every domain naming it). */
  private changed(id: number): void {
    this.generation++;
    const entry = this.byId.get(id);
    this.byId.delete(id);
    this.secretsById.delete(id);
    if (entry) this.idByDomain.delete(entry.value.domain.toLowerCase());
    for (const [domain, siteId] of this.idByDomain) if (siteId === id) this.idByDomain.delete(domain);
    this.listedOrigins.clear();
  }

  private forget(): void {
    this.listening = false;
    this.generation++;
    this.byId.clear();
    this.secretsById.clear();
    this.idByDomain.clear();
    this.listedOrigins.clear();
  }
}
