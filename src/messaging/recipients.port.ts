import { RequestContext } from '../common/request-context';

/** A customer's stored web-push subscription (secret columns of core_customers). */
export interface PushSubscriptionColumns {
  id: number;
  pushsubscription: string | null;
  p256dh: string | null;
  auth: string | null;
}

/**
 * What messaging needs to know about the app's accounts, defined here and implemented by the auth module
 * (provided globally), so messaging sits below auth and auth can send its mails through the outbox.
 * Every method is scoped to `ctx.appId`.
 */
export abstract class MessagingRecipients {
  /** core_users.user_email of user ids of the app (notification cc/bcc), in one read. */
  abstract userEmails(ctx: RequestContext, ids: number[]): Promise<Map<number, string>>;
  /** A customer's stored web-push subscription; null without the customer. */
  abstract pushSubscriptionOf(ctx: RequestContext, customerId: number): Promise<PushSubscriptionColumns | null>;
  /** Forgets a customer's subscription (the push service answered that it is gone). */
  abstract forgetPushSubscription(ctx: RequestContext, customerId: number): Promise<void>;
}
