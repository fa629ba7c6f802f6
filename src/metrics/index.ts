/** The metrics module's public surface: import from here, not from its files. */
export { MetricsModule } from './metrics.module';
export { MetricsService, UNMATCHED_ROUTE } from './metrics.service';
export type { JobName, OutboxState, PaymentEventsState, RateLimitReason, RouteRecorder } from './metrics.service';
