import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth';
import { ConsoleCookies } from './console-cookies.service';
import { ConsoleCsrfGuard } from './console-csrf.guard';
import { ConsolePages } from './console-pages.service';
import { ConsoleSessionController } from './console-session.controller';
import { ConsoleSessionService } from './console-session.service';
import { ConsoleSession } from './entities/console-session.entity';
import { ConsoleSessionRepository } from './repositories/console-session.repository';

/**
 * The staff console (README "Staff console"): its built pages at /console and its browser session at
 * /console/session (a refresh token in an HttpOnly cookie, CSRF-protected POSTs, an idle timeout), on the auth
 * module's password login and token machinery.
 */
@Module({
  imports: [AuthModule, TypeOrmModule.forFeature([ConsoleSession])],
  controllers: [ConsoleSessionController],
  providers: [ConsoleCookies, ConsoleCsrfGuard, ConsolePages, ConsoleSessionService, ConsoleSessionRepository],
})
export class ConsoleModule {}
