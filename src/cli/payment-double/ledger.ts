import { PeerIntent, PeerRefund } from './types';

/**
 * What the double holds, as the provider's accounts would: every intent with the secret key that made it
 * (another key finds none of it), the refunds, and when each charge was made.
 */
export class Ledger {
  /** Every intent, by id. */
  readonly intents = new Map<string, PeerIntent>();
  /** Every refund, by id, oldest first. */
  readonly refunds = new Map<string, PeerRefund>();
  /** Intent id → its refunds, oldest first. */
  readonly refundsOf = new Map<string, PeerRefund[]>();
  /** Charge id → when it was made (seconds). */
  readonly charged = new Map<string, number>();
  private readonly owners = new Map<string, string>(); // intent id → secret key

  add(intent: PeerIntent, apiKey: string): void {
    this.intents.set(intent.id, intent);
    this.owners.set(intent.id, apiKey);
  }

  /** The intent, whoever owns it (the tests' helpers); throws for an unknown one. */
  intent(intentId: string): PeerIntent {
    const intent = this.intents.get(intentId);
    if (!intent) throw new Error(`PaymentPeer: no intent ${intentId}`);
    return intent;
  }

  /** The intent if it exists and belongs to `apiKey`. */
  owned(apiKey: string, intentId: string): PeerIntent | undefined {
    return this.owners.get(intentId) === apiKey ? this.intents.get(intentId) : undefined;
  }

  /** The intent of the charge `chargeId` if it belongs to `apiKey`. */
  intentOfCharge(apiKey: string, chargeId: string): PeerIntent | undefined {
    return [...this.intents.values()].find((intent) => intent.latest_charge === chargeId && this.owners.get(intent.id) === apiKey);
  }

  /** What is left to refund of a succeeded intent (its amount less its refunds). */
  unrefunded(intent: PeerIntent): number {
    return intent.amount_received - (this.refundsOf.get(intent.id) ?? []).reduce((sum, refund) => sum + refund.amount, 0);
  }
}
