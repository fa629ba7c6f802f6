import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../common/paths';
import { Site } from '../app-context/entities/site.entity';
import { MailMessage } from '../messaging/mail-transport.service';

let template: string | null = null;

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** The sender of an app's mails: its email_from when that is an address, else no-reply at its domain. */
export function senderOf(site: Site): string {
  return site.email_from && site.email_from.includes('@') ? site.email_from : `no-reply@${site.domain}`;
}

/** The reset mail from templates/reset-password.html ({{link}}, {{appName}}, {{minutes}}). */
export function resetMail(site: Site, to: string, link: string, ttlSeconds: number): MailMessage {
  template ??= readFileSync(join(projectRoot(), 'templates', 'reset-password.html'), 'utf8');
  const minutes = String(Math.round(ttlSeconds / 60));
  const values: Record<string, string> = { link: escapeHtml(link), appName: escapeHtml(site.name), minutes };
  const html = template.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => values[name] ?? whole);
  const text = `Reset the password of your ${site.name} account: ${link}\nThe link works once and expires in ${minutes} minutes. If you did not ask for it, ignore this mail.`;
  return { from: senderOf(site), to, subject: `${site.name}: reset your password`, html, text };
}
