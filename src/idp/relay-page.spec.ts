import { escapeHtml, relayPage, resolveAppUrl, resolveConfigured, tenantOrigin, tenantReturnUrl, withParams } from './relay-page';

const site = (extra: Record<string, string | null> = {}) =>
  ({
    domain: 'shop.example.test',
    idp_app_callback_url: null,
    oauth_callback_url: null,
    auth_callback_url: null,
    idp_app_logout_url: null,
    oauth_logout_url: null,
    auth_logout_url: null,
    ...extra,
  }) as Parameters<typeof resolveAppUrl>[0];

describe('relay targets', () => {
  const origin = 'https://shop.example.test';

  it("the tenant's origin is https://<domain>, only for a plain host name", () => {
    expect(tenantOrigin({ domain: 'Shop.Example.test' })).toBe('https://shop.example.test');
    expect(tenantOrigin({ domain: 'localhost:8443' })).toBe('https://localhost:8443');
    for (const domain of ['', 'shop.example.test/x', 'a b', 'user@shop.test', 'shop.test?x', 'shop.test#x'])
      expect(tenantOrigin({ domain })).toBeNull();
  });

  it('resolves relative paths on the origin, keeps absolute http(s) URLs, refuses the rest', () => {
    expect(resolveConfigured('/cb?x=1', origin)?.href).toBe('https://shop.example.test/cb?x=1');
    expect(resolveConfigured('cb', origin)?.href).toBe('https://shop.example.test/cb');
    expect(resolveConfigured('../../cb', origin)?.href).toBe('https://shop.example.test/cb');
    expect(resolveConfigured('https://app.partner.test/cb', origin)?.href).toBe('https://app.partner.test/cb');
    for (const value of [
      '//evil.test',
      '/\\evil.test',
      '\\\\evil.test',
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'data:text/html,x',
      'https://u:p@evil.test',
      'https://',
      ' ',
      '/cb\nx',
      'mailto:a@b.test',
    ]) {
      expect(resolveConfigured(value, origin)).toBeNull();
    }
    expect(resolveConfigured('/cb', null)).toBeNull();
  });

  it('takes the first column the tenant sets, else the fallback path on its domain', () => {
    const columns = ['idp_app_callback_url', 'oauth_callback_url', 'auth_callback_url'] as const;
    expect(resolveAppUrl(site({ oauth_callback_url: '/o', auth_callback_url: '/a' }), columns, '/auth/callback')?.href).toBe(
      'https://shop.example.test/o',
    );
    expect(resolveAppUrl(site({ idp_app_callback_url: '', auth_callback_url: '/a' }), columns, '/auth/callback')?.href).toBe(
      'https://shop.example.test/a',
    );
    expect(resolveAppUrl(site(), columns, '/auth/callback')?.href).toBe('https://shop.example.test/auth/callback');
    // A broken first setting is an error, not a reason to use the next one.
    expect(resolveAppUrl(site({ idp_app_callback_url: '//evil.test', auth_callback_url: '/a' }), columns, '/auth/callback')).toBeNull();
  });

  it("a client's returnTo must be on the tenant's origins (its domain and the origins it configures)", () => {
    const configured = site({ auth_logout_url: 'https://www.shop.example.test/out' });
    expect(tenantReturnUrl(configured, '/bye')?.href).toBe('https://shop.example.test/bye');
    expect(tenantReturnUrl(configured, 'https://shop.example.test/bye')?.href).toBe('https://shop.example.test/bye');
    expect(tenantReturnUrl(configured, 'https://www.shop.example.test/x')?.href).toBe('https://www.shop.example.test/x');
    for (const value of [
      'https://evil.test',
      'http://shop.example.test/bye',
      'https://shop.example.test.evil.test/',
      '//evil.test',
      'https://shop.example.test:444/',
    ]) {
      expect(tenantReturnUrl(configured, value)).toBeNull();
    }
  });

  it("appends parameters after the URL's own, in order", () => {
    expect(
      withParams(new URL('https://a.test/cb?x=1'), [
        ['code', 'c d'],
        ['x', '2'],
      ]).href,
    ).toBe('https://a.test/cb?x=1&code=c+d&x=2');
  });
});

describe('relay page', () => {
  it('escapes every character that matters in HTML attributes and text', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&\`=`)).toBe('&#60;a href&#61;&#34;x&#34; onclick&#61;&#39;y&#39;&#62;&#38;&#96;&#61;');
  });

  it('is a meta refresh and a link to the target, with no script', () => {
    const html = relayPage(new URL('https://shop.example.test/cb?a=1&b="><script>'));
    expect(html).toContain('<meta http-equiv="refresh" content="0;url=https://shop.example.test/cb?a&#61;1&#38;b&#61;%22%3E%3Cscript%3E">');
    expect(html).toContain('<a href="https://shop.example.test/cb?a&#61;1&#38;b&#61;%22%3E%3Cscript%3E">continue</a>');
    expect(html).not.toMatch(/<script/i);
  });
});
