// The payment provider's double: `npm run cli -- payment:double` and the tests' payment peer. Only the
// command line and the tests load it; the service's bundle holds none of it.
export { parseForm } from './http';
export { PaymentPeer } from './payment-peer';
export type { DoubleWebhook, PeerCharge, PeerIntent, PeerList, PeerPaymentError, PeerRefund, PeerRequest } from './types';
