import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool } from 'pg';
import { DataSource, EntityManager, EntityTarget, ObjectLiteral, QueryFailedError, Repository } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { ReplicaReads } from './replica-reads';
import { SystemPool } from './system-pool';
import { inTransaction } from './transaction';
import { TransactionScope } from './transaction-scope';

/** Where a transaction runs: the request pool, or the system pool of payment events and jobs (system-pool.ts). */
export type PoolRole = 'request' | 'system';

/**
 * The one way services reach the database (Vendure's TransactionalConnection): the scope's transaction
 * when its use case opened one, the pool otherwise. A service never holds the DataSource itself, so a
 * caller's transaction cannot be left by accident.
 */
@Injectable()
export class TransactionalConnection {
  constructor(
    @InjectDataSource() readonly dataSource: DataSource,
    private readonly systemPool: SystemPool,
    private readonly replicas: ReplicaReads,
  ) {}

  /** The system pool's DataSource (the request pool's on the embedded database). */
  get systemDataSource(): DataSource {
    return this.systemPool.dataSource;
  }

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

  /**
   * The rows of one raw statement (a repository's hot read): in the scope's transaction when it has one, else
   * on a connection of TypeORM's own pool checked out for that statement alone. Outside a transaction,
   * `manager.query()` builds a QueryRunner, an EntityManager and an event broadcaster for the one statement
   * and runs it through two more async layers, a measurable share of a light route's CPU and garbage
   * (docs/performance.md "Figures that explain code choices"); the pool, the tenant's share of it, prepared statements and TypeORM's
   * QueryFailedError stay the same. Only for reads (SELECT): a read is skipped for a request whose client has
   * left (`scope.unwanted` is thrown instead), which must never happen to a write; and `manager.query()`
   * answers an UPDATE without RETURNING with its count as well.
   */
  async query<Row = Record<string, unknown>>(scope: TransactionScope, sql: string, parameters?: unknown[]): Promise<Row[]> {
    if (scope.manager) return scope.manager.query(sql, parameters);
    this.refuseUnwanted(scope);
    const client = await ((this.dataSource.driver as PostgresDriver).master as Pool).connect();
    try {
      this.refuseUnwanted(scope); // the wait for a connection is where a flood's requests spend their time
    } catch (error) {
      client.release();
      throw error;
    }
    // A connection that breaks while checked out emits 'error' (the pool listens only while it is idle): the
    // statement fails with it and the connection is dropped instead of going back to the pool.
    let broken: Error | undefined;
    const onError = (error: Error) => (broken = error);
    client.on('error', onError);
    try {
      return (await client.query(sql, parameters)).rows as Row[];
    } catch (error) {
      throw new QueryFailedError(sql, parameters, error as Error);
    } finally {
      client.removeListener('error', onError);
      client.release(broken);
    }
  }

  /**
   * Reads `query` did not run because the request's client had closed its connection (scope.unwanted):
   * under a flood, clients that give up would otherwise cost the database as much as those served.
   */
  readsSkipped = 0;

  private refuseUnwanted(scope: TransactionScope): void {
    const unwanted = scope.unwanted;
    if (!unwanted) return;
    this.readsSkipped++;
    throw unwanted;
  }

  repository<Entity extends ObjectLiteral>(scope: TransactionScope, entity: EntityTarget<Entity>): Repository<Entity> {
    return this.manager(scope).getRepository(entity);
  }

  /**
   * Runs `work` in the scope's transaction: joins the open one, or opens one (retried on serialization
   * failure or deadlock) on the pool `role` names and, once it committed, runs the effects queued with
   * `scope.afterCommit`. With read replicas, a request's committed transaction on the request pool also keeps the
   * primary's WAL position for its client first (read-your-writes: replica-reads.ts); without, nothing more runs.
   */
  async inTransaction<T>(scope: TransactionScope, work: (em: EntityManager) => Promise<T>, role: PoolRole = 'request'): Promise<T> {
    if (scope.manager) return work(scope.manager);
    const dataSource = role === 'system' ? this.systemPool.dataSource : this.dataSource;
    const result = await inTransaction(dataSource, async (em) => {
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
    if (this.replicas.enabled && role === 'request') await this.replicas.committed(scope);
    for (const effect of scope.takePending()) await effect();
    return result;
  }
}
