import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, EntityTarget, ObjectLiteral, Repository } from 'typeorm';
import { inTransaction } from './transaction';
import { TransactionScope } from './transaction-scope';

/**
 * The one way services reach the database (Vendure's TransactionalConnection): the scope's transaction
 * when its use case opened one, the pool otherwise. A service never holds the DataSource itself, so a
 * caller's transaction cannot be left by accident.
 */
@Injectable()
export class TransactionalConnection {
  constructor(@InjectDataSource() readonly dataSource: DataSource) {}

  manager(scope: TransactionScope): EntityManager {
    return scope.manager ?? this.dataSource.manager;
  }

  /**
   * The manager of the transaction the caller's edge opened (a @Transactional() route, the webhook, a job,
   * a CLI command). A service method whose writes belong together asks for it instead of opening one, so
   * transactions open only at edges; calling it outside a transaction is a programming error.
   */
  transactionManager(scope: TransactionScope): EntityManager {
    if (!scope.manager) throw new Error('This use case must run inside a transaction opened at its edge');
    return scope.manager;
  }

  repository<Entity extends ObjectLiteral>(scope: TransactionScope, entity: EntityTarget<Entity>): Repository<Entity> {
    return this.manager(scope).getRepository(entity);
  }

  /**
   * Runs `work` in the scope's transaction: joins the open one, or opens one (retried on serialization
   * failure or deadlock) and, once it committed, runs the effects queued with `scope.afterCommit`.
   */
  async inTransaction<T>(scope: TransactionScope, work: (em: EntityManager) => Promise<T>): Promise<T> {
    if (scope.manager) return work(scope.manager);
    const result = await inTransaction(this.dataSource, async (em) => {
      scope.manager = em;
      scope.takePending(); // a retried attempt starts with no effects queued by the failed one
      try {
        return await work(em);
      } finally {
        scope.manager = undefined;
      }
    }).catch((error) => {
      scope.takePending();
      throw error;
    });
    for (const effect of scope.takePending()) await effect();
    return result;
  }
}
