import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsEmail, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Matches, MaxLength, Min, MinLength } from 'class-validator';
import { AUTH_TABLES } from './auth-tables';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './password-policy';

/*
 * class-validator runs a property's decorators bottom-up and the pipe stops at the first failure
 * (stopAtFirstError): the presence check is the last line, then the type, then the finer rules, so a
 * missing field answers `<field> is required` and a wrong type `<field> must be a string`.
 */

const AUTH_TABLE_MESSAGE = `authTable must be one of ${AUTH_TABLES.join(', ')}`;

export class LoginRequest {
  @ApiProperty({ example: 'admin@example.test' })
  @IsEmail({}, { message: 'email must be a valid email address' })
  @MaxLength(320, { message: 'email must be at most 320 characters' })
  @IsString({ message: 'email must be a string' })
  @IsNotEmpty({ message: 'email is required' })
  email: string;

  @ApiProperty({ minLength: PASSWORD_MIN_LENGTH })
  @MaxLength(PASSWORD_MAX_LENGTH, { message: `password must be at most ${PASSWORD_MAX_LENGTH} characters` })
  @MinLength(PASSWORD_MIN_LENGTH, { message: `password must be at least ${PASSWORD_MIN_LENGTH} characters` })
  @IsString({ message: 'password must be a string' })
  @IsNotEmpty({ message: 'password is required' })
  password: string;

  @ApiPropertyOptional({ description: 'App id; the site-id header is preferred. Read from the body only outside production.' })
  @Min(1, { message: 'appID must be a positive integer' })
  @IsInt({ message: 'appID must be an integer' })
  @IsOptional()
  appID?: number;

  @ApiPropertyOptional({ enum: AUTH_TABLES, default: 'core_users' })
  @IsIn(AUTH_TABLES, { message: AUTH_TABLE_MESSAGE })
  @IsOptional()
  authTable?: string;
}

export class SignUpRequest {
  @ApiProperty({ example: 'new@example.test' })
  @IsEmail({}, { message: 'email must be a valid email address' })
  @MaxLength(320, { message: 'email must be at most 320 characters' })
  @IsString({ message: 'email must be a string' })
  @IsNotEmpty({ message: 'email is required' })
  email: string;

  @ApiProperty({ description: 'At least 8 characters with an upper-case letter, a lower-case letter, a digit and one of @$!%*?&' })
  @MaxLength(PASSWORD_MAX_LENGTH, { message: `password must be at most ${PASSWORD_MAX_LENGTH} characters` })
  @IsString({ message: 'password must be a string' })
  @IsNotEmpty({ message: 'password is required' })
  password: string;

  @ApiPropertyOptional({ maxLength: 50 })
  @MaxLength(50, { message: 'firstname must be at most 50 characters' })
  @IsString({ message: 'firstname must be a string' })
  @IsOptional()
  firstname?: string;

  @ApiPropertyOptional({ maxLength: 50 })
  @MaxLength(50, { message: 'lastname must be at most 50 characters' })
  @IsString({ message: 'lastname must be a string' })
  @IsOptional()
  lastname?: string;

  @ApiPropertyOptional()
  @Min(1, { message: 'appID must be a positive integer' })
  @IsInt({ message: 'appID must be an integer' })
  @IsOptional()
  appID?: number;

  @ApiPropertyOptional({ enum: AUTH_TABLES, default: 'core_users' })
  @IsIn(AUTH_TABLES, { message: AUTH_TABLE_MESSAGE })
  @IsOptional()
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
  @ApiProperty()
  @IsEmail({}, { message: 'email must be a valid email address' })
  @MaxLength(320, { message: 'email must be at most 320 characters' })
  @IsString({ message: 'email must be a string' })
  @IsNotEmpty({ message: 'email is required' })
  email: string;

  @ApiProperty()
  @Min(1, { message: 'appID must be a positive integer' })
  @IsInt({ message: 'appID must be an integer' })
  @IsNotEmpty({ message: 'appID is required' })
  appID: number;

  @ApiPropertyOptional({ description: "Reset page URL on the app's domain; default https://<app domain>/reset-password" })
  @MaxLength(2000, { message: 'url must be at most 2000 characters' })
  @IsString({ message: 'url must be a string' })
  @IsOptional()
  url?: string;

  @ApiPropertyOptional({ enum: AUTH_TABLES, default: 'core_users' })
  @IsIn(AUTH_TABLES, { message: AUTH_TABLE_MESSAGE })
  @IsOptional()
  authTable?: string;
}

export class ResetPassRequest {
  @ApiProperty()
  @MaxLength(PASSWORD_MAX_LENGTH, { message: `password must be at most ${PASSWORD_MAX_LENGTH} characters` })
  @IsString({ message: 'password must be a string' })
  @IsNotEmpty({ message: 'password is required' })
  password: string;

  @ApiProperty()
  @IsString({ message: 'confirmPassword must be a string' })
  @IsNotEmpty({ message: 'confirmPassword is required' })
  confirmPassword: string;

  @ApiProperty()
  @MaxLength(2000, { message: 'reset_password_token is too long' })
  @IsString({ message: 'reset_password_token must be a string' })
  @IsNotEmpty({ message: 'reset_password_token is required' })
  reset_password_token: string;

  @ApiPropertyOptional({ enum: AUTH_TABLES, default: 'core_users' })
  @IsIn(AUTH_TABLES, { message: AUTH_TABLE_MESSAGE })
  @IsOptional()
  authTable?: string;
}

export class UserTokenRequest {
  @ApiProperty({ description: 'The encrypted userId token issued by /auth/invite-link (docs/auth.md)' })
  @MaxLength(2000, { message: 'userId is too long' })
  @IsString({ message: 'userId must be a string' })
  @IsNotEmpty({ message: 'userId is required' })
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
  @ApiProperty({ description: 'core_users id of the invited user' })
  @Min(1, { message: 'user must be a positive integer' })
  @IsInt({ message: 'user must be an integer' })
  @IsNotEmpty({ message: 'user is required' })
  user: number;

  @ApiProperty({ description: 'core_folders id' })
  @Min(1, { message: 'folder_id must be a positive integer' })
  @IsInt({ message: 'folder_id must be an integer' })
  @IsNotEmpty({ message: 'folder_id is required' })
  folder_id: number;
}

export class FolderLimitsRequest {
  @ApiProperty()
  @Min(1, { message: 'appID must be a positive integer' })
  @IsInt({ message: 'appID must be an integer' })
  @IsNotEmpty({ message: 'appID is required' })
  appID: number;

  @ApiProperty({ example: 'core_folders' })
  @IsIn(['core_folders'], { message: 'table must be core_folders' })
  @IsNotEmpty({ message: 'table is required' })
  table: string;

  @ApiProperty()
  @Min(1, { message: 'userId must be a positive integer' })
  @IsInt({ message: 'userId must be an integer' })
  @IsNotEmpty({ message: 'userId is required' })
  userId: number;
}
