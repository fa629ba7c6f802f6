import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsEmail, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Matches, MaxLength, Min, MinLength } from 'class-validator';
import { AUTH_TABLES } from './auth-tables';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './password-policy';

const AUTH_TABLE_MESSAGE = `authTable must be one of ${AUTH_TABLES.join(', ')}`;

export class LoginRequest {
  @ApiProperty({ example: 'admin@example.test' })
  @IsNotEmpty({ message: 'email is required' })
  @IsString({ message: 'email must be a string' })
  @MaxLength(320, { message: 'email must be at most 320 characters' })
  @IsEmail({}, { message: 'email must be a valid email address' })
  email: string;

  @ApiProperty({ minLength: PASSWORD_MIN_LENGTH })
  @IsNotEmpty({ message: 'password is required' })
  @IsString({ message: 'password must be a string' })
  @MinLength(PASSWORD_MIN_LENGTH, { message: `password must be at least ${PASSWORD_MIN_LENGTH} characters` })
  @MaxLength(PASSWORD_MAX_LENGTH, { message: `password must be at most ${PASSWORD_MAX_LENGTH} characters` })
  password: string;

  @ApiPropertyOptional({ description: 'App id; the site-id header is preferred. Read from the body only outside production.' })
  @IsOptional()
  @IsInt({ message: 'appID must be an integer' })
  @Min(1, { message: 'appID must be a positive integer' })
  appID?: number;

  @ApiPropertyOptional({ enum: AUTH_TABLES, default: 'core_users' })
  @IsOptional()
  @IsIn(AUTH_TABLES, { message: AUTH_TABLE_MESSAGE })
  authTable?: string;
}

export class SignUpRequest {
  @ApiProperty({ example: 'new@example.test' })
  @IsNotEmpty({ message: 'email is required' })
  @IsString({ message: 'email must be a string' })
  @MaxLength(320, { message: 'email must be at most 320 characters' })
  @IsEmail({}, { message: 'email must be a valid email address' })
  email: string;

  @ApiProperty({ description: 'At least 8 characters with an upper-case letter, a lower-case letter, a digit and one of @$!%*?&' })
  @IsNotEmpty({ message: 'password is required' })
  @IsString({ message: 'password must be a string' })
  @MaxLength(PASSWORD_MAX_LENGTH, { message: `password must be at most ${PASSWORD_MAX_LENGTH} characters` })
  password: string;

  @ApiPropertyOptional({ maxLength: 50 })
  @IsOptional()
  @IsString({ message: 'firstname must be a string' })
  @MaxLength(50, { message: 'firstname must be at most 50 characters' })
  firstname?: string;

  @ApiPropertyOptional({ maxLength: 50 })
  @IsOptional()
  @IsString({ message: 'lastname must be a string' })
  @MaxLength(50, { message: 'lastname must be at most 50 characters' })
  lastname?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsInt({ message: 'appID must be an integer' })
  @Min(1, { message: 'appID must be a positive integer' })
  appID?: number;

  @ApiPropertyOptional({ enum: AUTH_TABLES, default: 'core_users' })
  @IsOptional()
  @IsIn(AUTH_TABLES, { message: AUTH_TABLE_MESSAGE })
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
  @IsNotEmpty({ message: 'email is required' })
  @IsString({ message: 'email must be a string' })
  @MaxLength(320, { message: 'email must be at most 320 characters' })
  @IsEmail({}, { message: 'email must be a valid email address' })
  email: string;

  @ApiProperty()
  @IsNotEmpty({ message: 'appID is required' })
  @IsInt({ message: 'appID must be an integer' })
  @Min(1, { message: 'appID must be a positive integer' })
  appID: number;

  @ApiPropertyOptional({ description: "Reset page URL on the app's domain; default https://<app domain>/reset-password" })
  @IsOptional()
  @IsString({ message: 'url must be a string' })
  @MaxLength(2000, { message: 'url must be at most 2000 characters' })
  url?: string;

  @ApiPropertyOptional({ enum: AUTH_TABLES, default: 'core_users' })
  @IsOptional()
  @IsIn(AUTH_TABLES, { message: AUTH_TABLE_MESSAGE })
  authTable?: string;
}

export class ResetPassRequest {
  @ApiProperty()
  @IsNotEmpty({ message: 'password is required' })
  @IsString({ message: 'password must be a string' })
  @MaxLength(PASSWORD_MAX_LENGTH, { message: `password must be at most ${PASSWORD_MAX_LENGTH} characters` })
  password: string;

  @ApiProperty()
  @IsNotEmpty({ message: 'confirmPassword is required' })
  @IsString({ message: 'confirmPassword must be a string' })
  confirmPassword: string;

  @ApiProperty()
  @IsNotEmpty({ message: 'reset_password_token is required' })
  @IsString({ message: 'reset_password_token must be a string' })
  @MaxLength(2000, { message: 'reset_password_token is too long' })
  reset_password_token: string;

  @ApiPropertyOptional({ enum: AUTH_TABLES, default: 'core_users' })
  @IsOptional()
  @IsIn(AUTH_TABLES, { message: AUTH_TABLE_MESSAGE })
  authTable?: string;
}

export class UserTokenRequest {
  @ApiProperty({ description: 'The encrypted userId token issued by /auth/invite-link (docs/auth.md)' })
  @IsNotEmpty({ message: 'userId is required' })
  @IsString({ message: 'userId must be a string' })
  @MaxLength(2000, { message: 'userId is too long' })
  userId: string;
}

export class VerifySmsCodeRequest extends UserTokenRequest {
  @ApiProperty({ example: '123456' })
  @IsNotEmpty({ message: 'code is required' })
  @IsString({ message: 'code must be a string of 6 digits' })
  @Matches(/^\d{6}$/, { message: 'code must be 6 digits' })
  code: string;
}

export class InviteLinkRequest {
  @ApiProperty({ description: 'core_users id of the invited user' })
  @IsNotEmpty({ message: 'user is required' })
  @IsInt({ message: 'user must be an integer' })
  @Min(1, { message: 'user must be a positive integer' })
  user: number;

  @ApiProperty({ description: 'core_folders id' })
  @IsNotEmpty({ message: 'folder_id is required' })
  @IsInt({ message: 'folder_id must be an integer' })
  @Min(1, { message: 'folder_id must be a positive integer' })
  folder_id: number;
}

export class FolderLimitsRequest {
  @ApiProperty()
  @IsNotEmpty({ message: 'appID is required' })
  @IsInt({ message: 'appID must be an integer' })
  @Min(1, { message: 'appID must be a positive integer' })
  appID: number;

  @ApiProperty({ example: 'core_folders' })
  @IsNotEmpty({ message: 'table is required' })
  @IsIn(['core_folders'], { message: 'table must be core_folders' })
  table: string;

  @ApiProperty()
  @IsNotEmpty({ message: 'userId is required' })
  @IsInt({ message: 'userId must be an integer' })
  @Min(1, { message: 'userId must be a positive integer' })
  userId: number;
}
