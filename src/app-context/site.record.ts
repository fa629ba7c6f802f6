/** A row of core_sites: one tenant app. Its secret columns are registered in src/versioning/secret-columns.ts. */
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
  /** Whether /message/notification may take its merge data from a confined SQL query (docs/messaging.md). */
  notification_sql_enabled: boolean;
  created: Date;
  updated: Date;
}
