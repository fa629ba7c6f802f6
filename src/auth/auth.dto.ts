import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsIn, IsNotEmpty, IsOptional, IsString, Matches } from 'class-validator';
import { SuccessEnvelope } from '../common/api-responses';
import { EmailField, IdField, PasswordField, TextField } from '../common/dto-fields';
import { AUTH_TABLES } from './auth-tables';
import { PASSWORD_MIN_LENGTH } from './password/password-policy';

/*
 * class-validator runs a property's decorators bottom-up and the pipe stops at the first failure
 * (stopAtFirstError): the presence check is the last line, then the type, then the finer rules, so a
 * missing field answers `<field> is required` and a wrong type `<field> must be a string`.
 */

const APP_ID_DOC = 'App id; the site-id header is preferred. Read from the body only outside production.';
/** Optional `authTable`: one of the three user tables (default core_users). */
const AuthTableField = () =>
  applyDecorators(
    ApiPropertyOptional({ enum: AUTH_TABLES, default: 'core_users' }),
    IsOptional(),
    IsIn(AUTH_TABLES, { message: `authTable must be one of ${AUTH_TABLES.join(', ')}` }),
  );

export class LoginRequest {
  @EmailField('email', { required: true, doc: { example: 'admin@example.test' } })
  email: string;

  @PasswordField('password', { required: true, minLength: PASSWORD_MIN_LENGTH, doc: { minLength: PASSWORD_MIN_LENGTH } })
  password: string;

  @IdField('appID', { doc: { description: APP_ID_DOC } })
  appID?: number;

  @AuthTableField()
  authTable?: string;
}

export class SignUpRequest {
  @EmailField('email', { required: true, doc: { example: 'new@example.test' } })
  email: string;

  @PasswordField('password', {
    required: true,
    doc: { description: 'At least 8 characters with an upper-case letter, a lower-case letter, a digit and one of @$!%*?&' },
  })
  password: string;

  @TextField('firstname', 50)
  firstname?: string;

  @TextField('lastname', 50)
  lastname?: string;

  @IdField('appID', { doc: { description: APP_ID_DOC } })
  appID?: number;

  @AuthTableField()
  authTable?: string;
}

/** The token pair /auth/login answered (OpenAPI documentation only: refresh() checks it and answers Invalid token format). */
export class RefreshTokenPayload {
  @ApiProperty({ description: 'The access token of the pair (it may be expired)' })
  access_token: string;

  @ApiProperty({ description: 'The refresh token of the pair' })
  refresh_token: string;
}

export class RefreshTokenRequest {
  @ApiProperty({ type: RefreshTokenPayload, description: 'The tokens of the pair to renew' })
  @Allow()
  payload?: unknown;
}

export class SignOutRequest {
  @ApiPropertyOptional({ type: 'string', description: 'The refresh token the client discards (not checked: sign-out always succeeds)' })
  @Allow()
  refreshToken?: unknown;
}

export class RequestPassRequest {
  @EmailField()
  email: string;

  @IdField('appID', { required: true })
  appID: number;

  @TextField('url', 2000, { doc: { description: "Reset page URL on the app's domain; default https://<app domain>/reset-password" } })
  url?: string;

  @AuthTableField()
  authTable?: string;
}

export class ResetPassRequest {
  @PasswordField('password')
  password: string;

  @PasswordField('confirmPassword')
  confirmPassword: string;

  @TextField('reset_password_token', 2000, { required: true })
  reset_password_token: string;

  @AuthTableField()
  authTable?: string;
}

export class UserTokenRequest {
  @TextField('userId', 2000, {
    required: true,
    doc: { description: 'The encrypted userId token issued by /auth/invite-link (docs/auth.md)' },
  })
  userId: string;
}

export class VerifySmsCodeRequest extends UserTokenRequest {
  @ApiProperty({ example: '123456' })
  @Matches(/^\d{6}$/, { message: 'code must be 6 digits' })
  @IsString({ message: 'code must be a string of 6 digits' })
  @IsNotEmpty({ message: 'code is required' })
  code: string;
}

export class InviteLinkRequest {
  @IdField('user', { required: true, doc: { description: 'core_users id of the invited user' } })
  user: number;

  @IdField('folder_id', { required: true, doc: { description: 'core_folders id' } })
  folder_id: number;
}

export class FolderLimitsRequest {
  @IdField('appID', { required: true })
  appID: number;

  @ApiProperty({ example: 'core_folders' })
  @IsIn(['core_folders'], { message: 'table must be core_folders' })
  @IsNotEmpty({ message: 'table is required' })
  table: string;

  @IdField('userId', { required: true })
  userId: number;
}

/* Answers (OpenAPI documentation only: see src/common/api-responses.ts). */

export class TokenPairDto {
  @ApiProperty({ description: 'JWT access token (JWT_ACCESS_TOKEN_LIFE, 3600 s by default)' })
  access_token: string;

  @ApiProperty({ description: 'JWT refresh token (JWT_REFRESH_TOKEN_LIFE, 30 days by default)' })
  refresh_token: string;
}

export class SignUpUserDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty() email: string;
  @ApiProperty({ type: String, nullable: true }) firstName: string | null;
  @ApiProperty({ type: String, nullable: true }) lastName: string | null;
}

export class LoginUserDto extends SignUpUserDto {
  @ApiProperty({ type: String, nullable: true, description: 'primary_role (core_users); null for the other tables' }) role: string | null;
}

export class LoginTokens extends TokenPairDto {
  @ApiProperty({ type: LoginUserDto }) user: LoginUserDto;
}

export class SignUpTokens extends TokenPairDto {
  @ApiProperty({ type: SignUpUserDto }) user: SignUpUserDto;
}

export class LoginAnswer extends SuccessEnvelope {
  @ApiProperty({ type: LoginTokens }) token: LoginTokens;
}

export class SignUpAnswer extends SuccessEnvelope {
  @ApiProperty({ type: SignUpTokens }) token: SignUpTokens;
}

export class RefreshTokenAnswer extends SuccessEnvelope {
  @ApiProperty({ type: TokenPairDto }) token: TokenPairDto;
}

export class UserEmailAnswer extends SuccessEnvelope {
  @ApiProperty() email: string;
  @ApiProperty({ type: String, nullable: true, description: 'primary_role' }) role: string | null;
}

export class InviteLinkAnswer extends SuccessEnvelope {
  @ApiProperty({
    description: 'The encrypted userId link token (valid 60 days) for /auth/user-email, /auth/user-sms-code and /auth/verify-sms-code',
  })
  link: string;
}

export class FolderLimit {
  @ApiProperty({ type: 'integer', description: 'core_folders id the user may access now' }) linked: number;
}

export class FolderLimitsAnswer extends SuccessEnvelope {
  @ApiProperty({ type: [FolderLimit] }) data: FolderLimit[];
}
