/** The raw baselines' single-row select of a token by token_value and app (validate-token.ts, nest-floor.ts). */
export const TOKEN_SELECT = `SELECT id, token_value, product_id, customer_id, order_id, status, expiry_date, activations,
  maximum_activations, created_date, last_activated
  FROM core_tokens WHERE token_value = $1 AND app_id = $2`;
