/* OpenAPI descriptions of metrics.controller.ts, too long to stand in its decorators. */

export const METRICS_DESCRIPTION =
  'Outside the base path, no tenant, not rate limited. With METRICS_TOKEN ' +
  'set, `Authorization: Bearer <METRICS_TOKEN>` is required (401 otherwise). ' +
  'http_request_duration_seconds{method,route,status} (histogram; route is the route template, `unmatched` for no route); ' +
  'db_pool_connections, db_pool_idle_connections, db_pool_waiting_requests, db_pool_max_connections; ' +
  'outbox_pending_notifications, outbox_oldest_pending_age_seconds (whole database, ' +
  'read at scrape time; NaN when the database did not answer within 1 s); ' +
  'job_runs_total{job}, job_failures_total{job}, job_last_success_timestamp_seconds{job} (job: notification_sender, content_expiry); ' +
  'rate_limit_rejections_total{reason,route}; and the process_* and nodejs_* defaults of prom-client. Scrape each instance directly.';
