import type { Site } from './entities/site.entity';

/** The core_sites columns only payments read: the provider's private keys and the webhook signing secret. */
export const PAYMENT_SECRET_COLUMNS = ['payment_test_private_key', 'payment_live_private_key', 'payment_webhook_secret'] as const;

/**
 * Every secret of a tenant: the payment secrets and the private key that signs its web pushes. A request's tenant
 * (RequestContext's `app`, the site cache's rows) never holds them: the payment gateway, the webhook's verification
 * and web push read them by site id (SitesService.secretsOf), and the owner's settings show the payment ones masked.
 */
export const SITE_SECRET_COLUMNS = [...PAYMENT_SECRET_COLUMNS, 'vapid_private_key'] as const;

export type SiteSecretColumn = (typeof SITE_SECRET_COLUMNS)[number];

/** A tenant's secrets. */
export type SiteSecrets = Pick<Site, SiteSecretColumn>;
