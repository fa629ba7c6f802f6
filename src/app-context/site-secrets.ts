import type { Site } from './entities/site.entity';

/**
 * The core_sites columns only payments read: the provider's private keys and the webhook signing secret. A
 * request's tenant (RequestContext's `app`, the site cache's rows) never holds them: the payment gateway and
 * the webhook's verification read them by site id (SitesService.secretsOf), and the owner's settings show them masked.
 */
export const PAYMENT_SECRET_COLUMNS = ['payment_test_private_key', 'payment_live_private_key', 'payment_webhook_secret'] as const;

export type PaymentSecretColumn = (typeof PAYMENT_SECRET_COLUMNS)[number];

/** A tenant's payment secrets. */
export type SiteSecrets = Pick<Site, PaymentSecretColumn>;
