/* OpenAPI descriptions of order-status.controller.ts, too long to stand in its decorators. */

export const GEN_CODE_DESCRIPTION =
  "The code holds `https://<app domain>/?code=<id>`: a URL of the app's own site " +
  "naming the number, nothing secret. The confirmation email links the order's code.";

export const ORDER_STATUS_ANSWER =
  '{ status: Success, data: { orderStatus, orderStatusLabel, paymentStatus, giftTokens? } }: giftTokens [{ id, ' +
  'token_value, product_id, order_item_id, status, product_title }] once a paid order has gift digital items';
