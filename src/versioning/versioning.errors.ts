import { errorTable } from '../common/api-error';

/** Versioning's failures other than validation errors (those name a field: ApiError.field). */
export const versioningError = errorTable({
  RECORD_NOT_FOUND: { status: 404, message: 'Record not found' },
  /** expectedCurrentId is stale, or another save of the record won the race. */
  CONCURRENT_CHANGE: { status: 409, message: 'The record was changed by someone else; reload it and try again' },
  /** An edit of a deleted record. */
  RECORD_DELETED: { status: 409, message: 'The record is deleted; roll it back to an earlier version to restore it' },
  /** A lifecycle action the record's state does not allow; detail: "<action> a record whose current version is <status>". */
  CANNOT_TRANSITION: { status: 409, message: (detail) => `Cannot ${detail}` },
  /** A rollback to the version that is current already. */
  ALREADY_CURRENT: { status: 409, message: 'This version is already the current one' },
});

export type VersioningErrorCode = keyof typeof versioningError.table;
