/**
 * The user tables password authentication works on. `authTable` from a request is only ever used to pick
 * one of these entries; the SQL identifiers come from here, never from request text.
 */
export const AUTH_TABLES = ['core_users', 'core_customers', 'core_app_users'] as const;
export type AuthTable = (typeof AUTH_TABLES)[number];

/** Tables of the customer and app-user routes (SPEC "Customers and app users"). */
export const CUSTOMER_ROUTE_TABLES = ['core_customers', 'core_app_users'] as const;
export type CustomerRouteTable = (typeof CUSTOMER_ROUTE_TABLES)[number];

interface TableShape {
  /** Column holding the login email. */
  email: string;
  /** SQL expression for the role carried in tokens: primary_role for admin accounts, a fixed label otherwise. */
  role: string;
}

export const TABLE_SHAPES: Record<AuthTable, TableShape> = {
  core_users: { email: 'user_email', role: 'primary_role' },
  core_customers: { email: 'email', role: `'customer'` },
  core_app_users: { email: 'email', role: `'app_user'` },
};

export function isAuthTable(value: unknown): value is AuthTable {
  return typeof value === 'string' && (AUTH_TABLES as readonly string[]).includes(value);
}

export function isCustomerRouteTable(value: unknown): value is CustomerRouteTable {
  return typeof value === 'string' && (CUSTOMER_ROUTE_TABLES as readonly string[]).includes(value);
}
