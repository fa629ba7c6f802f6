import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type GarbageCollect = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/**
 * One memory-reducing full collection, run by main.ts 1.5 s after the service listens. Starting allocates
 * tens of MB of objects that all die (module loading, Nest's scan, the first queries); V8 keeps the young
 * generation it grew for them until it sees memory pressure, which an idle service never shows, so the
 * process would sit well above what it needs (docs/performance.md "Memory and start", "Figures that explain
 * code choices"). It takes a fraction of a second, once.
 */
export function compactHeapAfterStart(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as GarbageCollect;
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}
