import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, MaxLength, Min } from 'class-validator';
import { CUSTOMER_ROUTE_TABLES } from './auth-tables';
import { PASSWORD_MAX_LENGTH } from './password-policy';

/*
 * class-validator runs a property's decorators bottom-up and the pipe stops at the first failure
 * (stopAtFirstError): the presence check is the last line, then the type, then the finer rules, so a
 * missing field answers `<field> is required` and a wrong type `<field> must be a string`.
 */

const TABLE_MESSAGE = `authTable must be one of ${CUSTOMER_ROUTE_TABLES.join(', ')}`;

class CustomerRouteRequest {
  @ApiPropertyOptional({ description: 'App id; the site-id header is preferred. Read from the body only outside production.' })
  @Min(1, { message: 'appID must be a positive integer' })
  @IsInt({ message: 'appID must be an integer' })
  @IsOptional()
  appID?: number;

  @ApiPropertyOptional({ enum: CUSTOMER_ROUTE_TABLES, default: 'core_customers' })
  @IsIn(CUSTOMER_ROUTE_TABLES, { message: TABLE_MESSAGE })
  @IsOptional()
  authTable?: string;
}

class WithEmail extends CustomerRouteRequest {
  @ApiProperty()
  @IsEmail({}, { message: 'email must be a valid email address' })
  @MaxLength(320, { message: 'email must be at most 320 characters' })
  @IsString({ message: 'email must be a string' })
  @IsNotEmpty({ message: 'email is required' })
  email: string;
}

export class CustomerSignupRequest extends WithEmail {
  @ApiProperty({ description: 'Password strength rule' })
  @MaxLength(PASSWORD_MAX_LENGTH, { message: `password must be at most ${PASSWORD_MAX_LENGTH} characters` })
  @IsString({ message: 'password must be a string' })
  @IsNotEmpty({ message: 'password is required' })
  password: string;

  @ApiPropertyOptional()
  @MaxLength(50, { message: 'firstname must be at most 50 characters' })
  @IsString({ message: 'firstname must be a string' })
  @IsOptional()
  firstname?: string;

  @ApiPropertyOptional()
  @MaxLength(50, { message: 'lastname must be at most 50 characters' })
  @IsString({ message: 'lastname must be a string' })
  @IsOptional()
  lastname?: string;

  @ApiPropertyOptional()
  @MaxLength(100, { message: 'displayname must be at most 100 characters' })
  @IsString({ message: 'displayname must be a string' })
  @IsOptional()
  displayname?: string;
}

export class CustomerLoginRequest extends WithEmail {
  @ApiProperty()
  @MaxLength(PASSWORD_MAX_LENGTH, { message: `password must be at most ${PASSWORD_MAX_LENGTH} characters` })
  @IsString({ message: 'password must be a string' })
  @IsNotEmpty({ message: 'password is required' })
  password: string;

  @ApiPropertyOptional({ description: 'Comma-separated extra profile columns: mobile, created, updated' })
  @MaxLength(500, { message: 'extraFields is too long' })
  @IsString({ message: 'extraFields must be a comma-separated string' })
  @IsOptional()
  extraFields?: string;
}

export class CustomerRequestResetRequest extends WithEmail {
  @ApiPropertyOptional({ description: "Front-end route on the app's domain that receives the appended token" })
  @MaxLength(2000, { message: 'url must be at most 2000 characters' })
  @IsString({ message: 'url must be a string' })
  @IsOptional()
  url?: string;
}

export class CustomerResetPasswordRequest extends CustomerRouteRequest {
  @ApiProperty()
  @MaxLength(PASSWORD_MAX_LENGTH, { message: `password must be at most ${PASSWORD_MAX_LENGTH} characters` })
  @IsString({ message: 'password must be a string' })
  @IsNotEmpty({ message: 'password is required' })
  password: string;

  @ApiProperty()
  @IsString({ message: 'confirmPassword must be a string' })
  @IsNotEmpty({ message: 'confirmPassword is required' })
  confirmPassword: string;

  @ApiProperty({ description: 'The reset token; must equal reset_password_token' })
  @MaxLength(2000, { message: 'token is too long' })
  @IsString({ message: 'token must be a string' })
  @IsNotEmpty({ message: 'token is required' })
  token: string;

  @ApiProperty({ description: 'The reset token again (both must be sent, with equal values)' })
  @MaxLength(2000, { message: 'reset_password_token is too long' })
  @IsString({ message: 'reset_password_token must be a string' })
  @IsNotEmpty({ message: 'reset_password_token is required' })
  reset_password_token: string;
}
