import type { TenantSite } from '../../common/request-context';
import { MailTemplates } from '../../mail';
import type { OutboxMail } from '../../messaging';

/** The sender of an app's mails: its email_from when that is an address, else no-reply at its domain. */
export function senderOf(site: TenantSite): string {
  return site.email_from && site.email_from.includes('@') ? site.email_from : `no-reply@${site.domain}`;
}

/** The account a reset mail goes to. */
export interface ResetRecipient {
  table: string;
  id: number;
  email: string;
}

/** The reset mail of `site`, for its outbox: HTML from templates/reset-password.hbs (handlebars escapes every value), and a text part. */
export async function resetMail(
  templates: MailTemplates,
  site: TenantSite,
  to: ResetRecipient,
  link: string,
  ttlSeconds: number,
): Promise<OutboxMail> {
  const minutes = String(Math.round(ttlSeconds / 60));
  const text =
    `Reset the password of your ${site.name} account: ${link}\n` +
    `The link works once and expires in ${minutes} minutes. If you did not ask for it, ignore this mail.`;
  const html = await templates.render('reset-password', { link, appName: site.name, minutes });
  return {
    event: 'password_reset',
    from: senderOf(site),
    to: to.email,
    subject: `${site.name}: reset your password`,
    html,
    text,
    linkedTable: to.table,
    masterId: to.id,
  };
}
