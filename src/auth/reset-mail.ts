import type { ISendMailOptions } from '@nestjs-modules/mailer';
import { Site } from '../app-context';
import { MailTemplates } from '../mail';

/** The sender of an app's mails: its email_from when that is an address, else no-reply at its domain. */
export function senderOf(site: Site): string {
  return site.email_from && site.email_from.includes('@') ? site.email_from : `no-reply@${site.domain}`;
}

/** The reset mail: HTML from templates/reset-password.hbs (handlebars escapes every value), and a text part. */
export async function resetMail(
  templates: MailTemplates,
  site: Site,
  to: string,
  link: string,
  ttlSeconds: number,
): Promise<ISendMailOptions> {
  const minutes = String(Math.round(ttlSeconds / 60));
  const text = `Reset the password of your ${site.name} account: ${link}\nThe link works once and expires in ${minutes} minutes. If you did not ask for it, ignore this mail.`;
  const html = await templates.render('reset-password', { link, appName: site.name, minutes });
  return { from: senderOf(site), to, subject: `${site.name}: reset your password`, html, text };
}
