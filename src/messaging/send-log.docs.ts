/* OpenAPI descriptions of send-log.controller.ts, too long to stand in its decorators. */

export const LIST_SEND_LOG_ANSWER =
  '{ status: Success, data: [{ id, event, templateID, email, subject, status, attempts, ' +
  'lastError, linkedTable, masterID, created, sent }], paging: { perPage, hasMore, nextCursor } }';

export const SEND_LOG_MAIL_ANSWER =
  '{ status: Success, data: { id, event, templateID, email, from, cc, bcc, subject, ' +
  'contentType, html, text, status, attempts, lastError, created, sent, nextAttempt, … } }';
