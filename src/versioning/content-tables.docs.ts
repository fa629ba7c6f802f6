/* OpenAPI descriptions of content-tables.controller.ts, too long to stand in its decorators. */

export const CONTENT_ROWS_DESCRIPTION =
  'Each record is the content row of its version in that stage (its columns but secret ones) ' +
  "with `_id` (the encrypted record id, for /content/*) and the version's meta fields.";

export const CONTENT_ROWS_ANSWER =
  '{ status: Success, data: [{ _id, …columns, meta_master_id, meta_current_id, meta_title, meta_status, ' +
  'meta_updated, meta_publish_set_date, meta_publish_expire_date }], paging: { page, perPage, hasMore } }';
