import { ACCOUNT_TABLES, AccountTable, TablePolicy } from '../database/table-policy';

/**
 * The user tables password authentication works on (the account tables of the table-policy registry).
 * `authTable` from a request is only ever used to pick one of these entries; the SQL identifiers come from
 * here, never from request text.
 */
export const AUTH_TABLES = ACCOUNT_TABLES;
export type AuthTable = AccountTable;

/** Tables of the customer and app-user routes (/customers/*, /user/app/*; docs/auth.md "Endpoints"). */
export const CUSTOMER_ROUTE_TABLES = ['core_customers', 'core_app_users'] as const;
export type CustomerRouteTable = (typeof CUSTOMER_ROUTE_TABLES)[number];

interface TableShape {
  /** Column holding the login email. */
  email: string;
  /** SQL expression for the role carried in tokens: primary_role for admin accounts, a fixed label otherwise. */
  role: string;
  /** SQL expression for the staff roles assigned: core_users.staff_roles, none for the other tables. */
  staffRoles: string;
}

export const TABLE_SHAPES: Record<AuthTable, TableShape> = {
  core_users: { email: 'user_email', role: 'primary_role', staffRoles: 'a.staff_roles' },
  core_customers: { email: 'email', role: `'customer'`, staffRoles: `'{}'::varchar[]` },
  core_app_users: { email: 'email', role: `'app_user'`, staffRoles: `'{}'::varchar[]` },
};

export const isAuthTable: (value: unknown) => value is AuthTable = TablePolicy.isAccountTable;

export function isCustomerRouteTable(value: unknown): value is CustomerRouteTable {
  return typeof value === 'string' && (CUSTOMER_ROUTE_TABLES as readonly string[]).includes(value);
}
