import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/request-context';
import { MessagingRecipients, PushSubscriptionColumns } from '../../messaging';
import { AccountsService } from './accounts.service';
import { AccountRepository } from '../repositories/account.repository';

/** The messaging module's recipients port, answered from the app's account tables (within `ctx.appId`). */
@Injectable()
export class AccountRecipients extends MessagingRecipients {
  constructor(
    private readonly accounts: AccountsService,
    private readonly repository: AccountRepository,
  ) {
    super();
  }

  userEmails(ctx: RequestContext, ids: number[]): Promise<Map<number, string>> {
    return this.accounts.userEmails(ctx, ids);
  }

  pushSubscriptionOf(ctx: RequestContext, customerId: number): Promise<PushSubscriptionColumns | null> {
    return this.repository.pushSubscriptionOf(ctx, customerId);
  }

  forgetPushSubscription(ctx: RequestContext, customerId: number): Promise<void> {
    return this.repository.forgetPushSubscription(ctx, customerId);
  }
}
