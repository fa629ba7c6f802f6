export { User } from './user.entity';
export { Customer } from './customer.entity';
export { AppUser } from './app-user.entity';
export { SmsCode } from './sms-code.entity';
export { Folder } from './folder.entity';

import type { AuthTable } from '../auth-tables';
import { AppUser as AppUserEntity } from './app-user.entity';
import { Customer as CustomerEntity } from './customer.entity';
import { User as UserEntity } from './user.entity';

/** The entity of each account table: services pick the class from the AuthTable, never interpolate the name. */
export const ACCOUNT_ENTITIES = {
  core_users: UserEntity,
  core_customers: CustomerEntity,
  core_app_users: AppUserEntity,
} as const satisfies Record<AuthTable, unknown>;
