import { compactHeapAfterStart, youngGenerationBytes } from '../../src/heap-after-start';

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
    keep = [];
    compactHeapAfterStart();
    expect(youngGenerationBytes()).toBeLessThan(grown / 4);
  });
});
