import { Injectable } from '@nestjs/common';
import { TransactionScope } from '../database/transaction-scope';
import { TransactionalConnection } from '../database/transactional-connection';
import { NotificationLog } from './entities/notification-log.entity';
import { NotificationSender } from './notification-sender.service';

/** A Failed outbox row as an operator sees it (no body, no claim). */
export type FailedMail = Pick<NotificationLog, 'id' | 'app_id' | 'event' | 'email' | 'subject' | 'attempts' | 'last_error' | 'created'>;

const SHOWN = { id: true, app_id: true, event: true, email: true, subject: true, attempts: true, last_error: true, created: true } as const;

/**
 * The outbox's dead letters for operators (`npm run cli -- mail:failed`, `mail:retry`). A row is Failed once
 * NotificationSender counted NOTIFY_MAX_ATTEMPTS refusals by the mail server (an unreachable server counts
 * none); the sender claims only Pending rows that are due. Retrying puts a Failed row back to Pending, due
 * now, with its attempts counted from zero again (last_error stays until a send succeeds), and once that
 * committed every instance's sender is told, as after any queued mail.
 */
@Injectable()
export class FailedMails {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly sender: NotificationSender,
  ) {}

  /** The app's Failed rows, newest first, at most `limit`, and how many there are. */
  async list(scope: TransactionScope, appId: number, limit: number): Promise<{ total: number; mails: FailedMail[] }> {
    const [mails, total] = await this.connection
      .repository(scope, NotificationLog)
      .findAndCount({ select: SHOWN, where: { app_id: appId, status: 'Failed' }, order: { id: 'DESC' }, take: limit });
    return { total, mails };
  }

  /** One row's app and status, or null. */
  async statusOf(scope: TransactionScope, id: number): Promise<Pick<NotificationLog, 'id' | 'app_id' | 'status'> | null> {
    return this.connection.repository(scope, NotificationLog).findOne({ select: { id: true, app_id: true, status: true }, where: { id } });
  }

  /** Puts the Failed rows of `where` (one row, or all of an app) back in the queue; the ids, ascending. */
  async retry(scope: TransactionScope, where: { id?: number; appId: number }): Promise<number[]> {
    const query = this.connection
      .repository(scope, NotificationLog)
      .createQueryBuilder()
      .update()
      .set({ status: 'Pending', attempts: 0, next_attempt: () => 'now()', claim_token: null })
      .where(`status = 'Failed' AND app_id = :appId`, { appId: where.appId });
    if (where.id !== undefined) query.andWhere('id = :id', { id: where.id });
    const result = await query.returning(['id']).execute();
    const ids = (result.raw as { id: number }[]).map((row) => row.id).sort((a, b) => a - b);
    if (ids.length > 0) await scope.afterCommit(() => this.sender.queued());
    return ids;
  }
}
