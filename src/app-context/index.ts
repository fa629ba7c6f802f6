export { AppContextModule } from './app-context.module';
export { Site } from './entities/site.entity';
export { NewSite, SiteChanges, SitesService, UnknownColumnError } from './sites.service';
export { acceptsPaymentMode, paysLive } from './payment-mode';
export { isPublishedSample, publishedSamplesMessage, sampleKeysOf } from './published-secrets';
export { PAYMENT_KEY_FORMATS, SITE_DOMAIN, siteTextValue } from './site-values';
export { PAYMENT_SECRET_COLUMNS, SITE_SECRET_COLUMNS } from './site-secrets';
export type { SiteSecretColumn, SiteSecrets } from './site-secrets';
