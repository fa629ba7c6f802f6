import { MailerService } from '@nestjs-modules/mailer';
import { startTestApp, TestApp } from '../support/test-app';
import { SmtpPeer } from './support/smtp-peer';

const order = {
  siteName: 'Shop & Co',
  orderNumber: 'A-1001',
  billingName: 'Ann <script>alert(1)</script>',
  items: [
    { name: 'Mug <b>big</b>', qty: 2, price: '€ 12.50', booking: null },
    { name: 'Concert', qty: 1, price: '€ 40.00', booking: '12 Dec 2026 20:00, Hall <A>' },
  ],
  subtotal: '€ 65.00',
  shipping: null,
  tax: '€ 11.28',
  total: '€ 65.00',
};

describe('templates/confirmation.hbs through MailerService', () => {
  let smtp: SmtpPeer;
  let t: TestApp;

  beforeAll(async () => {
    smtp = await SmtpPeer.start();
    t = await startTestApp({ SMTP_URL: smtp.url, NOTIFY_SENDER_ENABLED: 'false' });
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });
  beforeEach(() => {
    smtp.mails.length = 0;
  });

  it('renders the order with its values escaped and the booking line only for the event', async () => {
    await t.get(MailerService).sendMail({ from: 'shop@example.test', to: 'ann@example.test', subject: 'Your order A-1001', template: 'confirmation', context: order });

    expect(smtp.mails).toHaveLength(1);
    const [{ parsed, envelope }] = smtp.mails;
    expect(envelope.to).toEqual(['ann@example.test']);
    expect(parsed.subject).toBe('Your order A-1001');
    const html = String(parsed.html);
    expect(html).toContain('Shop &amp; Co: order A-1001');
    expect(html).toContain('Ann &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('<script');
    expect(html).toContain('Mug &lt;b&gt;big&lt;/b&gt;');
    expect(html).not.toContain('<b>');
    expect(html).toContain('Booking: 12 Dec 2026 20:00, Hall &lt;A&gt;');
    expect(html.match(/Booking:/g)).toHaveLength(1);
    expect(html).toContain('Tax: € 11.28');
    expect(html).not.toContain('Shipping:');
    expect(html).toContain('Total: € 65.00');
  });

  it('refuses a context without a field the template uses (strict mode) and sends nothing', async () => {
    const { billingName: _omitted, ...incomplete } = order;
    await expect(t.get(MailerService).sendMail({ from: 'shop@example.test', to: 'ann@example.test', subject: 'x', template: 'confirmation', context: incomplete })).rejects.toThrow(/billingName/);
    expect(smtp.mails).toHaveLength(0);
  });
});
