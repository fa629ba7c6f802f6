/** core_sites columns `tenant:update` sets, each as `--<column with dashes>`; the secrets among them are never printed. */
export const TENANT_COLUMNS: { column: string; help: string }[] = [
  { column: 'name', help: 'display name' },
  { column: 'domain', help: 'the domain that names the app (unique, lower-cased)' },
  { column: 'email_from', help: 'sender of the app\'s mails, `a@b` or `Name <a@b>` ("" clears)' },
  { column: 'disable_email', help: 'true: the app sends no notification mails' },
  { column: 'email_cc', help: 'core_users id copied on every notification ("" clears)' },
  { column: 'email_bcc', help: 'core_users id blind-copied on every notification ("" clears)' },
  { column: 'currency', help: 'the one currency the app charges in, ISO 4217 (e.g. aud, eur)' },
  { column: 'payment_test_mode', help: 'true: a test app, paying in test mode on a production instance' },
  { column: 'payment_test_private_key', help: 'secret, sk_test_… or rk_test_… ("" clears)' },
  { column: 'payment_live_private_key', help: 'secret, sk_live_… or rk_live_… ("" clears)' },
  { column: 'payment_webhook_secret', help: 'secret, whsec_… ("" clears)' },
  { column: 'payment_test_public_key', help: 'pk_test_… ("" clears)' },
  { column: 'payment_live_public_key', help: 'pk_live_… ("" clears)' },
  { column: 'logo', help: 'logo URL or path ("" clears)' },
  { column: 'splash_logo', help: 'splash logo URL or path ("" clears)' },
  { column: 'background', help: 'background colour ("" clears)' },
  { column: 'colour1', help: 'first brand colour ("" clears)' },
  { column: 'colour2', help: 'second brand colour ("" clears)' },
  { column: 'idp_app_callback_url', help: 'SSO: the app\'s callback page ("" clears)' },
  { column: 'oauth_callback_url', help: 'SSO: fallback callback page ("" clears)' },
  { column: 'auth_callback_url', help: 'SSO: second fallback callback page ("" clears)' },
  { column: 'idp_app_logout_url', help: 'SSO: the app\'s signed-out page ("" clears)' },
  { column: 'oauth_logout_url', help: 'SSO: fallback signed-out page ("" clears)' },
  { column: 'auth_logout_url', help: 'SSO: second fallback signed-out page ("" clears)' },
  { column: 'vapid_subject', help: 'web push contact, mailto: or https: URL ("" clears)' },
  { column: 'notification_sql_enabled', help: 'true: /message/notification may merge from SQL' },
];

/** The flag that sets `column`: its name with dashes. */
export const flagOf = (column: string) => column.replace(/_/g, '-');
