// The tests' payment provider peer is the double `npm run cli -- payment:double` runs.
export { PaymentPeer, parseForm } from '../../src/cli/payment-double';
export type { PeerIntent, PeerRequest } from '../../src/cli/payment-double';
