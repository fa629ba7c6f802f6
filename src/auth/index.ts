// The auth module's public surface: other modules import from '../auth', never from its files.
export { AuthModule } from './auth.module';
export { AuthCoreModule } from './auth-core.module';
export { BearerGuard, OptionalBearerGuard, CustomerGuard, AdminGuard, isAppAdmin, ADMIN_TABLE, CUSTOMER_TABLE } from './auth.guards';
export { AUTH_TABLES, isAuthTable } from './auth-tables';
export type { AuthTable } from './auth-tables';
export { AccountsService } from './accounts.service';
export type { Account, ExternalProfile, NewAccount, PushSubscriptionColumns } from './accounts.service';
export { PasswordHasher } from './password-hasher.service';
export { passwordRequirements } from './password-policy';
export type { PasswordRequirements } from './password-policy';
export { PasswordAuthService } from './password-auth.service';
export { SmsTransport } from './sms-transport.service';
export type { SmsMessage } from './sms-transport.service';
export { SessionTokens } from './session-tokens.service';
export type { TokenPair, VerifiedToken } from './session-tokens.service';
