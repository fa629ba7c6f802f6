import { Entity, Index, JoinColumn, ManyToOne } from 'typeorm';
import { Site } from '../../app-context';
import { ProfileAccount } from './profile-account.entity';

/** A row of core_app_users: an app user, the alternative account table of the /user/app routes (docs/auth.md "Accounts"). */
@Entity('core_app_users')
@Index('core_app_users_email_uq', { synchronize: false }) // unique on (app_id, lower(email)) where email is set: an expression index, kept in the migration
export class AppUser extends ProfileAccount {
  @ManyToOne(() => Site, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'core_app_users_app_id_fkey' })
  declare site?: Site;
}
