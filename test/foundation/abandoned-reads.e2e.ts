import type { Server } from 'node:net';
import type { Pool, PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import { parseResponses, rawConnection } from '../support/raw-http';
import { siteFixture, startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait';

const PAGE = JSON.stringify({ table: 'core_products', isPaging: true, perPage: 20, page: 1 });

/**
 * A read outside a transaction whose client closed its connection while the read waited for a connection
 * of the pool is not run (TransactionalConnection.query, RequestContext.unwanted): under a flood, clients that
 * give up would otherwise cost the database as much as those served. Over real sockets, with the pool's one
 * connection held by the test.
 */
describe('reads for clients that left', () => {
  let t: TestApp;
  let port: number;
  let appId: number;
  let pool: Pool;

  beforeAll(async () => {
    t = await startTestApp({ DB_POOL_SIZE: '1' });
    appId = (await t.seed({ site: siteFixture() })).appID;
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.getHttpServer().address() as { port: number }).port;
    pool = (t.app.get(DataSource).driver as unknown as { master: Pool }).master;
  });
  afterAll(() => t.close());

  const pageRequest = () =>
    `POST /getDataRows HTTP/1.1\r\nHost: localhost\r\nsite-id: ${appId}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(PAGE)}\r\nConnection: close\r\n\r\n${PAGE}`;

  const serverConnections = () =>
    new Promise<number>((resolve, reject) =>
      (t.app.getHttpServer() as Server).getConnections((error, count) => (error ? reject(error) : resolve(count))),
    );

  async function skippedReads(): Promise<number> {
    const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    return Number(/^database_reads_skipped_total (\S+)$/m.exec(text)?.[1]);
  }

  it('skips the reads of clients that left while waiting for a connection, and runs those still wanted', async () => {
    expect((await t.post('/getDataRows', JSON.parse(PAGE), { 'site-id': String(appId) })).status).toBe(200); // the site is cached now
    const before = await skippedReads();
    let held: PoolClient | undefined = await pool.connect();
    try {
      const leaving = Array.from({ length: 4 }, () => rawConnection(port));
      const staying = rawConnection(port);
      for (const client of [...leaving, staying]) client.socket.write(pageRequest());
      await waitFor(() => pool.waitingCount === 5);
      for (const { socket } of leaving) socket.destroy();
      await Promise.all(leaving.map((client) => client.closed));
      // The server has seen the closes: only the staying client's connection is left.
      await waitFor(async () => (await serverConnections()) === 1, 5000, 'the server to see the closes');
      held.release();
      held = undefined;

      const [answer] = parseResponses(await staying.closed);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ status: 'Success', data: [] });
      expect((await skippedReads()) - before).toBe(4);
      expect(pool.waitingCount).toBe(0);
      expect(pool.totalCount - pool.idleCount).toBe(0); // every connection given back
    } finally {
      held?.release();
    }

    // The service goes on serving reads.
    const page = await t.post('/getDataRows', JSON.parse(PAGE), { 'site-id': String(appId) });
    expect(page.status).toBe(200);
    expect((await skippedReads()) - before).toBe(4);
  });
});
