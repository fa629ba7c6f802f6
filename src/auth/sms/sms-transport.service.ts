import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { outboxDir } from '../../database/embedded-database';

export interface SmsMessage {
  to: string;
  body: string;
}

const GATEWAY_TIMEOUT_MS = 10_000;

/**
 * The one way SMS leaves the service (docs/auth.md "Configuration"): SMS_WEBHOOK_URL gets POST JSON `{ to, body }` with
 * SMS_WEBHOOK_TOKEN as bearer when set; without a gateway each message is a JSON file in DATA_DIR/sms.
 */
@Injectable()
export class SmsTransportService {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  async send(message: SmsMessage): Promise<void> {
    const url = this.config.smsWebhookUrl;
    if (!url) {
      const file = join(
        outboxDir(this.config, 'sms'),
        `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.json`,
      );
      await writeFile(file, JSON.stringify(message, null, 2));
      return;
    }
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.config.smsWebhookToken) headers.authorization = `Bearer ${this.config.smsWebhookToken}`;
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify(message),
      signal: AbortSignal.timeout(GATEWAY_TIMEOUT_MS),
    });
    if (!response.ok) throw new Error(`SMS gateway answered ${response.status}`);
  }
}
