import { Injectable } from '@nestjs/common';
import { RequestContext } from '../common/request-context';
import { TransactionalConnection } from '../database/transactional-connection';
import { FailedMail, FailedMailsService } from '../messaging';
import { CommandError } from './command-errors';

/** What `mail:retry` prints: the app and the mails put back in the queue. */
export type Retried = { appID: number; retried: number[] };

/** `mail:failed` and `mail:retry`: the outbox's Failed rows through the messaging module's FailedMailsService. */
@Injectable()
export class OutboxService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly failed: FailedMailsService,
  ) {}

  /** The Failed mails of the ctx's app, newest first. */
  async listFailed(ctx: RequestContext, limit: number): Promise<{ appID: number; total: number; mails: FailedMail[] }> {
    return { appID: ctx.appId, ...(await this.failed.list(ctx, limit)) };
  }

  /**
   * One Failed mail (checked to be of `appId` when given), or every Failed mail of the ctx's app (no `id`),
   * back in the queue; in the transaction of `ctx`, opened by the command's edge.
   */
  async retry(ctx: RequestContext, input: { id?: number; appId?: number }): Promise<Retried> {
    this.connection.transactionManager(ctx); // asserts the edge's transaction: the check and the retry belong together
    if (input.id === undefined) return { appID: ctx.appId, retried: await this.failed.retry(ctx) };
    const row = await this.failed.statusOf(ctx, input.id);
    if (!row || (input.appId !== undefined && row.app_id !== input.appId)) {
      throw new CommandError(`No outbox mail ${input.id}${input.appId !== undefined ? ` in app ${input.appId}` : ''}`);
    }
    if (row.status !== 'Failed') throw new CommandError(`Mail ${input.id} is ${row.status}, not Failed: nothing to retry`);
    return { appID: row.app_id, retried: await this.failed.retry(ctx, input.id) };
  }
}
