import { QueryFailedError } from 'typeorm';
import { Site } from '../../src/app-context';
import { TransactionalConnection } from '../../src/database/transactional-connection';
import { TransactionScope } from '../../src/database/transaction-scope';
import { siteFixture, startTestApp, TestApp } from '../support/test-app';

/** The use case's transaction (TransactionalConnection + TransactionScope) on the real PostgreSQL. */
describe('TransactionalConnection', () => {
  let t: TestApp;
  let connection: TransactionalConnection;

  beforeAll(async () => {
    t = await startTestApp();
    connection = t.get(TransactionalConnection);
  });
  afterAll(() => t.close());

  const siteCount = async (domain: string) => connection.dataSource.getRepository(Site).countBy({ domain });

  it('commits, then runs the effects queued with afterCommit, in order', async () => {
    const scope = new TransactionScope();
    const site = siteFixture();
    const seen: string[] = [];
    await connection.inTransaction(scope, async (em) => {
      await em.getRepository(Site).insert({ name: site.name, domain: site.domain });
      await scope.afterCommit(async () => seen.push(`first:${await siteCount(site.domain)}`));
      await scope.afterCommit(() => seen.push('second'));
      seen.push('work done');
    });
    // The effect saw the committed row from another connection.
    expect(seen).toEqual(['work done', 'first:1', 'second']);
    expect(scope.manager).toBeUndefined();
  });

  it('rolls back and drops the queued effects when the work throws', async () => {
    const scope = new TransactionScope();
    const site = siteFixture();
    const effect = jest.fn();
    await expect(
      connection.inTransaction(scope, async (em) => {
        await em.getRepository(Site).insert({ name: site.name, domain: site.domain });
        await scope.afterCommit(effect);
        throw new Error('use case failed');
      }),
    ).rejects.toThrow('use case failed');
    expect(effect).not.toHaveBeenCalled();
    expect(await siteCount(site.domain)).toBe(0);
    // A later transaction of the same scope does not run the dropped effect either.
    await connection.inTransaction(scope, async () => undefined);
    expect(effect).not.toHaveBeenCalled();
  });

  it('a nested call joins the open transaction, and the manager is the one every repository call uses', async () => {
    const scope = new TransactionScope();
    const site = siteFixture();
    await expect(
      connection.inTransaction(scope, async (outer) => {
        await connection.inTransaction(scope, async (inner) => {
          expect(inner).toBe(outer);
          await connection.repository(scope, Site).insert({ name: site.name, domain: site.domain });
        });
        expect(connection.manager(scope)).toBe(outer);
        throw new Error('roll back everything');
      }),
    ).rejects.toThrow();
    expect(await siteCount(site.domain)).toBe(0);
  });

  it('without a transaction, afterCommit runs the effect at once', async () => {
    const scope = new TransactionScope();
    const effect = jest.fn();
    await scope.afterCommit(effect);
    expect(effect).toHaveBeenCalledTimes(1);
    expect(connection.manager(scope)).toBe(connection.dataSource.manager);
  });

  it("query() reads in the scope's transaction when it has one, else on a pool connection of its own, and fails as TypeORM's queries do", async () => {
    const scope = new TransactionScope();
    const site = siteFixture();
    const byDomain = 'SELECT id, domain FROM core_sites WHERE domain = $1';
    await expect(
      connection.inTransaction(scope, async (em) => {
        await em.getRepository(Site).insert({ name: site.name, domain: site.domain });
        // The uncommitted row: the same transaction.
        expect(await connection.query(scope, byDomain, [site.domain])).toEqual([expect.objectContaining({ domain: site.domain })]);
        // Not yet seen outside it.
        expect(await connection.query(new TransactionScope(), byDomain, [site.domain])).toEqual([]);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    const failure = await connection
      .query(new TransactionScope(), 'SELECT no_such_column FROM core_sites')
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(QueryFailedError);
    expect((failure as QueryFailedError & { driverError: { code: string } }).driverError.code).toBe('42703');
    // The failed statement gave its connection back: the pool still answers (it has a few connections only).
    for (let i = 0; i < 20; i++) await connection.query(new TransactionScope(), 'SELECT 1');
  });

  it("retries the whole use case on a serialization failure, running only the last attempt's effects once", async () => {
    const scope = new TransactionScope();
    const effects: number[] = [];
    let attempts = 0;
    const result = await connection.inTransaction(scope, async (em) => {
      attempts++;
      await scope.afterCommit(() => effects.push(attempts));
      if (attempts === 1) {
        // What PostgreSQL raises on a serialization failure.
        await em.query(`DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = '40001'; END $$`);
      }
      return 'done';
    });
    expect(result).toBe('done');
    expect(attempts).toBe(2);
    expect(effects).toEqual([2]);
  });
});
