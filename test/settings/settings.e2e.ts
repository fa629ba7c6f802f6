import { RequestContext } from '../../src/common/request-context';
import { TransactionalConnection } from '../../src/database/transactional-connection';
import { SettingsService } from '../../src/settings';
import { seedTenant, Tenant, userToken } from '../versioning/content-helpers';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait';

/**
 * Tenant settings for owners (README "Tenant settings"): read with the private keys masked, changed all or
 * nothing with tenant:update's checks (400 naming changes.<name>), audited with secrets masked.
 */
describe('tenant settings', () => {
  let t: TestApp;
  let shop: Tenant;
  let other: Tenant;

  const sql = <T = any>(query: string, params: unknown[] = []): Promise<T[]> => t.dataSource.query(query, params);
  const read = (headers = shop.adminHeaders) => t.post('/staff/settings', {}, headers);
  const update = (changes: unknown, headers = shop.adminHeaders) => t.post('/staff/settings/update', { changes }, headers);
  const site = async () => (await sql(`SELECT * FROM core_sites WHERE id = $1`, [shop.appId]))[0];

  beforeAll(async () => {
    t = await startTestApp();
    shop = await seedTenant(t);
    other = await seedTenant(t);
  }, 60_000);
  afterAll(() => t?.close());

  it('reads the settings, the private keys and webhook secret masked', async () => {
    await sql(`UPDATE core_sites SET payment_test_private_key = 'sk_test_51AbCdEfGhIjKlMnOp9xYz' WHERE id = $1`, [shop.appId]);
    const res = await read();
    expect(res.status).toBe(200);
    const row = await site();
    expect(res.body.data).toEqual({
      appID: shop.appId,
      name: row.name,
      domain: row.domain,
      currency: 'aud',
      payment_test_mode: row.payment_test_mode,
      email_from: row.email_from,
      cors_origins: [],
      branding: { logo: '/img/logo.png', splash_logo: '/img/splash.png', background: '#fff', colour1: '#111', colour2: '#222' },
      payment_test_public_key: row.payment_test_public_key,
      payment_live_public_key: row.payment_live_public_key,
      payment_test_private_key: 'sk_test_…9xYz',
      payment_live_private_key: null,
      payment_webhook_secret: 'whsec_…',
    });
    expect(JSON.stringify(res.body)).not.toContain(row.payment_webhook_secret);
  });

  it('changes settings, answers them with the secrets masked, and audits the change with secrets masked', async () => {
    const res = await update({
      name: '  Renamed Shop ',
      domain: `Renamed-${shop.appId}.Example.TEST`,
      currency: 'EUR',
      payment_test_mode: true,
      email_from: 'Renamed Shop <shop@renamed.example.test>',
      colour1: '#336699',
      logo: null,
      payment_test_private_key: 'sk_test_newKey0123456789wxyz',
      payment_webhook_secret: 'whsec_newSecret0123456789',
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      name: 'Renamed Shop',
      domain: `renamed-${shop.appId}.example.test`,
      currency: 'eur',
      payment_test_mode: true,
      branding: { logo: null, colour1: '#336699' },
      payment_test_private_key: 'sk_test_…wxyz',
      payment_webhook_secret: 'whsec_…6789',
    });
    expect(res.body.data.changed.sort()).toEqual(
      [
        'colour1',
        'currency',
        'domain',
        'email_from',
        'logo',
        'name',
        'payment_test_mode',
        'payment_test_private_key',
        'payment_webhook_secret',
      ].sort(),
    );
    expect(JSON.stringify(res.body)).not.toMatch(/newKey|newSecret/);
    const row = await site();
    expect(row).toMatchObject({
      payment_test_private_key: 'sk_test_newKey0123456789wxyz',
      payment_webhook_secret: 'whsec_newSecret0123456789',
    });

    const audit = await t.post('/staff/audit', { action: 'settings.update' }, shop.adminHeaders);
    expect(audit.body.data).toHaveLength(1);
    const changes = audit.body.data[0].changes;
    expect(audit.body.data[0]).toMatchObject({ table: 'core_sites', recordId: String(shop.appId), actor: { id: shop.adminId } });
    expect(changes.name).toEqual({ before: expect.stringMatching(/^Tenant /), after: 'Renamed Shop' });
    expect(changes.currency).toEqual({ before: 'aud', after: 'eur' });
    expect(changes.payment_test_private_key).toEqual({ before: '[masked]', after: '[masked]' });
    expect(changes.payment_webhook_secret).toEqual({ before: '[masked]', after: '[masked]' });
    expect(JSON.stringify(audit.body)).not.toMatch(/newKey|newSecret|sk_test_51/);
    const stored = await sql(`SELECT changes::text AS c FROM core_audit_log WHERE app_id = $1`, [shop.appId]);
    expect(stored.map((r) => r.c).join()).not.toMatch(/newKey|newSecret|sk_test_51|whsec_\d/);
  });

  it('answers 400 naming changes.<name> and changes nothing (all or nothing)', async () => {
    const before = await site();
    const cases: [unknown, string][] = [
      [undefined, 'changes'],
      ['name', 'changes'],
      [{}, 'changes'],
      [{ nope: 1 }, 'changes.nope'],
      [{ vapid_private_key: 'x' }, 'changes.vapid_private_key'],
      [{ name: 'Fine', currency: 'zzz' }, 'changes.currency'],
      [{ currency: 'euro' }, 'changes.currency'],
      [{ domain: 'not a domain' }, 'changes.domain'],
      [{ domain: (await sql(`SELECT domain FROM core_sites WHERE id = $1`, [other.appId]))[0].domain }, 'changes.domain'],
      [{ name: '' }, 'changes.name'],
      [{ name: 'x'.repeat(201) }, 'changes.name'],
      [{ name: 5 }, 'changes.name'],
      [{ email_from: 'not-an-address' }, 'changes.email_from'],
      [{ payment_test_mode: 'yes' }, 'changes.payment_test_mode'],
      [{ payment_test_private_key: 'sk_live_abc123' }, 'changes.payment_test_private_key'],
      [{ payment_webhook_secret: 'secret' }, 'changes.payment_webhook_secret'],
      [{ colour1: 'x'.repeat(51) }, 'changes.colour1'],
      [{ cors_origins: 'https://a.example.test' }, 'changes.cors_origins'],
      [{ cors_origins: ['https://a.example.test', 'https://a.example.test/path'] }, 'changes.cors_origins[1]'],
      [{ cors_origins: ['http://shop.example.test'] }, 'changes.cors_origins[0]'],
      [{ cors_origins: [5] }, 'changes.cors_origins[0]'],
      [{ cors_origins: ['*'] }, 'changes.cors_origins[0]'],
      [{ cors_origins: Array.from({ length: 21 }, (_, i) => `https://f${i}.example.test`) }, 'changes.cors_origins'],
    ];
    for (const [changes, field] of cases) {
      const res = await t.post('/staff/settings/update', changes === undefined ? {} : { changes }, shop.adminHeaders);
      expect({ changes, status: res.status, fields: (res.body.errors ?? []).map((e: { field: string }) => e.field) }).toEqual({
        changes,
        status: 400,
        fields: [field],
      });
      expect(JSON.stringify(res.body)).not.toContain('sk_live_abc123');
    }
    expect(await site()).toEqual(before);
  });

  it('keeps the CORS origins an owner sets, normalized as browsers send them, and lets them read answers', async () => {
    const cors = await startTestApp({ CORS_ORIGINS: 'https://operator.example.test' }, t.database);
    try {
      const from = (origin: string) => cors.post('/getApp', {}, { 'site-id': String(shop.appId), origin });
      const allowed = async (origin: string) => (await from(origin)).headers['access-control-allow-origin'];
      const front = `https://front-${shop.appId}.example.test`;
      expect(await allowed(front)).toBeUndefined();

      const res = await cors.post(
        '/staff/settings/update',
        { changes: { cors_origins: [`HTTPS://Front-${shop.appId}.example.test:443`, 'http://localhost:5173', front] } },
        shop.adminHeaders,
      );
      expect(res.status).toBe(200);
      expect(res.body.data.cors_origins).toEqual([front, 'http://localhost:5173']);
      expect(res.body.data.changed).toEqual(['cors_origins']);
      await waitFor(async () => (await allowed(front)) === front); // once the change notification has dropped the cached answer
      expect(await allowed('http://localhost:5173')).toBe('http://localhost:5173');
      expect(await allowed(`https://front-${shop.appId}.example.test.evil.test`)).toBeUndefined();
      expect(await allowed(`http://front-${shop.appId}.example.test`)).toBeUndefined();

      const preflight = await cors.request('OPTIONS', '/getApp', undefined, {
        origin: front,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'site-id,content-type',
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe(front);

      const audit = await cors.post('/staff/audit', { action: 'settings.update' }, shop.adminHeaders);
      expect(audit.body.data[0].changes.cors_origins).toEqual({ before: [], after: [front, 'http://localhost:5173'] });

      expect(
        (await cors.post('/staff/settings/update', { changes: { cors_origins: null } }, shop.adminHeaders)).body.data.cors_origins,
      ).toEqual([]);
      await waitFor(async () => (await allowed(front)) === undefined);
    } finally {
      await cors.close();
    }
  });

  it('production refuses the payment keys this repository publishes, as tenant:update does', async () => {
    const ctx = RequestContext.background('settings-test', true, { id: shop.appId } as never);
    ctx.principal = { userId: shop.adminId, appId: shop.appId, authTable: 'core_users', role: 'admin', staffRoles: ['owner'] };
    const attempt = t
      .get(TransactionalConnection)
      .inTransaction(ctx, () => t.get(SettingsService).update(ctx, { payment_webhook_secret: 'whsec_demo' }));
    await expect(attempt).rejects.toMatchObject({
      httpStatus: 400,
      errors: [{ field: 'changes.payment_webhook_secret', message: expect.stringMatching(/published sample/) }],
    });
    expect((await site()).payment_webhook_secret).not.toBe('whsec_demo');
  });

  it('needs settings.view to read and settings.manage to change', async () => {
    expect((await read(shop.headers)).status).toBe(401);
    const [{ id: userId }] = await sql(`SELECT id FROM core_users WHERE app_id = $1 AND primary_role = 'user' LIMIT 1`, [shop.appId]);
    await sql(`UPDATE core_users SET staff_roles = ARRAY['viewer']::varchar[] WHERE id = $1`, [userId]);
    const viewer = { ...shop.headers, authorization: `Bearer ${userToken(t, shop, userId)}` };
    expect((await read(viewer)).status).toBe(200);
    const refused = await update({ name: 'By a viewer' }, viewer);
    expect(refused.status).toBe(403);
    expect(JSON.stringify(refused.body)).toContain('settings.manage');
  });
});
