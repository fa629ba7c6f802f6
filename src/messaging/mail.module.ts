import { Global, Module } from '@nestjs/common';
import { MailTransport } from './mail-transport.service';

@Global()
@Module({ providers: [MailTransport], exports: [MailTransport] })
export class MailModule {}
