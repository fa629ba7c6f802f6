import { getHeapSpaceStatistics } from 'node:v8';
import { compactHeapAfterStart } from '../../src/heap-after-start';

/** Resident size of the young generation, in bytes. */
function youngGenerationBytes(): number {
  return getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.physical_space_size ?? 0;
}

/** main.ts's collection after start gives back the young generation that start-up grew. */
describe('compactHeapAfterStart', () => {
  it('shrinks a grown young generation to a fraction of its size', () => {
    let keep: unknown[] = [];
    // Many short-lived objects, some surviving a while: the young generation grows as it does at start.
    for (let i = 0; i < 400_000; i++) {
      keep.push({ i, text: `item ${i}` });
      if (keep.length > 50_000) keep = [];
    }
    const grown = youngGenerationBytes();
    keep.length = 0;
    compactHeapAfterStart();
    expect(youngGenerationBytes()).toBeLessThan(grown / 4);
  });
});
