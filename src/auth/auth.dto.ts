import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsIn, IsNotEmpty, IsOptional, IsString, Matches } from 'class-validator';
import { EmailField, IdField, PasswordField, TextField } from '../common/dto-fields';
import { AUTH_TABLES } from './auth-tables';
import { PASSWORD_MIN_LENGTH } from './password-policy';

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

  @PasswordField('password', { required: true, doc: { description: 'At least 8 characters with an upper-case letter, a lower-case letter, a digit and one of @$!%*?&' } })
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

export class RefreshTokenRequest {
  @ApiProperty({ description: '{ access_token (may be expired), refresh_token }' })
  @Allow()
  payload?: unknown;
}

export class SignOutRequest {
  @ApiPropertyOptional()
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
  @TextField('userId', 2000, { required: true, doc: { description: 'The encrypted userId token issued by /auth/invite-link (docs/auth.md)' } })
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
