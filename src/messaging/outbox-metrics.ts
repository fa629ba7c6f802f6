import { Injectable, OnModuleInit } from '@nestjs/common';
import { TransactionScope } from '../database/transaction-scope';
import { TransactionalConnection } from '../database/transactional-connection';
import { Metrics, OutboxState } from '../metrics';

/**
 * Reads the outbox (Pending rows of core_notification_log) for the metrics at scrape time: how many, and how
 * long the oldest has waited. The oldest is the lowest id, so the count and the minimum both come from the
 * partial due index (status = 'Pending'), and the row itself is one primary-key lookup.
 */
// Raw SQL: an aggregate over the partial index joined back to one row, in one statement per scrape.
export const OUTBOX_STATE_SQL = `SELECT due.pending::int AS pending, COALESCE(EXTRACT(EPOCH FROM now() - log.created), 0)::float8 AS age
  FROM (SELECT count(*) AS pending, min(id) AS oldest FROM core_notification_log WHERE status = 'Pending') due
  LEFT JOIN core_notification_log log ON log.id = due.oldest`;

@Injectable()
export class OutboxMetrics implements OnModuleInit {
  private readonly scope = new TransactionScope();

  constructor(
    private readonly connection: TransactionalConnection,
    private readonly metrics: Metrics,
  ) {}

  onModuleInit(): void {
    this.metrics.readOutboxWith(() => this.read());
  }

  async read(): Promise<OutboxState> {
    const [row] = await this.connection.manager(this.scope).query(OUTBOX_STATE_SQL);
    return { pending: row.pending, oldestAgeSeconds: Math.max(0, row.age) };
  }
}
