import { CallHandler, ExecutionContext, Injectable, NestInterceptor, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { from, lastValueFrom, Observable } from 'rxjs';
import { TransactionalConnection } from '../database/transactional-connection';
import { RequestWithContext } from './request-context';

const TRANSACTIONAL = 'transactional';

/**
 * Runs the route's use case in one transaction (Vendure's `@Transaction()`): opened after the guards,
 * committed when the handler returns, rolled back when it throws, retried whole on a serialization
 * failure or deadlock. Effects queued with `ctx.afterCommit` run after the commit.
 */
export const Transactional = () => SetMetadata(TRANSACTIONAL, true);

@Injectable()
export class TransactionInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector, private readonly connection: TransactionalConnection) {}

  intercept(execution: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (!this.reflector.get<boolean>(TRANSACTIONAL, execution.getHandler())) return next.handle();
    const ctx = execution.switchToHttp().getRequest<RequestWithContext>().ctx;
    if (!ctx) throw new Error('@Transactional() needs the RequestContext (AppContextGuard)');
    // Each attempt subscribes to next.handle() anew, which runs the handler again.
    return from(this.connection.inTransaction(ctx, () => lastValueFrom(next.handle(), { defaultValue: undefined })));
  }
}
