import { CallHandler, ExecutionContext, Injectable, NestInterceptor, UseInterceptors } from '@nestjs/common';
import { from, lastValueFrom, Observable } from 'rxjs';
import { TransactionalConnection } from '../database/transactional-connection';
import { RequestWithContext } from './request-context';

/**
 * Runs the route's use case in one transaction (Vendure's `@Transaction()`): opened after the guards,
 * committed when the handler returns, rolled back when it throws, retried whole on a serialization
 * failure or deadlock. Effects queued with `ctx.afterCommit` run after the commit. Bound to the routes that
 * ask for it (after the global interceptors), so other routes do not pass through it at all.
 */
export const Transactional = () => UseInterceptors(TransactionInterceptor);

@Injectable()
export class TransactionInterceptor implements NestInterceptor {
  constructor(private readonly connection: TransactionalConnection) {}

  intercept(execution: ExecutionContext, next: CallHandler): Observable<unknown> {
    const ctx = execution.switchToHttp().getRequest<RequestWithContext>().ctx;
    if (!ctx) throw new Error('@Transactional() needs the RequestContext (AppContextGuard)');
    // Each attempt subscribes to next.handle() anew, which runs the handler again.
    return from(this.connection.inTransaction(ctx, () => lastValueFrom(next.handle(), { defaultValue: undefined })));
  }
}
