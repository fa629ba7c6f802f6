import { PAYMENT_SECRET_COLUMNS } from './site-secrets';

/*
 * Payment keys and webhook secrets that this repository publishes (README, fixtures/, .env.example, the demo
 * tenant): anyone can read them, so a production instance must never trust them. With `whsec_demo` anyone can
 * sign a `payment_intent.succeeded` for an order that never paid (issue 37). Production refuses them when a
 * fixture is seeded (SeedService), when `tenant:update` sets them (TenantService), and at start when a tenant
 * already holds one (sampleKeysOf, used by src/main.ts). Outside production they are the demo's keys.
 */

/** The core_sites columns of the tenant's payment keys: the private keys and webhook secret, and the public keys. */
export const PAYMENT_KEY_COLUMNS = [...PAYMENT_SECRET_COLUMNS, 'payment_test_public_key', 'payment_live_public_key'] as const;

export type PaymentKeyColumn = (typeof PAYMENT_KEY_COLUMNS)[number];

/**
 * The values published in this repository (grep README.md, fixtures/, .env.example, src/cli/demo-tenant.ts for
 * `sk_`, `rk_`, `pk_`, `whsec_`): add any new sample a document or fixture shows.
 */
export const PUBLISHED_SAMPLE_VALUES: ReadonlySet<string> = new Set([
  // fixtures/demo.json, the README's walkthrough (curl -u sk_test_demo:, --webhook-secret whsec_demo)
  'sk_test_demo',
  'whsec_demo',
  'pk_test_demo',
  'pk_live_demo',
  // fixtures/bench.json (before it stopped carrying payment keys)
  'whsec_bench',
]);

const PROVIDER_PREFIX = /^(?:(?:sk|rk|pk)_(?:test|live)_|whsec_)/i;

/**
 * What follows the provider's prefix in a value copied from documentation rather than the provider's
 * dashboard: the README's `sk_test_…`, `whsec_demo`, `sk_live_your_key`, `whsec_xxxxxxxx`, `pk_test_example`.
 * (The provider's own keys are long random strings.)
 */
const PLACEHOLDER_SUFFIX = [/^$/, /^(demo|bench|sample|example|placeholder|dummy|fake)/i, /^change[-_]?me/i, /^your[-_]/i, /^x{4,}$/i];

/** Whether `value` is a published sample or a documentation placeholder of a payment key. */
export function isPublishedSample(value: string | null | undefined): boolean {
  if (typeof value !== 'string') return false;
  const trimmed = value.trim();
  if (trimmed === '') return false; // no key at all: nothing anyone can sign with
  if (PUBLISHED_SAMPLE_VALUES.has(trimmed)) return true;
  if (/…|\.\.\.|[<>]/.test(trimmed)) return true;
  const prefix = PROVIDER_PREFIX.exec(trimmed);
  if (!prefix) return false;
  const suffix = trimmed.slice(prefix[0].length);
  return PLACEHOLDER_SUFFIX.some((pattern) => pattern.test(suffix));
}

/** The payment-key columns of `site` (a fixture's site, a core_sites row) that hold a published sample. */
export function sampleKeysOf(site: Partial<Record<PaymentKeyColumn, unknown>>): PaymentKeyColumn[] {
  return PAYMENT_KEY_COLUMNS.filter((column) => {
    const value = site[column];
    return typeof value === 'string' && isPublishedSample(value);
  });
}

/** `--payment-webhook-secret whsec_…` for the column: what `tenant:update` takes instead. */
export function realKeyFlag(column: PaymentKeyColumn): string {
  const placeholder: Record<PaymentKeyColumn, string> = {
    payment_test_private_key: 'sk_test_…',
    payment_live_private_key: 'sk_live_…',
    payment_webhook_secret: 'whsec_…',
    payment_test_public_key: 'pk_test_…',
    payment_live_public_key: 'pk_live_…',
  };
  return `--${column.replace(/_/g, '-')} ${placeholder[column]}`;
}

/**
 * The start's refusal: one line naming each tenant and column, and what the operator does about it. `found`
 * holds the tenants (id, domain) with the columns that hold a sample.
 */
export function publishedSamplesMessage(found: { id: number; domain: string; columns: PaymentKeyColumn[] }[]): string {
  const shown = found.slice(0, 5);
  const list = shown.map((site) => `app ${site.id} (${site.domain}): ${site.columns.map((c) => `core_sites.${c}`).join(', ')}`).join('; ');
  const more = found.length > shown.length ? `; and ${found.length - shown.length} more apps` : '';
  const first = found[0];
  const fix = `npm run cli -- tenant:update --app ${first.id} ${first.columns.map(realKeyFlag).join(' ')}`;
  return (
    `Refusing to start in production: published sample payment keys (README, fixtures/) in ${list}${more}. ` +
    `Anyone can sign payment events with them. Set each app's own keys from the payment provider's dashboard ` +
    `(${fix}, or "" to clear one), then start again`
  );
}
