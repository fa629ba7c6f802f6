/* OpenAPI descriptions of audit.controller.ts, too long to stand in its decorators. */

export const AUDIT_LOG_DESCRIPTION =
  'Every staff action that changed something (refund, cancel, publish, roll back, ' +
  'staff and settings changes…), written in the transaction of the change: ' +
  'who (actor), what (action), which record (table, recordId), when, from which ' +
  'address, with the before and after of the fields it changed (secrets masked). ' +
  'Filters: actor, action, table, recordId, from/to. Index-backed: a page costs the same whatever the number of rows.';
