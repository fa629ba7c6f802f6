/* OpenAPI descriptions of staff-customer.controller.ts, too long to stand in its decorators. */

export const STAFF_CUSTOMER_DESCRIPTION =
  'Orders as listOrders shows them (`ordersPage`), tokens as listTokens shows them (`tokensPage`, with the ' +
  'token values: customers.view goes to the same roles as orders.view); `perPage` for both (default 20).';
