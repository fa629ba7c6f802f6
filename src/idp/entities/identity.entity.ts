import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { Site } from '../../app-context';

/**
 * A row of core_identities: an IdP account (provider, provider_user_id = the ID token's `sub`) linked to a
 * row of one user table (auth_table, user_id) of one app. The unique key makes the link the only one for
 * that IdP account within (app, table): two first logins at once insert one row, the other finds it.
 * user_id names a row of core_users, core_customers or core_app_users (by auth_table), so it has no FK.
 * No IdP token is ever stored here.
 */
@Entity('core_identities')
@Unique('core_identities_app_id_auth_table_provider_provider_user_id_key', ['app_id', 'auth_table', 'provider', 'provider_user_id'])
export class Identity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'integer' })
  app_id: number;

  @ManyToOne(() => Site, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'core_identities_app_id_fkey' })
  site?: Site;

  @Column({ type: 'varchar', length: 50 })
  auth_table: string;

  /** `idp` (PROVIDER in identities.service.ts): the one configured IdP. */
  @Column({ type: 'varchar', length: 50 })
  provider: string;

  /** The IdP's subject identifier (`sub`, at most 255 ASCII characters by OpenID Connect Core). */
  @Column({ type: 'varchar', length: 255 })
  provider_user_id: string;

  @Column({ type: 'integer' })
  user_id: number;

  /** The email the IdP gave at the first login (for support; logins never match on it again). */
  @Column({ type: 'varchar', length: 320, nullable: true })
  email: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  created: Date;
}
