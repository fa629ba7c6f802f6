/* OpenAPI descriptions of staff.controller.ts, too long to stand in its decorators. */

export const STAFF_INVITE_DESCRIPTION =
  'The link is the password reset link (its lifetime and mail). Inviting the ' +
  'address of a removed staff member brings that account back with the new roles. ' +
  'The account cannot log in until the password is set.';
