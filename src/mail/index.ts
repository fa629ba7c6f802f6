/** The mail module's public surface (the transport and the templates, below every domain): import from here. */
export { MailModule } from './mail.module';
export { MailTemplates } from './mail-templates';
