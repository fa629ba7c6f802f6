import { ApiProperty } from '@nestjs/swagger';
import { SuccessEnvelope } from '../common/api-responses';
import { EmailField, IdField, PasswordField, TextField } from '../common/dto-fields';
import { PERMISSIONS, Permission, STAFF_ROLES, StaffRole } from '../common/permissions';

/* Request and answer bodies of the console's session routes (README "Staff console"). */

export class ConsoleCsrfData {
  @ApiProperty({ description: 'Send it back in the `x-csrf-token` header of the session POSTs (sign-in, refresh, sign-out)' })
  csrfToken: string;
}

export class ConsoleCsrfAnswer extends SuccessEnvelope {
  @ApiProperty({ type: ConsoleCsrfData }) data: ConsoleCsrfData;
}

export class ConsoleSignInRequest {
  @TextField('domain', 253, {
    doc: { description: 'The tenant by its domain (core_sites.domain), as the sign-in page asks; or appID', example: 'shop.example.test' },
  })
  domain?: string;

  @IdField('appID', { doc: { description: 'The tenant by its id, when no domain is given' } })
  appID?: number;

  @EmailField('email', { required: true, doc: { example: 'admin@example.test' } })
  email: string;

  @PasswordField('password', { required: true })
  password: string;
}

export class ConsoleStaff {
  @ApiProperty({ description: 'core_users id' }) id: number;
  @ApiProperty() email: string;
  @ApiProperty({ nullable: true, type: String }) firstname: string | null;
  @ApiProperty({ nullable: true, type: String }) lastname: string | null;
  @ApiProperty({ type: [String], enum: STAFF_ROLES, description: 'Effective roles (an `admin` primary role is an owner)' })
  roles: StaffRole[];
  @ApiProperty({
    type: [String],
    enum: PERMISSIONS,
    description: 'What the roles allow, read from the account at this request: the console offers only these operations',
  })
  permissions: Permission[];
}

export class ConsoleApp {
  @ApiProperty({ description: 'The tenant: send it as the `site-id` header of API requests' }) appID: number;
  @ApiProperty() name: string;
  @ApiProperty() domain: string;
}

export class ConsoleSessionData {
  @ApiProperty({ description: 'Access token for `authorization: Bearer …` on API requests (kept in memory, never stored)' })
  accessToken: string;
  @ApiProperty({ type: 'integer', description: 'Seconds the access token is valid (JWT_ACCESS_TOKEN_LIFE): refresh before' })
  expiresIn: number;
  @ApiProperty({
    type: 'integer',
    description:
      'Minutes without a refresh after which the session ends (CONSOLE_IDLE_MINUTES): the console signs out after as long without input',
  })
  idleMinutes: number;
  @ApiProperty({ type: ConsoleStaff }) staff: ConsoleStaff;
  @ApiProperty({ type: ConsoleApp }) app: ConsoleApp;
}

export class ConsoleSessionAnswer extends SuccessEnvelope {
  @ApiProperty({ type: ConsoleSessionData }) data: ConsoleSessionData;
}
