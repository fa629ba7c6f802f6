import type { AddressInfo } from 'node:net';
import { createClient, type Client, type Schemas } from '../../client/src';
import { seedTenant, Tenant } from '../versioning/content-helpers';
import { ApiContract } from '../support/openapi-contract';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The send log through the generated client (client/): a staff member lists the Failed mails, pages with the
 * cursor, reads one and retries it, on a real port; every answer is also held to the OpenAPI document.
 */
describe('the send log through the generated client', () => {
  let t: TestApp;
  let shop: Tenant;
  let api: Client;
  const problems: string[] = [];

  beforeAll(async () => {
    t = await startTestApp({ NOTIFY_SENDER_ENABLED: 'false' });
    shop = await seedTenant(t);
    await t.app.listen(0, '127.0.0.1');
    const baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    api = createClient({ baseUrl, headers: shop.adminHeaders });
    const contract = ApiContract.of(t.app, t.config);
    api.use({
      async onResponse({ request, response }) {
        const sent: Record<string, string> = {};
        request.headers.forEach((value, name) => (sent[name] = value));
        problems.push(
          ...contract.check(
            { method: request.method, url: new URL(request.url).pathname, headers: sent },
            { status: response.status, headers: Object.fromEntries(response.headers.entries()), body: await response.clone().text() },
          ),
        );
        return response;
      },
    });
    await t.dataSource.query(
      `INSERT INTO core_notification_log (app_id, event, email, status, created, email_from, subject, body, text_body, attempts, last_error)
       SELECT $1, 'welcome', 'client' || g || '@example.test', 'Failed', now() - g * interval '1 minute', 'shop@example.test',
              'Hi ' || g, '<p>Hello ' || g || '</p>', 'Hello ' || g, 5, '550 Mailbox unavailable'
       FROM generate_series(1, 5) g`,
      [shop.appId],
    );
  });
  afterAll(() => t?.close());
  afterEach(() => expect(problems).toEqual([]));

  it('lists, pages, reads and retries', async () => {
    const first = await api.POST('/message/log', { body: { status: 'Failed', perPage: 3 } });
    const page: Schemas['ListSendLogAnswer'] = first.data!;
    expect(page.data.map((mail) => mail.email)).toEqual(['client1@example.test', 'client2@example.test', 'client3@example.test']);
    expect(page.paging.hasMore).toBe(true);
    const next = await api.POST('/message/log', { body: { status: 'Failed', perPage: 3, cursor: page.paging.nextCursor! } });
    expect(next.data!.data.map((mail) => mail.email)).toEqual(['client4@example.test', 'client5@example.test']);
    expect(next.data!.paging).toEqual({ perPage: 3, hasMore: false, nextCursor: null });

    const id = page.data[0].id;
    const read = await api.POST('/message/log/read', { body: { id } });
    expect(read.data!.data).toMatchObject({ html: '<p>Hello 1</p>', text: 'Hello 1', lastError: '550 Mailbox unavailable' });

    const retried = await api.POST('/message/log/retry', { body: { id } });
    expect(retried.data!.data).toMatchObject({ id, status: 'Pending', attempts: 0 });
    const again = await api.POST('/message/log/retry', { body: { id } });
    expect(again.response.status).toBe(409);
    expect(again.error).toMatchObject({ status: 'Failed', message: 'The mail is Pending: only a Failed mail can be retried' });

    const bad = await api.POST('/message/log', { body: { perPage: 500 } });
    expect(bad.response.status).toBe(400);
    expect(bad.error).toMatchObject({ errors: [{ field: 'perPage' }] });
  });
});
