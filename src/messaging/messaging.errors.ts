import { errorTable } from '../common/api-error';

/**
 * Messaging's failures other than validation errors (those name a field: ApiError.field). Every 401 of
 * messaging uses the `Error` envelope: the messaging controller answers each 401 (ApiError.unauthorized, the
 * site-id or bearer guard's) as AUTHENTICATION_FAILED. 403 is the shared ApiError.forbidden().
 */
export const messagingError = errorTable({
  /** Any 401, answered with its own message in the Error envelope. */
  AUTHENTICATION_FAILED: { status: 401, message: (message) => message, envelope: 'Error' },
  /** The app's queue of SQL merges is full, or a merge waited too long for its turn or a connection (Retry-After). */
  SQL_MERGES_BUSY: { status: 429, message: 'Too many SQL merges at once, try again later' },
  /** NOTIFY_ANON_PER_RECIPIENT mails to this address were queued in the window without an app admin's bearer (Retry-After). */
  TOO_MANY_TO_RECIPIENT: { status: 429, message: 'Too many notifications to this address, try again later' },
  /** NOTIFY_ANON_PER_TEMPLATE mails of this template were queued in the window without an app admin's bearer (Retry-After). */
  TOO_MANY_OF_TEMPLATE: { status: 429, message: 'Too many notifications of this event, try again later' },
  /** The send log: no mail of the request's app has this id (another app's mail answers the same). */
  MAIL_NOT_FOUND: { status: 404, message: 'Mail not found' },
  /** The send log's retry of a mail that is not Failed; detail: its status (Pending or Sent). */
  MAIL_NOT_FAILED: { status: 409, message: (status) => `The mail is ${status}: only a Failed mail can be retried` },
});
