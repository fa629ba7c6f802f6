import { Injectable } from '@nestjs/common';
import { SitesService } from '../app-context';
import { TransactionalConnection } from '../database/transactional-connection';
import { TransactionScope } from '../database/transaction-scope';
import { FailedMail, FailedMails } from '../messaging';
import { CommandError } from './commands';

/** `mail:failed` and `mail:retry`: the outbox's Failed rows through the messaging module's FailedMails. */
@Injectable()
export class OutboxService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly sites: SitesService,
    private readonly failed: FailedMails,
  ) {}

  async listFailed(appId: number, limit: number): Promise<{ appID: number; total: number; mails: FailedMail[] }> {
    const scope = new TransactionScope();
    await this.existing(scope, appId);
    return { appID: appId, ...(await this.failed.list(scope, appId, limit)) };
  }

  /** One Failed mail (checked to be of `appId` when given), or every Failed mail of `appId`, back in the queue. */
  async retry(input: { id?: number; appId?: number }): Promise<{ appID: number; retried: number[] }> {
    const scope = new TransactionScope();
    return this.connection.inTransaction(scope, async () => {
      if (input.id === undefined) {
        const appId = input.appId!;
        await this.existing(scope, appId);
        return { appID: appId, retried: await this.failed.retry(scope, { appId }) };
      }
      const row = await this.failed.statusOf(scope, input.id);
      if (!row || (input.appId !== undefined && row.app_id !== input.appId)) {
        throw new CommandError(`No outbox mail ${input.id}${input.appId !== undefined ? ` in app ${input.appId}` : ''}`);
      }
      if (row.status !== 'Failed') throw new CommandError(`Mail ${input.id} is ${row.status}, not Failed: nothing to retry`);
      return { appID: row.app_id, retried: await this.failed.retry(scope, { id: input.id, appId: row.app_id }) };
    });
  }

  private async existing(scope: TransactionScope, appId: number): Promise<void> {
    if (!(await this.sites.findShown(scope, appId))) throw new CommandError(`App ${appId} not found`);
  }
}
