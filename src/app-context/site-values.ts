import { isEmail } from 'class-validator';
import { isPublishedSample } from './published-secrets';

/*
 * The checks of a core_sites text value that every way of changing a tenant shares (the `tenant:update`
 * command, POST /staff/settings/update). Each problem is phrased to follow the name of the field or flag:
 * `--domain "x" is not a valid domain name`, `changes.currency must be an ISO 4217 currency code …`.
 */

export const SITE_DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** What each payment column must look like: the provider's key prefixes (a live key in a test column is refused). */
export const PAYMENT_KEY_FORMATS: Record<string, { pattern: RegExp; text: string }> = {
  payment_test_private_key: { pattern: /^(sk|rk)_test_\w+$/, text: 'a test secret key, sk_test_… or rk_test_…' },
  payment_live_private_key: { pattern: /^(sk|rk)_live_\w+$/, text: 'a live secret key, sk_live_… or rk_live_…' },
  payment_webhook_secret: { pattern: /^whsec_\w+$/, text: 'a webhook signing secret, whsec_…' },
  payment_test_public_key: { pattern: /^pk_test_\w+$/, text: 'a test publishable key, pk_test_…' },
  payment_live_public_key: { pattern: /^pk_live_\w+$/, text: 'a live publishable key, pk_live_…' },
};

/**
 * The stored value of a non-empty, trimmed text `value` for `column` (domain and currency lower-cased), or the
 * problem with it. Production refuses the payment keys this repository publishes. The value of a secret is
 * never repeated in a problem.
 */
export function siteTextValue(column: string, value: string, production: boolean, text = value): { value: string } | { problem: string } {
  switch (column) {
    case 'domain': {
      const domain = value.toLowerCase();
      return SITE_DOMAIN.test(domain) ? { value: domain } : { problem: `"${text}" is not a valid domain name` };
    }
    case 'currency': {
      const currency = value.toLowerCase();
      return /^[a-z]{3}$/.test(currency) && Intl.supportedValuesOf('currency').includes(currency.toUpperCase())
        ? { value: currency }
        : { problem: `must be an ISO 4217 currency code such as aud, eur or usd (got "${text}")` };
    }
    case 'email_from': {
      const address = /<([^<>]+)>$/.exec(value)?.[1] ?? value;
      return isEmail(address.trim()) ? { value } : { problem: `must be an email address, a@b or Name <a@b> (got "${text}")` };
    }
    case 'vapid_subject':
      return /^(mailto:\S+@\S+|https:\/\/\S+)$/.test(value) ? { value } : { problem: `must be a mailto: or https: URL (got "${text}")` };
    default: {
      const format = PAYMENT_KEY_FORMATS[column];
      if (format && !format.pattern.test(value)) return { problem: `must be ${format.text}` };
      if (format && production && isPublishedSample(value))
        return {
          problem:
            "is a published sample value (README, fixtures/), which a production instance refuses: set the app's own key from the payment provider's dashboard",
        };
      return { value };
    }
  }
}
