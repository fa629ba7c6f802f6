import { isSecretColumn } from '../database/table-policy';
import { AuditChanges } from './entities/audit-log.entity';

/** What a masked value reads as in core_audit_log: the change is recorded, its value never. */
export const MASKED = '[masked]';

/** Names that hold a secret in any table, beyond the registry's own (README "Audit log"). */
const SECRET_NAME = /key|secret|passw|token/i;

export function isSecretField(table: string, field: string): boolean {
  return isSecretColumn(table, field) || SECRET_NAME.test(field);
}

function comparable(value: unknown): string {
  return JSON.stringify(value instanceof Date ? value.toISOString() : (value ?? null));
}

function plain(value: unknown): unknown {
  if (value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return value.toString();
  return value;
}

/**
 * The fields that differ between `before` and `after` (a missing side reads as null: a creation or a
 * deletion), as `{ field: { before, after } }`. A secret column (the secret-column registry of
 * database/table-policy.ts, or a name like key, secret, password, token) keeps only whether it was set.
 */
export function diffChanges(
  table: string,
  before: Record<string, unknown> | null | undefined,
  after: Record<string, unknown> | null | undefined,
): AuditChanges {
  const changes: AuditChanges = {};
  const fields = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  for (const field of fields) {
    const was = before?.[field];
    const is = after?.[field];
    if (comparable(was) === comparable(is)) continue;
    changes[field] = isSecretField(table, field)
      ? { before: was == null ? null : MASKED, after: is == null ? null : MASKED }
      : { before: plain(was), after: plain(is) };
  }
  return changes;
}
