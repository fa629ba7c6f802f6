import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MailOutboxService } from '../../src/messaging';
import { startTestApp, TestApp } from '../support/test-app';

/** The context OrderMailsService gives templates/confirmation.html (src/orders/completion/order-mails.service.ts). */
const context = {
  domain: 'shop.example.test',
  siteName: 'Shop & Co',
  logoUrl: 'https://shop.example.test/img/logo.png?a=1&b=2',
  orderId: 1001,
  orderDate: '23 Nov 2026, 10:05 UTC',
  billingName: 'Ann <script>alert(1)</script>',
  items: [
    { title: 'Mug <b>big</b>', quantity: 2, unitPrice: '$12.50', subtotal: '$25.00', tax: '$2.27', bond: null, giftTokens: [] },
    { title: 'Kayak hire', quantity: 1, unitPrice: '$40.00', subtotal: '$40.00', tax: '$3.64', bond: '$100.00', giftTokens: [] },
    { title: 'Gift e-book', quantity: 1, unitPrice: '$10.00', subtotal: '$10.00', tax: '$0.91', bond: null, giftTokens: ['ab'.repeat(32)] },
  ],
  totalTax: '$6.82',
  total: '$175.00',
  qrCodeUrl: 'https://shop.example.test/ecommerce/genCode/1001',
  closing: 'Thank you for your booking.',
};

/**
 * templates/confirmation.html as the mailer's handlebars adapter renders it (strict, escaped). The
 * confirmation of a real completed order, with its recipients, is checked in test/orders/completion.e2e.ts.
 */
describe('templates/confirmation.html', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ NOTIFY_SENDER_ENABLED: 'false' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('renders every field of the order with its values escaped, the bond only where it is not zero', async () => {
    const html = await t.get(MailOutboxService).render('confirmation.html', context);
    expect(html).toContain('Order ID: <strong class="order-id">1001</strong>');
    expect(html).toContain('23 Nov 2026, 10:05 UTC');
    expect(html).toContain('Ann &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('<script');
    expect(html).toContain('Mug &lt;b&gt;big&lt;/b&gt;');
    expect(html).not.toContain('<b>');
    expect(html).toContain('https://shop.example.test/img/logo.png?a&#x3D;1&amp;b&#x3D;2');
    expect(html.match(/class="bond"/g)).toHaveLength(1);
    expect(html).toContain('Bond/deposit: $100.00');
    expect(html.match(/class="tax"/g)).toHaveLength(3);
    expect(html).toContain(`Gift token: <code>${'ab'.repeat(32)}</code>`);
    expect(html).toContain('Total (inc GST): $175.00');
    expect(html).toContain('href="https://shop.example.test/ecommerce/genCode/1001"');
    expect(html).toContain('Thank you for your booking.');
    expect(html).toContain('https://shop.example.test');
  });

  it('inlines the CSS of a template with a <style> element into the elements it selects, and leaves one without as rendered', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mail-template-'));
    try {
      const styled = join(dir, 'styled.hbs');
      writeFileSync(styled, '<html><head><style>p.note { color: red; }</style></head><body><p class="note">{{text}}</p></body></html>');
      const html = await t.get(MailOutboxService).render(styled, { text: 'Hi & bye' });
      expect(html).toMatch(/<p class="note" style="color: ?red;?">Hi &amp; bye<\/p>/);
      expect(html).not.toContain('<style');
      const plain = join(dir, 'plain.hbs');
      writeFileSync(plain, '<p class="note">{{text}}</p>\n');
      expect(await t.get(MailOutboxService).render(plain, { text: 'Hi' })).toBe('<p class="note">Hi</p>\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a context without a field the template uses (strict mode)', async () => {
    const { total: _omitted, ...incomplete } = context;
    await expect(t.get(MailOutboxService).render('confirmation.html', incomplete)).rejects.toThrow(/total/);
  });
});
