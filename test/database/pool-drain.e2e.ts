import { Site } from '../../src/app-context';
import { TransactionalConnection } from '../../src/database/transactional-connection';
import { TransactionScope } from '../../src/database/transaction-scope';
import { siteFixture, startTestApp } from '../support/test-app';

/**
 * A stop while a transaction is between statements (src/database/pool-drain.ts): without the drain TypeORM's
 * DataSource.destroy() released its connection in the middle of it, the transaction failed at its next
 * statement (QueryRunnerAlreadyReleasedError), and the pool could hand the connection to another one meanwhile.
 */
describe('closing the app while a transaction is in flight', () => {
  it('waits for the transaction to commit before the pool closes', async () => {
    const owner = await startTestApp(); // owns the database, which outlives the app under test
    const t = await startTestApp({}, owner.database);
    const connection = t.get(TransactionalConnection);
    const site = siteFixture();
    const order: string[] = [];
    let inside!: () => void;
    const started = new Promise<void>((resolve) => (inside = resolve));

    const transaction = connection.inTransaction(new TransactionScope(), async (em) => {
      inside();
      await em.query('SELECT pg_sleep(0.3)');
      await em.getRepository(Site).insert({ name: site.name, domain: site.domain });
      order.push('transaction done');
    });
    await started;
    const closed = t.close().then(() => order.push('app closed'));

    await expect(transaction).resolves.toBeUndefined();
    await closed;
    expect(order).toEqual(['transaction done', 'app closed']);

    // The row committed: the other app on the same database finds it.
    try {
      expect(await owner.dataSource.getRepository(Site).countBy({ domain: site.domain })).toBe(1);
    } finally {
      await owner.close();
    }
  });
});
