import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Failure, OpenSchema, SuccessEnvelope } from '../../common/api-responses';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { EmailField, IdField, PasswordField, TextField } from '../../common/dto-fields';
import { CUSTOMER_ROUTE_TABLES } from '../auth-tables';

/*
 * class-validator runs a property's decorators bottom-up and the pipe stops at the first failure
 * (stopAtFirstError): the presence check is the last line, then the type, then the finer rules, so a
 * missing field answers `<field> is required` and a wrong type `<field> must be a string`.
 */

const TABLE_MESSAGE = `authTable must be one of ${CUSTOMER_ROUTE_TABLES.join(', ')}`;

class CustomerRouteRequest {
  @IdField('appID', { doc: { description: 'App id; the site-id header is preferred. Read from the body only outside production.' } })
  appID?: number;

  @ApiPropertyOptional({ enum: CUSTOMER_ROUTE_TABLES, default: 'core_customers' })
  @IsIn(CUSTOMER_ROUTE_TABLES, { message: TABLE_MESSAGE })
  @IsOptional()
  authTable?: string;
}

class WithEmail extends CustomerRouteRequest {
  @EmailField()
  email: string;
}

export class CustomerSignupRequest extends WithEmail {
  @PasswordField('password', { required: true, doc: { description: 'Password strength rule' } })
  password: string;

  @TextField('firstname', 50)
  firstname?: string;

  @TextField('lastname', 50)
  lastname?: string;

  @TextField('displayname', 100)
  displayname?: string;
}

export class CustomerLoginRequest extends WithEmail {
  @PasswordField('password')
  password: string;

  @ApiPropertyOptional({
    description:
      'Comma-separated extra profile columns: any column of the account table that is not secret (e.g. mobile, created, updated)',
  })
  @MaxLength(500, { message: 'extraFields is too long' })
  @IsString({ message: 'extraFields must be a comma-separated string' })
  @IsOptional()
  extraFields?: string;
}

export class CustomerRequestResetRequest extends WithEmail {
  @TextField('url', 2000, { doc: { description: "Front-end route on the app's domain that receives the appended token" } })
  url?: string;
}

export class CustomerResetPasswordRequest extends CustomerRouteRequest {
  @PasswordField('password')
  password: string;

  @PasswordField('confirmPassword')
  confirmPassword: string;

  @TextField('token', 2000, { required: true, doc: { description: 'The reset token; must equal reset_password_token' } })
  token: string;

  @TextField('reset_password_token', 2000, {
    required: true,
    doc: { description: 'The reset token again (both must be sent, with equal values)' },
  })
  reset_password_token: string;
}

/* Answers (OpenAPI documentation only: see src/common/api-responses.ts). */

/** The profile every customer answer carries (PROFILE_FIELDS), with the encrypted id. */
export class CustomerProfile {
  @ApiProperty({ description: 'Encrypted account id' }) _id: string;
  @ApiProperty({ type: String, nullable: true }) email: string | null;
  @ApiProperty({ type: String, nullable: true }) firstname: string | null;
  @ApiProperty({ type: String, nullable: true }) lastname: string | null;
  @ApiProperty({ type: String, nullable: true }) displayname: string | null;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty({ type: String, nullable: true }) photourl: string | null;
  @ApiProperty() emailverified: boolean;
}

/** signup's answer: the profile at the top level. */
export class CustomerSignupAnswer extends SuccessEnvelope {
  @ApiProperty({ description: 'Encrypted account id' }) _id: string;
  @ApiProperty({ type: String, nullable: true }) email: string | null;
  @ApiProperty({ type: String, nullable: true }) firstname: string | null;
  @ApiProperty({ type: String, nullable: true }) lastname: string | null;
  @ApiProperty({ type: String, nullable: true }) displayname: string | null;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty({ type: String, nullable: true }) photourl: string | null;
  @ApiProperty() emailverified: boolean;
}

/** login's profile: the profile fields plus the columns named in `extraFields` (any JSON value each). */
@OpenSchema('The profile, plus one property per column named in extraFields')
export class CustomerLoginProfile extends CustomerProfile {}

export class CustomerLoginAnswer extends SuccessEnvelope {
  @ApiProperty({ enum: ['Login successful'] }) message: string;
  @ApiProperty({ type: CustomerLoginProfile }) data: CustomerLoginProfile & Record<string, unknown>;
}

/** 401 of customer login: `{ status: Failed, message: Invalid credentials, data: {} }`. */
export class EmptyDataFailure extends Failure {
  @ApiProperty({ type: 'object', additionalProperties: false, maxProperties: 0, description: 'Always {}' }) data: Record<string, never>;
}
