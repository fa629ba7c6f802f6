import { createECDH } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { SitesService } from '../app-context';
import { IdCipher } from '../common/id-cipher.service';
import { TransactionalConnection } from '../database/transactional-connection';
import { TransactionScope } from '../database/transaction-scope';

export interface CreatedTenant {
  appID: number;
  name: string;
  domain: string;
  _id: string;
  appKey: string;
  vapid_public_key: string;
}

const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

@Injectable()
export class TenantService {
  constructor(private readonly connection: TransactionalConnection, private readonly sites: SitesService, private readonly cipher: IdCipher) {}

  /** A new tenant with its own web-push (VAPID) key pair; payment keys come from the provider later. */
  async create(name: string, domain: string): Promise<CreatedTenant> {
    const cleanDomain = domain.trim().toLowerCase();
    if (!name.trim()) throw new Error('--name is required');
    if (!DOMAIN.test(cleanDomain)) throw new Error(`--domain "${domain}" is not a valid domain name`);
    const scope = new TransactionScope();
    if (await this.sites.findByDomain(scope, cleanDomain)) throw new Error(`A tenant with domain "${cleanDomain}" already exists`);
    const vapid = createVapidKeys();
    const site = await this.connection.inTransaction(scope, () =>
      this.sites.create(scope, { name: name.trim(), domain: cleanDomain, vapid_public_key: vapid.publicKey, vapid_private_key: vapid.privateKey, vapid_subject: `mailto:admin@${cleanDomain}` }),
    );
    return {
      appID: site.id,
      name: site.name,
      domain: site.domain,
      _id: this.cipher.encryptAppId(site.id),
      appKey: this.cipher.legacyAppKey(site.id),
      vapid_public_key: vapid.publicKey,
    };
  }
}

/** A P-256 key pair in the base64url forms web push uses (65-byte public point, 32-byte private scalar). */
export function createVapidKeys(): { publicKey: string; privateKey: string } {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { publicKey: ecdh.getPublicKey().toString('base64url'), privateKey: ecdh.getPrivateKey().toString('base64url') };
}
