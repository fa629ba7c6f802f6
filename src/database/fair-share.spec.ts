import { FairShareGate, fairShare, ShareSettings } from './fair-share';

/** The defaults on the default pool: 10 connections, 2 of headroom, 2 for authenticated requests, no lower cap. */
const DEFAULTS: ShareSettings = { pool: 10, headroom: 2, cap: 10, priority: 2, queue: 100, waitMs: 60_000 };

class Busy extends Error {}

// Requests left waiting at the end of a test must not keep the process alive for waitMs: their timers are fake
// (setImmediate stays real, for the turns the gate takes).
beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] }));
afterEach(() => {
  jest.clearAllTimers();
  jest.useRealTimers();
});

/** Takes what fits at once; answers how many of `count` requests of `appId` got a slot without waiting. */
async function takeNow(gate: FairShareGate, appId: number, count: number, priority = false): Promise<number> {
  let taken = 0;
  for (let i = 0; i < count; i++)
    void gate.enter(appId, priority).then(
      () => taken++,
      () => undefined,
    );
  await new Promise((resolve) => setImmediate(resolve));
  return taken;
}

describe('fairShare: each active tenant gets its part of the pool less the headroom', () => {
  it('divides pool − headroom among the active tenants, at least 1 each, at most the cap', () => {
    expect([1, 2, 3, 4, 5, 8, 9, 50].map((active) => fairShare(DEFAULTS, active))).toEqual([8, 4, 2, 2, 1, 1, 1, 1]);
    expect(fairShare({ ...DEFAULTS, cap: 3 }, 1)).toBe(3);
    expect(fairShare({ pool: 4, headroom: 0, cap: 4 }, 1)).toBe(4);
    expect(fairShare(DEFAULTS, 0)).toBe(8);
  });
});

/** Sends `rounds` anonymous requests of each tenant in turns (one of each tenant after the other), as concurrent clients do. */
async function inTurns(gate: FairShareGate, apps: number[], rounds: number): Promise<void> {
  for (let round = 0; round < rounds; round++) for (const app of apps) void gate.enter(app, false).catch(() => undefined);
  await new Promise((resolve) => setImmediate(resolve));
}

describe('FairShareGate (pool 10, headroom 2, priority reserve 2: anonymous requests share 6 and may use 8)', () => {
  it("shrinks a tenant's share as other tenants become active, and keeps the headroom free for a newcomer", async () => {
    const gate = new FairShareGate(DEFAULTS, () => new Busy());
    expect(await takeNow(gate, 1, 20)).toBe(6); // alone: pool − reserve − headroom
    expect(gate.currentShare()).toBe(6);
    expect(gate.currentShare(true)).toBe(8);
    // A second tenant arrives: its share is 3; it holds none, so its first slot may use the headroom, its second not.
    expect(await takeNow(gate, 2, 20)).toBe(1);
    expect(gate.currentShare()).toBe(3);
    // A third still finds one at once.
    expect(await takeNow(gate, 3, 1)).toBe(1);
    expect(gate.running()).toBe(8);
    // Tenant 1 holds 6 > its new share of 2: the slots it gives back go to the others, not to its own waiters.
    for (let i = 0; i < 4; i++) gate.leave(1, false);
    await new Promise((resolve) => setImmediate(resolve));
    expect([1, 2, 3].map((app) => gate.running(app))).toEqual([2, 2, 1]);
    expect(gate.running()).toBe(5);
  });

  it('gives 5 flooding tenants one connection each and leaves a newcomer one at once', async () => {
    const gate = new FairShareGate(DEFAULTS, () => new Busy());
    await inTurns(gate, [1, 2, 3, 4, 5], 25);
    expect(gate.currentShare()).toBe(1);
    expect([1, 2, 3, 4, 5].map((app) => gate.running(app))).toEqual([1, 1, 1, 1, 1]);
    expect(await takeNow(gate, 6, 5)).toBe(1);
  });

  it("keeps DB_PRIORITY_CONNECTIONS from all tenants' anonymous requests, and lets a tenant's authenticated request past its own anonymous flood", async () => {
    const gate = new FairShareGate(DEFAULTS, () => new Busy());
    // Ten tenants flood anonymously: one slot each while pool − reserve lasts.
    await inTurns(gate, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 5);
    expect(gate.running()).toBe(8);
    // An authenticated request of another tenant, and of a flooding one, get a slot at once.
    expect(await takeNow(gate, 11, 1, true)).toBe(1);
    expect(await takeNow(gate, 1, 1, true)).toBe(1);
  });

  it('refuses a request beyond the queue at once and a waiter after waitMs', async () => {
    const gate = new FairShareGate({ ...DEFAULTS, queue: 1, waitMs: 100 }, () => new Busy());
    for (let i = 0; i < 6; i++) await gate.enter(1, false);
    const waiting = gate.enter(1, false);
    await expect(gate.enter(1, false)).rejects.toBeInstanceOf(Busy);
    jest.advanceTimersByTime(100);
    await expect(waiting).rejects.toBeInstanceOf(Busy);
    gate.leave(1, false);
    expect(gate.running(1)).toBe(5);
  });
});
