/* OpenAPI descriptions of staff-customers.controller.ts, too long to stand in its decorators. */

export const LIST_CUSTOMERS_ANSWER =
  '{ status: Success, data: [{ id, email, firstname, lastname, displayname, mobile, ' +
  'emailverified, passwordSet, created, updated }], paging: { page, perPage, hasMore } }';

export const LIST_CUSTOMERS_DESCRIPTION =
  'Guest placeholders (the customer rows of orders placed without an account: no ' +
  'email, phone or name) are left out. Never a password hash or any other secret.';
