import { TenantSite } from '../common/request-context';

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
