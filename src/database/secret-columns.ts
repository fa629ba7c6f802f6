import { DataSource } from 'typeorm';

/**
 * The one registry of secret columns: password hashes, one-time codes, private keys, webhook secrets.
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

// Secrets of the tables the spec names (SPEC "Resources and their fields", "Authentication").
registerSecretColumns('core_sites', [
  'payment_test_private_key',
  'payment_live_private_key',
  'payment_webhook_secret',
  'vapid_private_key',
]);
