import { Injectable } from '@nestjs/common';
import { RequestContext } from '../common/request-context';
import { NotificationLog } from './entities/notification-log.entity';
import { NotificationSenderService } from './notification-sender.service';
import { FailedMail, NotificationLogRepository } from './repositories/notification-log.repository';

/**
 * The outbox's dead letters for operators (`npm run cli -- mail:failed`, `mail:retry`). A row is Failed once
 * NotificationSenderService counted NOTIFY_MAX_ATTEMPTS refusals by the mail server (an unreachable server counts
 * none); the sender claims only Pending rows that are due. Retrying puts a Failed row back to Pending, due
 * now, with its attempts counted from zero again (last_error stays until a send succeeds), and once that
 * committed every instance's sender is told, as after any queued mail.
 */
@Injectable()
export class FailedMailsService {
  constructor(
    private readonly log: NotificationLogRepository,
    private readonly sender: NotificationSenderService,
  ) {}

  /** `ctx`'s app's Failed rows, newest first, at most `limit`, and how many there are. */
  async list(ctx: RequestContext, limit: number): Promise<{ total: number; mails: FailedMail[] }> {
    return this.log.failed(ctx, limit);
  }

  /** One row's app and status, whichever app it is of (the operator names the row), or null. */
  async statusOf(ctx: RequestContext, id: number): Promise<Pick<NotificationLog, 'id' | 'app_id' | 'status'> | null> {
    return this.log.statusOf(ctx, id);
  }

  /** Puts `ctx`'s app's Failed rows, or only the row `id` (see NotificationLogRepository.requeueFailed), back in the queue; the ids, ascending. */
  async retry(ctx: RequestContext, id?: number): Promise<number[]> {
    const ids = (await this.log.requeueFailed(ctx, id)).sort((a, b) => a - b);
    if (ids.length > 0) await ctx.afterCommit(() => this.sender.queued());
    return ids;
  }
}
