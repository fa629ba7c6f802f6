import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * The Node flags the service runs with: package.json's start scripts, the Dockerfile's command and the bench
 * (test/foundation/node-flags.spec.ts checks they agree). A young generation of 8 MB semi-spaces instead of
 * V8's default (up to 64 MB on a machine with plenty of memory): under load the service then peaks at under
 * 300 MB instead of ~480 MB (docs/performance.md "Memory and start").
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=8'];

type GarbageCollect = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/**
 * One memory-reducing full collection, run by main.ts 1.5 s after the service listens. Starting allocates
 * tens of MB of objects that all die (module loading, Nest's scan, the first queries); V8 keeps the young
 * generation it grew for them (~40 MB) until it sees memory pressure, which an idle service never shows,
 * so the process would sit at ~205 MB instead of ~155 MB (docs/performance.md "Memory and start"). It
 * takes ~0.15 s, once.
 */
export function compactHeapAfterStart(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as GarbageCollect;
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}
