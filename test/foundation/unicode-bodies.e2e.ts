import { seedTenant, Tenant } from '../versioning/content-helpers';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * An unpaired surrogate (a `\uD800` escape in JSON) anywhere in a body is refused with 400 naming where it
 * is, before anything is written: PostgreSQL would have stored free-form text with U+FFFD in its place.
 */
describe('unpaired surrogates in request bodies', () => {
  let t: TestApp;
  let a: Tenant;

  beforeAll(async () => {
    t = await startTestApp();
    a = await seedTenant(t);
  });
  afterAll(() => t.close());

  const refused = (field: string) => ({
    status: 400,
    body: {
      status: 'Failed',
      message: 'Validation error',
      errors: [{ field, message: `${field} must not contain unpaired surrogates (invalid Unicode)` }],
    },
  });
  const count = async () => (await t.dataSource.query('SELECT count(*)::int AS n FROM core_products WHERE app_id = $1', [a.appId]))[0].n;

  it('in free-form content, notification data, nested values and keys', async () => {
    const before = await count();
    const cases: [string, string, string, Record<string, string>][] = [
      ['/content/create', '{"table":"core_products","data":{"title":"Mug \\ud800","price":1}}', 'data.title', a.adminHeaders],
      [
        '/content/create',
        '{"table":"core_products","data":{"title":"Mug","description":"tail \\udfff"}}',
        'data.description',
        a.adminHeaders,
      ],
      ['/content/create', '{"table":"core_products","data":{"\\ud800title":"Mug"}}', 'data', a.adminHeaders],
      ['/message/notification', '{"event":"x","email":"a@example.test","data":{"list":["ok","\\udbff"]}}', 'data.list[1]', a.headers],
    ];
    for (const [path, raw, field, headers] of cases) {
      const res = await t.request('POST', path, raw, headers);
      expect({ path, raw, status: res.status, body: res.body }).toEqual({ path, raw, ...refused(field) });
    }
    expect(await count()).toBe(before);
  });

  it('keeps surrogate pairs: an emoji sent as an escaped pair is stored as sent', async () => {
    const res = await t.request(
      'POST',
      '/content/create',
      '{"table":"core_products","data":{"title":"Mug \\ud83d\\ude42","price":1}}',
      a.adminHeaders,
    );
    expect(res.status).toBe(200);
    const [row] = await t.dataSource.query('SELECT title FROM core_products WHERE app_id = $1 ORDER BY id DESC LIMIT 1', [a.appId]);
    expect(row.title).toBe('Mug 🙂');
  });
});
