import { Injectable } from '@nestjs/common';
import { ISendMailOptions, MailerService } from '@nestjs-modules/mailer';

/** A mail as the service's senders build it: nodemailer's message options (MailerService.sendMail's). */
export type MailMessage = ISendMailOptions;

/**
 * @deprecated Send with MailerService.sendMail. Kept only until the auth module's reset mail sends through
 * MailerService itself; it adds nothing.
 */
@Injectable()
export class MailTransport {
  constructor(private readonly mailer: MailerService) {}

  async send(message: MailMessage): Promise<{ messageId: string }> {
    const info = (await this.mailer.sendMail(message)) as { messageId: string };
    return { messageId: info.messageId };
  }
}
