import { DataSource } from 'typeorm';

/**
 * The one registry of table policy: which tables are content (the generic content endpoints and
 * /getDataRows may reach them), which may be linked in core_related or written by a seed fixture, which
 * are account tables (reached only through the account endpoints), and which columns are secret. Tables
 * not named here are content: tenant-added tables are ordinary content.
 */
interface TableRules {
  /** Never content, even if someone registers the table in core_tables. */
  notContent?: true;
  /** Never a core_related parent or child. */
  notLinkable?: true;
  /** A seed fixture may not write it (the site row comes from the fixture's `site`). */
  notSeedable?: true;
}

/** The account tables password authentication works on (`authTable`; docs/auth.md "Accounts"). */
export const ACCOUNT_TABLES = ['core_users', 'core_customers', 'core_app_users'] as const;
export type AccountTable = (typeof ACCOUNT_TABLES)[number];

const TABLE_RULES: Record<string, TableRules> = {
  // The tenants with their private payment keys and webhook secrets (their public part is served by /getApp).
  core_sites: { notContent: true, notSeedable: true },
  // Version metadata and the registry itself.
  core_data: { notContent: true },
  core_tables: { notContent: true },
  // One-time codes.
  core_sms_codes: { notContent: true },
  // The staff console's sessions (src/console): whose browser is signed in, and since when.
  core_console_sessions: { notContent: true, notLinkable: true, notSeedable: true },
  // The migrations ledger (and TypeORM's default name for it).
  migrations: { notContent: true, notLinkable: true, notSeedable: true },
  typeorm_migrations: { notContent: true, notLinkable: true, notSeedable: true },
};

export const TablePolicy = {
  isContentTable: (table: string): boolean => TABLE_RULES[table]?.notContent !== true,
  isLinkable: (table: string): boolean => TABLE_RULES[table]?.notLinkable !== true,
  isSeedable: (table: string): boolean => TABLE_RULES[table]?.notSeedable !== true,
  isAccountTable: (table: unknown): table is AccountTable =>
    typeof table === 'string' && (ACCOUNT_TABLES as readonly string[]).includes(table),
  isSecretColumn: (table: string, column: string): boolean => isSecretColumn(table, column),
};

/**
 * Secret columns: password hashes, one-time codes, private keys, webhook secrets.
 * A secret column is never read, filtered, sorted on or written through the generic content endpoints
 * and /getDataRows, whichever mode is asked for. An entity declares its secrets with
 * `@Column({ select: false })` and they are registered from the entities' metadata at start
 * (registerEntitySecrets); the name patterns below are a second net for columns of tables without an
 * entity (tenant-added tables).
 */
const secretsByTable = new Map<string, Set<string>>();

/** Column names that are secret in every table. */
const SECRET_EVERYWHERE = new Set([
  'password',
  'password_hash',
  'sms_code',
  'sms_code_hash',
  'reset_code',
  'reset_token',
  'verification_code',
  'otp',
  'otp_hash',
]);

/** Name patterns of secret columns, whatever the table. */
const SECRET_PATTERNS = [/passw/i, /secret/i, /private_?key/i, /_hash$/i, /^hash$/i, /(^|_)otp(_|$)/i, /sms_?code/i, /api_?key/i];

export function registerSecretColumns(table: string, columns: string[]): void {
  const set = secretsByTable.get(table) ?? new Set<string>();
  for (const column of columns) set.add(column);
  secretsByTable.set(table, set);
}

export function isSecretColumn(table: string, column: string): boolean {
  return (
    SECRET_EVERYWHERE.has(column.toLowerCase()) ||
    secretsByTable.get(table)?.has(column) === true ||
    SECRET_PATTERNS.some((p) => p.test(column))
  );
}

/** Registers every `select: false` column of the data source's entities as secret. */
export function registerEntitySecrets(dataSource: DataSource): void {
  for (const entity of dataSource.entityMetadatas) {
    registerSecretColumns(
      entity.tableName,
      entity.columns.filter((column) => !column.isSelect).map((column) => column.databaseName),
    );
  }
}

// Secret columns of the API contract: the per-app payment keys and webhook secret (never in environment
// variables), and the account tables' password hashes.
registerSecretColumns('core_sites', [
  'payment_test_private_key',
  'payment_live_private_key',
  'payment_webhook_secret',
  'vapid_private_key',
]);
