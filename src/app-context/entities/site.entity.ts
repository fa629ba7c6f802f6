import { Check, Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { SiteSecretColumn } from '../site-secrets';

/** A row of core_sites: one tenant app, named by the requests of its front ends (site-id header, appKey, domain). */
@Entity('core_sites')
@Check('core_sites_currency_check', `currency ~ '^[a-z]{3}$'`)
@Index('core_sites_domain_uq', { synchronize: false }) // unique on lower(domain): an expression index, kept in the migration
@Index('core_sites_cors_origins_idx', { synchronize: false }) // GIN on cors_origins, kept in the migration
export class Site {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'varchar', length: 253 })
  domain: string;

  @Column({ type: 'varchar', length: 500, nullable: true })
  logo: string | null;

  @Column({ type: 'varchar', length: 500, nullable: true })
  splash_logo: string | null;

  @Column({ type: 'varchar', length: 50, nullable: true })
  background: string | null;

  @Column({ type: 'varchar', length: 50, nullable: true })
  colour1: string | null;

  @Column({ type: 'varchar', length: 50, nullable: true })
  colour2: string | null;

  @Column({ type: 'boolean', default: false })
  disable_email: boolean;

  @Column({ type: 'varchar', length: 320, nullable: true })
  email_from: string | null;

  /** Id of a core_users row copied on every notification; null for none. */
  @Column({ type: 'integer', nullable: true })
  email_cc: number | null;

  @Column({ type: 'integer', nullable: true })
  email_bcc: number | null;

  @Column({ type: 'varchar', length: 255, nullable: true, select: false })
  payment_test_private_key: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true, select: false })
  payment_live_private_key: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true, select: false })
  payment_webhook_secret: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  payment_test_public_key: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  payment_live_public_key: string | null;

  @Column({ type: 'varchar', length: 500, nullable: true })
  idp_app_callback_url: string | null;

  @Column({ type: 'varchar', length: 500, nullable: true })
  oauth_callback_url: string | null;

  @Column({ type: 'varchar', length: 500, nullable: true })
  auth_callback_url: string | null;

  @Column({ type: 'varchar', length: 500, nullable: true })
  idp_app_logout_url: string | null;

  @Column({ type: 'varchar', length: 500, nullable: true })
  oauth_logout_url: string | null;

  @Column({ type: 'varchar', length: 500, nullable: true })
  auth_logout_url: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  vapid_public_key: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true, select: false })
  vapid_private_key: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  vapid_subject: string | null;

  /** Whether /message/notification may take its merge data from a confined SQL query (docs/messaging.md). */
  @Column({ type: 'boolean', default: false })
  notification_sql_enabled: boolean;

  /** The one currency the app charges in (ISO 4217, lower case): checkout refuses any other. */
  @Column({ type: 'varchar', length: 3, default: 'aud' })
  currency: string;

  /**
   * A test app: on a production instance it still pays in test mode (test key, test-mode intents only).
   * Every other app of a production instance pays in live mode only (app-context/payment-mode.ts).
   */
  @Column({ type: 'boolean', default: false })
  payment_test_mode: boolean;

  /** Browser origins besides `https://<domain>` that CORS lets read answers (the owner's setting `cors_origins`). */
  @Column({ type: 'text', array: true, default: () => "'{}'" })
  cors_origins: string[];

  @CreateDateColumn({ type: 'timestamptz' })
  created: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updated: Date;
}

declare module '../../common/request-context' {
  // The request's tenant is a core_sites row without its secrets (site-secrets.ts): read by the guard.
  interface TenantSite extends Omit<Site, SiteSecretColumn> {}
}
