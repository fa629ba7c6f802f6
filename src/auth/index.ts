// The auth module's public surface: other modules import from '../auth', never from its files.
export { AuthModule } from './auth.module';
export { AuthCoreModule } from './auth-core.module';
// The guards live below every domain module (common/access-guards.ts); auth implements their AccessPolicy.
export {
  BearerGuard,
  OptionalBearerGuard,
  CustomerGuard,
  RequirePermission,
  mayDo,
  ADMIN_TABLE,
  CUSTOMER_TABLE,
} from '../common/access-guards';
export { AUTH_TABLES, isAuthTable } from './auth-tables';
export type { AuthTable } from './auth-tables';
export { AccountsService } from './accounts/accounts.service';
export { StaffService } from './staff/staff.service';
export type { StaffMember } from './staff/staff.service';
export { CustomerDirectoryService } from './customers/customer-directory.service';
export type { StaffCustomer } from './customers/customer-directory.service';
export { StaffCustomerDto } from './customers/staff-customers.dto';
export type { Account, ExternalProfile, NewAccount } from './accounts/accounts.service';
export { PasswordHasherService } from './password/password-hasher.service';
export { passwordRequirements } from './password/password-policy';
export type { PasswordRequirements } from './password/password-policy';
export { PasswordAuthService } from './password/password-auth.service';
export { SmsTransportService } from './sms/sms-transport.service';
export type { SmsMessage } from './sms/sms-transport.service';
export { SessionTokensService } from './session/session-tokens.service';
export type { TokenPair, VerifiedToken } from './session/session-tokens.service';
