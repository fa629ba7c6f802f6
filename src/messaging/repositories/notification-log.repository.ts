import { Injectable } from '@nestjs/common';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { RequestContext } from '../../common/request-context';
import { TransactionScope } from '../../database/transaction-scope';
import { TransactionalConnection } from '../../database/transactional-connection';
import { NotificationLog, NotificationStatus } from '../entities/notification-log.entity';

/** The columns a mail is written to the outbox with, besides its app. */
const PENDING_COLUMNS = [
  'notification_id',
  'event',
  'email',
  'linked_table',
  'master_id',
  'email_from',
  'email_cc',
  'email_bcc',
  'subject',
  'body',
  'text_body',
  'content_type',
] as const satisfies readonly (keyof NotificationLog)[];

/** A mail as written to the outbox (a Pending core_notification_log row); its app is the context's. */
export type PendingMail = Pick<NotificationLog, (typeof PENDING_COLUMNS)[number]>;

/** A claimed Pending row: the mail as merged at request time. */
export type ClaimedMail = Pick<
  NotificationLog,
  'id' | 'app_id' | 'email' | 'email_from' | 'email_cc' | 'email_bcc' | 'subject' | 'body' | 'text_body' | 'content_type' | 'attempts'
>;
const CLAIMED_COLUMNS: (keyof ClaimedMail)[] = [
  'id',
  'app_id',
  'email',
  'email_from',
  'email_cc',
  'email_bcc',
  'subject',
  'body',
  'text_body',
  'content_type',
  'attempts',
];

/** A Failed outbox row as an operator sees it (no body, no claim). */
export type FailedMail = Pick<NotificationLog, 'id' | 'app_id' | 'event' | 'email' | 'subject' | 'attempts' | 'last_error' | 'created'>;
const FAILED_SHOWN = {
  id: true,
  app_id: true,
  event: true,
  email: true,
  subject: true,
  attempts: true,
  last_error: true,
  created: true,
} as const;

/** The send log's filters and position (POST /message/log); every filter is a column of an index on (app_id, …, created DESC, id DESC). */
export interface SendLogQuery {
  status?: NotificationStatus;
  /** The To address, compared without case (the lower(email) index). */
  email?: string;
  event?: string;
  /** created >= from, created < to. */
  from?: string;
  to?: string;
  /** The last row of the previous page: rows strictly after it in (created DESC, id DESC). */
  after?: { created: string; id: number };
  limit: number;
}

/** A row of the send log's list: never the body. `created_key` is `created` to the microsecond (the cursor). */
export type SendLogRow = Pick<
  NotificationLog,
  | 'id'
  | 'notification_id'
  | 'event'
  | 'email'
  | 'subject'
  | 'status'
  | 'attempts'
  | 'last_error'
  | 'created'
  | 'sent'
  | 'linked_table'
  | 'master_id'
> & { created_key: string };
const SEND_LOG_LISTED = [
  'id',
  'notification_id',
  'event',
  'email',
  'subject',
  'status',
  'attempts',
  'last_error',
  'created',
  'sent',
  'linked_table',
  'master_id',
] as const satisfies readonly (keyof NotificationLog)[];

/** One row as the send log reads it: the mail as merged, without its claim. */
export type SendLogMail = Omit<NotificationLog, 'site' | 'notification' | 'claim_token'>;

// Raw SQL: a measured hot path (/message/notification, every outbox mail): TypeORM's insert builder cost a
// measurable share of each request's CPU. A fixed statement per number of rows (the order mails are two, in one round trip).
const insertPendingSql = (rows: number) =>
  `INSERT INTO core_notification_log (app_id, ${PENDING_COLUMNS.join(', ')}) VALUES ${Array.from(
    { length: rows },
    (_, row) => `($1, ${PENDING_COLUMNS.map((_, column) => `$${2 + row * PENDING_COLUMNS.length + column}`).join(', ')})`,
  ).join(', ')} RETURNING id`;
const INSERT_ONE_PENDING_SQL = insertPendingSql(1);

// Raw SQL: once per mail, the sender's hot path; the query builder cost a measurable share of the sender's CPU per mail.
const MARK_SENT_SQL = `UPDATE core_notification_log SET status = 'Sent', sent = now(), attempts = attempts + 1, claim_token = NULL, last_error = NULL
  WHERE id = $1 AND claim_token = $2`;

/**
 * The outbox's state for the metrics: how many rows are Pending, and how long the oldest has waited. The oldest
 * is the lowest id, so the count and the minimum both come from the partial due index (status = 'Pending'), and
 * the row itself is one primary-key lookup.
 */
// Raw SQL: an aggregate over the partial index joined back to one row, in one statement per scrape.
export const OUTBOX_STATE_SQL = `SELECT due.pending::int AS pending, COALESCE(EXTRACT(EPOCH FROM now() - log.created), 0)::float8 AS age
  FROM (SELECT count(*) AS pending, min(id) AS oldest FROM core_notification_log WHERE status = 'Pending') due
  LEFT JOIN core_notification_log log ON log.id = due.oldest`;

/**
 * core_notification_log: the notification log, which is also the outbox. Writes of a request are the
 * request's app's; the sender's and the metrics' statements work across apps (the outbox is one queue).
 */
@Injectable()
export class NotificationLogRepository {
  constructor(private readonly connection: TransactionalConnection) {}

  /** Writes Pending mails of `ctx`'s app in the context's transaction, in one statement; their rows' ids, in order. */
  async insertPending(ctx: RequestContext, mails: PendingMail[]): Promise<number[]> {
    if (mails.length === 0) return [];
    const values: unknown[] = [ctx.appId];
    for (const mail of mails) for (const column of PENDING_COLUMNS) values.push(mail[column]);
    const sql = mails.length === 1 ? INSERT_ONE_PENDING_SQL : insertPendingSql(mails.length);
    const rows: { id: number }[] = await this.connection.manager(ctx).query(sql, values);
    return rows.map((row) => row.id); // PostgreSQL returns the rows of one VALUES list in its order
  }

  /**
   * Claims up to `batchSize` due rows for `token`, leased for `leaseMs`: one UPDATE whose subquery selects
   * them `FOR UPDATE SKIP LOCKED`, so concurrent claims never take the same row.
   */
  async claimDue(scope: TransactionScope, token: string, batchSize: number, leaseMs: number): Promise<ClaimedMail[]> {
    const due = this.connection
      .repository(scope, NotificationLog)
      .createQueryBuilder('due')
      .select('due.id')
      .where(`due.status = 'Pending' AND due.next_attempt <= now()`)
      .orderBy('due.next_attempt')
      .addOrderBy('due.id')
      .limit(batchSize)
      .setLock('pessimistic_write')
      .setOnLocked('skip_locked');
    const result = await this.connection
      .repository(scope, NotificationLog)
      .createQueryBuilder()
      .update()
      .set({ claim_token: token, next_attempt: () => `now() + :leaseMs * interval '1 millisecond'` })
      .where(`id IN (${due.getQuery()})`)
      .setParameters({ leaseMs })
      .returning(CLAIMED_COLUMNS)
      .execute();
    return result.raw as ClaimedMail[];
  }

  /** A claimed row was delivered. */
  async markSent(scope: TransactionScope, id: number, token: string): Promise<void> {
    await this.connection.manager(scope).query(MARK_SENT_SQL, [id, token]);
  }

  /** Puts a claimed row back, due at once, without counting an attempt (`error` kept when given). */
  async putBack(scope: TransactionScope, id: number, token: string, error: string | null): Promise<void> {
    await this.settle(scope, id, token, { next_attempt: () => 'now()', last_error: () => 'COALESCE(:error, last_error)' }, { error });
  }

  /** Counts a refused attempt: the row waits `delayMs` for its next one, or is Failed for good. */
  async recordFailure(
    scope: TransactionScope,
    id: number,
    token: string,
    failure: { attempts: number; failed: boolean; error: string; delayMs: number },
  ): Promise<void> {
    await this.settle(
      scope,
      id,
      token,
      {
        attempts: failure.attempts,
        status: failure.failed ? 'Failed' : 'Pending',
        last_error: failure.error,
        next_attempt: () => `now() + :delayMs * interval '1 millisecond'`,
      },
      { delayMs: failure.delayMs },
    );
  }

  /** How many rows are Pending and the age of the oldest, in seconds (0 without one). */
  async pendingState(scope: TransactionScope): Promise<{ pending: number; age: number }> {
    const [row] = await this.connection.query<{ pending: number; age: number }>(scope, OUTBOX_STATE_SQL);
    return row;
  }

  /** The app's Failed rows, newest first, at most `limit`, and how many there are. */
  async failed(ctx: RequestContext, limit: number): Promise<{ total: number; mails: FailedMail[] }> {
    const [mails, total] = await this.connection
      .repository(ctx, NotificationLog)
      .findAndCount({ select: FAILED_SHOWN, where: { app_id: ctx.appId, status: 'Failed' }, order: { id: 'DESC' }, take: limit });
    return { total, mails };
  }

  /** One row's app and status, whichever app it is of (an operator names the row), or null. */
  async statusOf(scope: TransactionScope, id: number): Promise<Pick<NotificationLog, 'id' | 'app_id' | 'status'> | null> {
    return this.connection.repository(scope, NotificationLog).findOne({ select: { id: true, app_id: true, status: true }, where: { id } });
  }

  /**
   * Puts Failed rows back in the queue, due now, attempts from zero; their ids. Without `id`, every one of `ctx`'s
   * app; with `id`, that row, of `ctx`'s app when the context names one (an operator's context names none: the
   * row names its app).
   */
  async requeueFailed(ctx: RequestContext, id?: number): Promise<number[]> {
    const query = this.connection
      .repository(ctx, NotificationLog)
      .createQueryBuilder()
      .update()
      .set({ status: 'Pending', attempts: 0, next_attempt: () => 'now()', claim_token: null })
      .where(`status = 'Failed'`);
    if (id === undefined || ctx.site) query.andWhere('app_id = :appId', { appId: ctx.appId });
    if (id !== undefined) query.andWhere('id = :id', { id });
    const result = await query.returning(['id']).execute();
    return (result.raw as { id: number }[]).map((row) => row.id);
  }

  /**
   * One page of the send log of `ctx`'s app, newest first (created DESC, id DESC), from the keyset `after`. Each
   * filter has its index (migration 1764002100000), so the page walks about `limit` index entries however deep
   * it is; test/messaging/send-log-plan.e2e.ts checks the plans.
   */
  async sendLog(ctx: RequestContext, query: SendLogQuery): Promise<SendLogRow[]> {
    const qb = this.connection
      .repository(ctx, NotificationLog)
      .createQueryBuilder('l')
      .select(SEND_LOG_LISTED.map((column) => `l.${column} AS "${column}"`))
      .addSelect(`to_char(l.created AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`, 'created_key')
      .where('l.app_id = :appId', { appId: ctx.appId })
      .orderBy('l.created', 'DESC')
      .addOrderBy('l.id', 'DESC')
      .limit(query.limit);
    if (query.status) qb.andWhere('l.status = :status', { status: query.status });
    if (query.email) qb.andWhere('lower(l.email) = lower(:email)', { email: query.email });
    if (query.event) qb.andWhere('l.event = :event', { event: query.event });
    if (query.from) qb.andWhere('l.created >= :from', { from: query.from });
    if (query.to) qb.andWhere('l.created < :to', { to: query.to });
    if (query.after)
      qb.andWhere('(l.created, l.id) < (CAST(:afterCreated AS timestamptz), :afterId)', {
        afterCreated: query.after.created,
        afterId: query.after.id,
      });
    return qb.getRawMany<SendLogRow>();
  }

  /** One row of `ctx`'s app (another app's id reads as none), without its claim; null when there is none. */
  async readOne(ctx: RequestContext, id: number): Promise<SendLogMail | null> {
    return this.connection.repository(ctx, NotificationLog).findOne({
      select: {
        id: true,
        app_id: true,
        notification_id: true,
        event: true,
        email: true,
        linked_table: true,
        master_id: true,
        status: true,
        created: true,
        sent: true,
        email_from: true,
        email_cc: true,
        email_bcc: true,
        subject: true,
        body: true,
        text_body: true,
        content_type: true,
        attempts: true,
        next_attempt: true,
        last_error: true,
      },
      where: { id, app_id: ctx.appId },
    });
  }

  /** Updates a claimed row only while it still holds `token` (a row whose lease ran out may be another's now). */
  private async settle(
    scope: TransactionScope,
    id: number,
    token: string,
    values: QueryDeepPartialEntity<NotificationLog>,
    parameters: Record<string, unknown>,
  ): Promise<void> {
    await this.connection
      .repository(scope, NotificationLog)
      .createQueryBuilder()
      .update()
      .set({ ...values, claim_token: null })
      .where('id = :id AND claim_token = :token', { id, token })
      .setParameters(parameters)
      .execute();
  }
}
