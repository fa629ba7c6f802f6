import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, ArrayUnique, IsArray, IsDefined, IsIn } from 'class-validator';
import { DateProperty, SuccessEnvelope } from '../../common/api-responses';
import { EmailField, IdField, TextField } from '../../common/dto-fields';
import { STAFF_ROLES, StaffRole } from '../../common/permissions';

/* Request and answer bodies of the staff routes (README "Staff roles and permissions"). */

/** `roles`: an array of distinct role names from the role table (an empty array takes every role away). */
function RolesField(): PropertyDecorator {
  return (target, key) => {
    ApiProperty({ type: [String], enum: STAFF_ROLES, description: 'The staff roles, several at once (`[]`: none)' })(target, key);
    Transform(({ value }) => (value === null ? undefined : value))(target, key);
    IsDefined({ message: 'roles is required' })(target, key);
    IsArray({ message: 'roles must be an array of role names' })(target, key);
    ArrayMaxSize(STAFF_ROLES.length, { message: `roles must have at most ${STAFF_ROLES.length} entries` })(target, key);
    ArrayUnique({ message: 'roles must not repeat a role' })(target, key);
    IsIn(STAFF_ROLES as unknown as string[], { each: true, message: `roles must hold only ${STAFF_ROLES.join(', ')}` })(target, key);
  };
}

export class ListStaffRequest {
  @IdField('appID', { doc: { description: 'App id; the site-id header is preferred. Read from the body only outside production.' } })
  appID?: number;
}

export class InviteStaffRequest extends ListStaffRequest {
  @EmailField('email')
  email: string;

  @RolesField()
  roles: StaffRole[];

  @TextField('firstname', 100)
  firstname?: string;

  @TextField('lastname', 100)
  lastname?: string;

  @TextField('url', 2000, {
    doc: { description: "The page that sets the password, on the app's domain; default https://<app domain>/reset-password" },
  })
  url?: string;
}

export class SetStaffRolesRequest extends ListStaffRequest {
  @IdField('userId', { required: true, doc: { description: 'The staff member (core_users id)' } })
  userId: number;

  @RolesField()
  roles: StaffRole[];
}

export class RemoveStaffRequest extends ListStaffRequest {
  @IdField('userId', { required: true, doc: { description: 'The staff member (core_users id)' } })
  userId: number;
}

export class StaffMemberDto {
  @ApiProperty() id: number;
  @ApiProperty() email: string;
  @ApiProperty({ nullable: true, type: String }) firstname: string | null;
  @ApiProperty({ nullable: true, type: String }) lastname: string | null;
  @ApiProperty({ type: [String], enum: STAFF_ROLES, description: 'Effective roles (an `admin` primary role is an owner)' })
  roles: StaffRole[];
  @ApiProperty({ description: 'false until the invited member has set a password through the link' }) passwordSet: boolean;
  @DateProperty({ description: 'When the account was made' }) created: Date;
}

export class StaffListAnswer extends SuccessEnvelope {
  @ApiProperty({ type: [StaffMemberDto] }) data: StaffMemberDto[];
}

export class StaffMemberAnswer extends SuccessEnvelope {
  @ApiProperty({ type: StaffMemberDto }) data: StaffMemberDto;
}
