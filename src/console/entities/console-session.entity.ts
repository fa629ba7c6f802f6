import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Site } from '../../app-context';

/**
 * A row of core_console_sessions: one signed-in browser of the staff console (README "Staff console"). The
 * `console_refresh` cookie carries the row's id, a random secret and the refresh token the auth module minted;
 * the row keeps only a SHA-256 digest of the secret, replaced at every refresh (the cookie before it no longer
 * matches), and when the session was last refreshed (CONSOLE_IDLE_MINUTES). Sign-out deletes it.
 */
@Entity('core_console_sessions')
@Index('core_console_sessions_last_active_idx', ['last_active'])
export class ConsoleSession {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'core_console_sessions_pkey' })
  id: string;

  @Column({ type: 'integer' })
  app_id: number;

  @ManyToOne(() => Site, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'core_console_sessions_app_id_fkey' })
  site?: Site;

  /** The staff member (core_users id). */
  @Column({ type: 'integer' })
  user_id: number;

  /** SHA-256 of the cookie's current secret. */
  @Column({ type: 'bytea', select: false })
  secret_hash: Buffer;

  @CreateDateColumn({ type: 'timestamptz' })
  created: Date;

  /** The sign-in or the last refresh. */
  @Column({ type: 'timestamptz', default: () => 'now()' })
  last_active: Date;
}
