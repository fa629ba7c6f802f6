import { TenantSite } from '../../common/request-context';
import { TenantShareExhausted } from '../../database/connection-errors';
import { TenantGate } from '../../database/tenant-gate';

/**
 * QR codes (GET /ecommerce/genCode/:id). A code holds a URL of the tenant's own site naming the number,
 * `https://<domain>/?code=<id>`: the order number (or product id) a door scanner or the tenant's front end
 * looks up. It is nothing secret: the number is printed beside it in the confirmation anyway, and neither
 * an encrypted id nor a token value is ever put in a code.
 */
export function qrContent(site: Pick<TenantSite, 'domain'>, id: number): string {
  return `https://${site.domain}/?code=${id}`;
}

/**
 * Where the confirmation email links the order's QR code: this service's genCode route on the tenant's
 * domain (tenants reach the service through their own domain: Host-based tenant resolution), under the
 * production base path when there is one.
 */
export function qrImageUrl(site: Pick<TenantSite, 'domain'>, basePath: string, orderId: number): string {
  return `https://${site.domain}${basePath}/ecommerce/genCode/${orderId}`;
}

/**
 * The code as a PNG (qrcode's toBuffer): 8 pixels a module, a quiet zone of 2 modules, medium error
 * correction. qrcode is loaded at the first code, not at start.
 */
export function qrPng(content: string): Promise<Buffer> {
  const { toBuffer } = require('qrcode') as typeof import('qrcode');
  return toBuffer(content, { type: 'png', errorCorrectionLevel: 'M', margin: 2, scale: 8 });
}

/** Codes kept (a small PNG each): the PNG of a code is the same every time, so each is rendered once while kept. */
const QR_CACHE_ENTRIES = 2000;
/** Renders of one tenant at once (CPU on the event loop), its renders that may wait for a turn, and for how long. */
const QR_RENDERS_PER_APP = 2;
const QR_QUEUE = 50;
const QR_WAIT_MS = 5000;

/**
 * The QR codes the genCode route answers with (README "Fair shares and timeouts"): a bounded LRU of PNGs keyed by
 * the app and what the code holds (its domain and the id), so a code asked for again is not rendered again, and
 * requests for the same code at once share one render; renders (the CPU-heavy part, on the event loop) are
 * bounded per tenant with a TenantGate, so one tenant asking for many different codes waits for its own turns
 * and other tenants' requests are not held up: beyond the queue or the wait, 503 `Too many requests of this app
 * are in progress` with Retry-After (a refusal is not kept).
 */
export class QrCodes {
  private readonly kept = new Map<string, Promise<Buffer>>();
  private readonly gate = new TenantGate(
    { perApp: QR_RENDERS_PER_APP, queue: QR_QUEUE, waitMs: QR_WAIT_MS },
    () => new TenantShareExhausted(1),
  );
  private inProgress = 0;
  /** Renders so far, and the most at once (tests and diagnostics). */
  readonly renders = { total: 0, peak: 0 };

  constructor(private readonly maxEntries = QR_CACHE_ENTRIES) {}

  png(appId: number, content: string): Promise<Buffer> {
    const key = `${appId} ${content}`;
    const kept = this.kept.get(key);
    if (kept) {
      this.kept.delete(key); // most recently used last
      this.kept.set(key, kept);
      return kept;
    }
    const rendering = this.gate.run(appId, () => this.render(content));
    this.kept.set(key, rendering);
    rendering.catch(() => {
      if (this.kept.get(key) === rendering) this.kept.delete(key);
    });
    if (this.kept.size > this.maxEntries) this.kept.delete(this.kept.keys().next().value!);
    return rendering;
  }

  private async render(content: string): Promise<Buffer> {
    this.renders.total++;
    this.renders.peak = Math.max(this.renders.peak, ++this.inProgress);
    try {
      return await qrPng(content);
    } finally {
      this.inProgress--;
    }
  }
}
