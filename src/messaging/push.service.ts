import { Agent } from 'node:https';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { SitesService } from '../app-context';
import { IdCipherService } from '../common/id-cipher.service';
import { RequestContext } from '../common/request-context';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { SendPushRequest } from './notification.dto';
import { MessagingRecipients, PushSubscriptionColumns } from './recipients.port';

interface PushSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

const PUSH_TIMEOUT_MS = 10_000;
const PUSH_TTL_SECONDS = 86_400;

/**
 * Web push to a customer's stored subscription (core_customers.pushsubscription, p256dh, auth), signed
 * with the tenant's VAPID keys (core_sites.vapid_*), else the VAPID_* variables. Every failure is reported
 * as `false` (the endpoint answers `{ status: Error }`); a subscription the push service reports gone
 * (404/410) is cleared so it is not tried again.
 */
@Injectable()
export class PushService {
  private readonly logger = new Logger(PushService.name);
  private readonly insecureAgent: Agent | undefined;

  constructor(
    private readonly recipients: MessagingRecipients,
    private readonly cipher: IdCipherService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly sites: SitesService,
  ) {
    this.insecureAgent = config.pushInsecureTls ? new Agent({ rejectUnauthorized: false }) : undefined;
  }

  async send(ctx: RequestContext, request: SendPushRequest): Promise<boolean> {
    try {
      return await this.deliver(ctx, request);
    } catch (error) {
      this.logger.error(`Push for app ${ctx.appId} failed: ${(error as Error).message}`);
      return false;
    }
  }

  private async deliver(ctx: RequestContext, request: SendPushRequest): Promise<boolean> {
    const site = ctx.app;
    const customerId = this.cipher.decryptId(site.id, request.customerID);
    if (customerId === null) return false;
    const customer = await this.recipients.pushSubscriptionOf(ctx, customerId);
    if (!customer) return false;
    const subscription = toSubscription(customer);
    if (!subscription) return false;

    const tenantPrivateKey = site.vapid_public_key ? (await this.sites.secretsOf(ctx, site.id))?.vapid_private_key : null;
    const tenantKeys = site.vapid_public_key && tenantPrivateKey;
    const publicKey = tenantKeys ? site.vapid_public_key : this.config.vapid.publicKey;
    const privateKey = tenantKeys ? tenantPrivateKey : this.config.vapid.privateKey;
    const subject = site.vapid_subject || this.config.vapid.subject || `mailto:${site.email_from || `no-reply@${site.domain}`}`;
    if (!publicKey || !privateKey) return false;

    const payload = JSON.stringify({ title: request.title || 'Notification', body: request.message, data: request.data ?? {} });
    // Loaded at the first push, not at start: most instances never send one.
    const webpush = require('web-push') as typeof import('web-push');
    try {
      await webpush.sendNotification(subscription, payload, {
        vapidDetails: { subject, publicKey, privateKey },
        TTL: PUSH_TTL_SECONDS,
        timeout: PUSH_TIMEOUT_MS,
        ...(this.insecureAgent ? { agent: this.insecureAgent } : {}),
      });
      return true;
    } catch (error) {
      const statusCode = (error as { statusCode?: number }).statusCode;
      if (statusCode === 404 || statusCode === 410) {
        await this.recipients.forgetPushSubscription(ctx, customer.id);
      }
      this.logger.warn(`Push to customer ${customer.id} of app ${site.id} failed: ${statusCode ?? ''} ${(error as Error).message}`);
      return false;
    }
  }
}

/**
 * The subscription of a customer row: `pushsubscription` holds the browser's subscription JSON
 * (`{ endpoint, keys: { p256dh, auth } }`) or only the endpoint URL; the p256dh and auth columns win when set.
 */
export function toSubscription(row: Pick<PushSubscriptionColumns, 'pushsubscription' | 'p256dh' | 'auth'>): PushSubscription | null {
  const stored = row.pushsubscription?.trim();
  if (!stored) return null;
  let endpoint: unknown = stored;
  let keys: Record<string, unknown> = {};
  if (stored.startsWith('{')) {
    try {
      const parsed = JSON.parse(stored) as { endpoint?: unknown; keys?: Record<string, unknown> };
      endpoint = parsed.endpoint;
      keys = parsed.keys ?? {};
    } catch {
      return null;
    }
  }
  const p256dh = row.p256dh || keys.p256dh;
  const auth = row.auth || keys.auth;
  if (typeof endpoint !== 'string' || !endpoint.startsWith('https://') || typeof p256dh !== 'string' || typeof auth !== 'string')
    return null;
  return { endpoint, keys: { p256dh, auth } };
}
