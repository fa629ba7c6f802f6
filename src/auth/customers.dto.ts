import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, MaxLength, Min } from 'class-validator';
import { CUSTOMER_ROUTE_TABLES } from './auth-tables';
import { PASSWORD_MAX_LENGTH } from './password-policy';

const TABLE_MESSAGE = `authTable must be one of ${CUSTOMER_ROUTE_TABLES.join(', ')}`;

class CustomerRouteRequest {
  @ApiPropertyOptional({ description: 'App id; the site-id header is preferred. Read from the body only outside production.' })
  @IsOptional()
  @IsInt({ message: 'appID must be an integer' })
  @Min(1, { message: 'appID must be a positive integer' })
  appID?: number;

  @ApiPropertyOptional({ enum: CUSTOMER_ROUTE_TABLES, default: 'core_customers' })
  @IsOptional()
  @IsIn(CUSTOMER_ROUTE_TABLES, { message: TABLE_MESSAGE })
  authTable?: string;
}

class WithEmail extends CustomerRouteRequest {
  @ApiProperty()
  @IsNotEmpty({ message: 'email is required' })
  @IsString({ message: 'email must be a string' })
  @MaxLength(320, { message: 'email must be at most 320 characters' })
  @IsEmail({}, { message: 'email must be a valid email address' })
  email: string;
}

export class CustomerSignupRequest extends WithEmail {
  @ApiProperty({ description: 'Password strength rule' })
  @IsNotEmpty({ message: 'password is required' })
  @IsString({ message: 'password must be a string' })
  @MaxLength(PASSWORD_MAX_LENGTH, { message: `password must be at most ${PASSWORD_MAX_LENGTH} characters` })
  password: string;

  @ApiPropertyOptional() @IsOptional() @IsString({ message: 'firstname must be a string' }) @MaxLength(50, { message: 'firstname must be at most 50 characters' })
  firstname?: string;

  @ApiPropertyOptional() @IsOptional() @IsString({ message: 'lastname must be a string' }) @MaxLength(50, { message: 'lastname must be at most 50 characters' })
  lastname?: string;

  @ApiPropertyOptional() @IsOptional() @IsString({ message: 'displayname must be a string' }) @MaxLength(100, { message: 'displayname must be at most 100 characters' })
  displayname?: string;
}

export class CustomerLoginRequest extends WithEmail {
  @ApiProperty()
  @IsNotEmpty({ message: 'password is required' })
  @IsString({ message: 'password must be a string' })
  @MaxLength(PASSWORD_MAX_LENGTH, { message: `password must be at most ${PASSWORD_MAX_LENGTH} characters` })
  password: string;

  @ApiPropertyOptional({ description: 'Comma-separated extra profile columns: mobile, created, updated' })
  @IsOptional()
  @IsString({ message: 'extraFields must be a comma-separated string' })
  @MaxLength(500, { message: 'extraFields is too long' })
  extraFields?: string;
}

export class CustomerRequestResetRequest extends WithEmail {
  @ApiPropertyOptional({ description: "Front-end route on the app's domain that receives the appended token" })
  @IsOptional()
  @IsString({ message: 'url must be a string' })
  @MaxLength(2000, { message: 'url must be at most 2000 characters' })
  url?: string;
}

export class CustomerResetPasswordRequest extends CustomerRouteRequest {
  @ApiProperty()
  @IsNotEmpty({ message: 'password is required' })
  @IsString({ message: 'password must be a string' })
  @MaxLength(PASSWORD_MAX_LENGTH, { message: `password must be at most ${PASSWORD_MAX_LENGTH} characters` })
  password: string;

  @ApiProperty()
  @IsNotEmpty({ message: 'confirmPassword is required' })
  @IsString({ message: 'confirmPassword must be a string' })
  confirmPassword: string;

  @ApiProperty({ description: 'The reset token; must equal reset_password_token' })
  @IsNotEmpty({ message: 'token is required' })
  @IsString({ message: 'token must be a string' })
  @MaxLength(2000, { message: 'token is too long' })
  token: string;

  @ApiProperty({ description: 'The reset token again (both must be sent, with equal values)' })
  @IsNotEmpty({ message: 'reset_password_token is required' })
  @IsString({ message: 'reset_password_token must be a string' })
  @MaxLength(2000, { message: 'reset_password_token is too long' })
  reset_password_token: string;
}
