import { Site } from './entities/site.entity';

/**
 * Which mode of the payment provider an app pays in (docs/security.md "Payments"). On a production
 * instance the app decides, whatever a request says: live mode, or test mode for an app marked
 * `payment_test_mode`. Outside production the request's `production` flag picks the key, as the API documents
 * (default test).
 */
export function paysLive(site: Pick<Site, 'payment_test_mode'>, productionInstance: boolean, requested: boolean | undefined): boolean {
  return productionInstance ? !site.payment_test_mode : (requested ?? false);
}

/** Whether an intent of this mode may complete an order of the app: on a production instance only the app's own mode does. */
export function acceptsPaymentMode(site: Pick<Site, 'payment_test_mode'>, productionInstance: boolean, livemode: boolean): boolean {
  return productionInstance ? livemode === !site.payment_test_mode : true;
}
