import { Module } from '@nestjs/common';
import { PasswordModule } from '../password/password.module';
import { SmsCodeRepository } from '../repositories/sms-code.repository';
import { SmsCodesService } from './sms-codes.service';
import { SmsTransportService } from './sms-transport.service';

/** SMS login codes and the gateway (or files) they leave through. */
@Module({
  imports: [PasswordModule],
  providers: [SmsCodeRepository, SmsTransportService, SmsCodesService],
  exports: [SmsTransportService, SmsCodesService],
})
export class SmsModule {}
