/**
 * What a staff member (a core_users account of the app) may do, one permission per kind of operation
 * (README "Staff roles and permissions"). Every staff route names the one it needs (@RequirePermission).
 */
export const PERMISSIONS = [
  'orders.view',
  'orders.refund',
  'orders.cancel',
  'orders.resend',
  'orders.note',
  'orders.complete',
  'customers.view',
  'customers.invite',
  'tokens.manage',
  'content.view',
  'content.edit',
  'content.publish',
  'mail.send',
  'mail.templates.view',
  'mail.templates.edit',
  'mail.log.view',
  'mail.log.retry',
  'audit.view',
  'staff.view',
  'staff.manage',
  'settings.view',
  'settings.manage',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

/** The roles a tenant assigns to its staff; a staff member may hold several. */
export const STAFF_ROLES = ['owner', 'orders', 'content', 'support', 'viewer'] as const;

export type StaffRole = (typeof STAFF_ROLES)[number];

const VIEW: Permission[] = PERMISSIONS.filter((permission) => permission.endsWith('.view'));

/** The role table: what each role may do. `owner` may do everything, staff and settings included. */
export const ROLE_PERMISSIONS: Record<StaffRole, readonly Permission[]> = {
  owner: PERMISSIONS,
  orders: [
    'orders.view',
    'orders.refund',
    'orders.cancel',
    'orders.resend',
    'orders.note',
    'orders.complete',
    'customers.view',
    'tokens.manage',
    'mail.log.view',
  ],
  content: ['content.view', 'content.edit', 'content.publish', 'mail.templates.view'],
  support: ['orders.view', 'orders.resend', 'orders.note', 'customers.view', 'customers.invite', 'mail.log.view', 'mail.log.retry'],
  viewer: VIEW,
};

/** core_users.primary_role that makes an account its app's owner (`admin` in the API contract, before roles existed). */
export const OWNER_PRIMARY_ROLE = 'admin';

export function isStaffRole(value: unknown): value is StaffRole {
  return typeof value === 'string' && (STAFF_ROLES as readonly string[]).includes(value);
}

/** The roles a core_users account holds: those assigned to it, and `owner` for an `admin` primary role. */
export function effectiveRoles(primaryRole: string | null, assigned: readonly string[]): StaffRole[] {
  const roles = new Set<StaffRole>(assigned.filter(isStaffRole));
  if (primaryRole === OWNER_PRIMARY_ROLE) roles.add('owner');
  return STAFF_ROLES.filter((role) => roles.has(role));
}

/** Whether staff holding `roles` (a principal's staffRoles; none for one who is not staff) may do `permission`. */
export function hasPermission(roles: readonly StaffRole[] | undefined, permission: Permission): boolean {
  return roles?.some((role) => ROLE_PERMISSIONS[role].includes(permission)) ?? false;
}
