/* OpenAPI descriptions of templates.controller.ts, too long to stand in its decorators. */

export const CREATE_TEMPLATE_DESCRIPTION =
  "order_confirmation, order_admin and order_refund replace the service's order mails for this app (their " +
  'merge fields are listed in docs/messaging.md); any other name is an event of /message/notification.';

export const PREVIEW_DESCRIPTION =
  'The saved template of the event, or the subject and content given (checked as a save ' +
  'would, not saved; with both given the event needs no saved template). Nothing is written.';

export const TEST_SEND_DESCRIPTION =
  'Rendered with the data given, else sample data; subject prefixed `TEST: `; To the address ' +
  'alone (no CC, no BCC). One Pending core_notification_log row, sent by the background sender.';
