import { Injectable } from '@nestjs/common';
import { browserOrigin } from '../config/origin';
import { PAYMENT_SECRET_COLUMNS, Site, SiteChanges, SitesService, siteTextValue } from '../app-context';
import { AuditService } from '../audit';
import { ApiError } from '../common/api-error';
import { RequestContext } from '../common/request-context';
import { isUniqueViolation } from '../database/transaction';

/** The core_sites columns an owner reads and changes through /staff/settings, with what each holds. */
const TEXT_SETTINGS = { name: 200, domain: 253, currency: 3, email_from: 320 } as const;
const BRANDING = { logo: 500, splash_logo: 500, background: 50, colour1: 50, colour2: 50 } as const;
/** Write-only: answered masked (the payment secrets, which a request's tenant does not carry). */
export const SECRET_SETTINGS = PAYMENT_SECRET_COLUMNS;
/** Public (served by /getApp too): answered in full. */
const PUBLIC_KEYS = { payment_test_public_key: 255, payment_live_public_key: 255 } as const;
const SECRET_LENGTH = 255;
const REQUIRED = new Set(['name', 'domain', 'currency']);
/** At most this many entries in cors_origins. */
const CORS_ORIGINS_MAX = 20;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export const SETTING_COLUMNS = [
  ...Object.keys(TEXT_SETTINGS),
  'payment_test_mode',
  'cors_origins',
  ...Object.keys(BRANDING),
  ...SECRET_SETTINGS,
  ...Object.keys(PUBLIC_KEYS),
] as const;

type SecretSetting = (typeof SECRET_SETTINGS)[number];

export interface TenantSettings {
  appID: number;
  name: string;
  domain: string;
  currency: string;
  payment_test_mode: boolean;
  email_from: string | null;
  /** Browser origins besides `https://<domain>` that may read the API's answers (CORS). */
  cors_origins: string[];
  branding: { logo: string | null; splash_logo: string | null; background: string | null; colour1: string | null; colour2: string | null };
  payment_test_public_key: string | null;
  payment_live_public_key: string | null;
  /** `sk_test_…abcd`: the key's prefix and last 4 characters, or null when unset. */
  payment_test_private_key: string | null;
  payment_live_private_key: string | null;
  payment_webhook_secret: string | null;
}

/** A secret as it may be shown: its provider prefix and its last 4 characters (`sk_test_…abcd`), or null when unset. */
export function maskSecret(value: string | null | undefined): string | null {
  if (!value) return null;
  const prefix = /^(?:(?:sk|rk|pk)_(?:test|live)_|whsec_)/.exec(value)?.[0] ?? '';
  return `${prefix}…${value.length - prefix.length > 8 ? value.slice(-4) : ''}`;
}

/**
 * Tenant settings for owners (README "Tenant settings"): the tenant's name, domain, currency, payment test mode,
 * sender address, branding and payment keys, the private keys and webhook secret write-only. Changes are
 * checked as `tenant:update` checks them (app-context's siteTextValue: domain, ISO 4217 currency, email, key
 * formats, production's refusal of published sample keys) and audited (`settings.update`, secrets masked)
 * in the edge's transaction.
 */
@Injectable()
export class SettingsService {
  constructor(
    private readonly sites: SitesService,
    private readonly audit: AuditService,
  ) {}

  async read(ctx: RequestContext): Promise<TenantSettings> {
    const site = await this.withSecrets(ctx);
    if (!site) throw ApiError.notFound('App not found');
    return shown(site);
  }

  /** Changes the settings named in `changes` (all or nothing, the row locked), in the edge's transaction; the settings after and the columns changed. */
  async update(ctx: RequestContext, changes: Record<string, unknown>): Promise<{ settings: TenantSettings; changed: string[] }> {
    const names = Object.keys(changes);
    if (names.length === 0) throw ApiError.field('changes', 'changes must name at least one setting');
    const values: SiteChanges = {};
    for (const name of names) Object.assign(values, { [name]: this.valueOf(ctx, name, changes[name]) });
    if (!(await this.sites.findShown(ctx, ctx.appId, true))) throw ApiError.notFound('App not found');
    const before = (await this.withSecrets(ctx))!; // in the transaction
    if (typeof values.domain === 'string' && values.domain !== before.domain) {
      const other = await this.sites.findByDomain(ctx, values.domain);
      if (other && other.id !== ctx.appId)
        throw ApiError.field('changes.domain', `changes.domain: another app has the domain "${values.domain}"`);
    }
    try {
      await this.sites.update(ctx, ctx.appId, values);
    } catch (error) {
      if (isUniqueViolation(error))
        throw ApiError.field('changes.domain', `changes.domain: another app has the domain "${String(values.domain)}"`);
      throw error;
    }
    const after = (await this.withSecrets(ctx))!;
    const pick = (site: Site) => Object.fromEntries(names.map((name) => [name, site[name as keyof Site]]));
    await this.audit.record(ctx, {
      action: 'settings.update',
      table: 'core_sites',
      recordId: ctx.appId,
      before: pick(before),
      after: pick(after),
    });
    return {
      settings: shown(after),
      changed: names.filter((name) => JSON.stringify(before[name as keyof Site]) !== JSON.stringify(after[name as keyof Site])),
    };
  }

  /** The app's row with its payment secrets (to mask and audit them), or null. */
  private async withSecrets(ctx: RequestContext): Promise<Site | null> {
    const site = await this.sites.findById(ctx, ctx.appId);
    const secrets = site && (await this.sites.secretsOf(ctx, ctx.appId));
    return site && secrets && { ...site, ...secrets };
  }

  /** The column value of one change, or 400 naming `changes.<name>`. */
  private valueOf(ctx: RequestContext, name: string, raw: unknown): unknown {
    const field = `changes.${name}`;
    if (!(SETTING_COLUMNS as readonly string[]).includes(name))
      throw ApiError.field(field, `${field} is not a tenant setting (settings: ${SETTING_COLUMNS.join(', ')})`);
    if (name === 'payment_test_mode') {
      if (typeof raw !== 'boolean') throw ApiError.field(field, `${field} must be true or false`);
      return raw;
    }
    if (name === 'cors_origins') return corsOrigins(field, raw, ctx.production);
    if (raw === null || (typeof raw === 'string' && raw.trim() === '')) {
      if (REQUIRED.has(name)) throw ApiError.field(field, `${field} cannot be empty`);
      return null;
    }
    if (typeof raw !== 'string') throw ApiError.field(field, `${field} must be a string or null`);
    const value = raw.trim();
    const max = lengthOf(name);
    if (value.length > max) throw ApiError.field(field, `${field} must be at most ${max} characters`);
    if (/[\u0000-\u001f\u007f]/.test(value)) throw ApiError.field(field, `${field} must not contain control characters`);
    const checked = siteTextValue(name, value, ctx.production, (SECRET_SETTINGS as readonly string[]).includes(name) ? '…' : raw);
    if ('problem' in checked) throw ApiError.field(field, `${field} ${checked.problem}`);
    return checked.value;
  }
}

/**
 * The stored list of a cors_origins change: each entry an origin as browsers send it (scheme://host[:port]),
 * https, or http on a loopback host outside production (a front end on a developer's machine); duplicates
 * dropped, null or [] for none.
 */
function corsOrigins(field: string, raw: unknown, production: boolean): string[] {
  if (raw === null) return [];
  if (!Array.isArray(raw)) throw ApiError.field(field, `${field} must be an array of origins (https://shop.example.com) or null`);
  if (raw.length > CORS_ORIGINS_MAX) throw ApiError.field(field, `${field} must have at most ${CORS_ORIGINS_MAX} origins`);
  const origins = new Set<string>();
  raw.forEach((entry: unknown, index) => {
    const at = `${field}[${index}]`;
    const origin = typeof entry === 'string' && entry.length <= 300 ? browserOrigin(entry.trim()) : null;
    if (origin === null)
      throw ApiError.field(at, `${at} must be an origin, scheme://host[:port] with no path (got ${JSON.stringify(entry)})`);
    const url = new URL(origin);
    if (url.protocol === 'http:' && (production || !LOOPBACK_HOSTS.has(url.hostname)))
      throw ApiError.field(
        at,
        `${at} must be an https origin${production ? '' : ' (http only for localhost, 127.0.0.1 or [::1])'} (got "${origin}")`,
      );
    origins.add(origin);
  });
  return [...origins];
}

function lengthOf(name: string): number {
  return (
    (TEXT_SETTINGS as Record<string, number>)[name] ??
    (BRANDING as Record<string, number>)[name] ??
    (PUBLIC_KEYS as Record<string, number>)[name] ??
    SECRET_LENGTH
  );
}

function shown(site: Site): TenantSettings {
  const secret = (name: SecretSetting) => maskSecret(site[name]);
  return {
    appID: site.id,
    name: site.name,
    domain: site.domain,
    currency: site.currency,
    payment_test_mode: site.payment_test_mode,
    email_from: site.email_from,
    cors_origins: site.cors_origins ?? [],
    branding: { logo: site.logo, splash_logo: site.splash_logo, background: site.background, colour1: site.colour1, colour2: site.colour2 },
    payment_test_public_key: site.payment_test_public_key,
    payment_live_public_key: site.payment_live_public_key,
    payment_test_private_key: secret('payment_test_private_key'),
    payment_live_private_key: secret('payment_live_private_key'),
    payment_webhook_secret: secret('payment_webhook_secret'),
  };
}
