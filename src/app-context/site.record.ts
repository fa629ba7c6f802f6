/** A row of core_sites: one tenant app. Secret columns never leave the service (see PUBLIC_SITE_FIELDS). */
export interface SiteRecord {
  id: number;
  name: string;
  domain: string;
  logo: string | null;
  splash_logo: string | null;
  background: string | null;
  colour1: string | null;
  colour2: string | null;
  disable_email: boolean;
  email_from: string | null;
  email_cc: number | null;
  email_bcc: number | null;
  payment_test_private_key: string | null;
  payment_live_private_key: string | null;
  payment_webhook_secret: string | null;
  payment_test_public_key: string | null;
  payment_live_public_key: string | null;
  idp_app_callback_url: string | null;
  oauth_callback_url: string | null;
  auth_callback_url: string | null;
  idp_app_logout_url: string | null;
  oauth_logout_url: string | null;
  auth_logout_url: string | null;
  vapid_public_key: string | null;
  vapid_private_key: string | null;
  vapid_subject: string | null;
  created: Date;
  updated: Date;
}

/** core_sites columns that hold secrets: never returned, filtered or sorted on. */
export const SITE_SECRET_COLUMNS = ['payment_test_private_key', 'payment_live_private_key', 'payment_webhook_secret', 'vapid_private_key'] as const;
