import { accountKey, Pacer } from "../pacer";
import { limiterFor } from "../limiter";
import type { Clock } from "../retry";

function fakeClock() {
  let now = 0;
  const sleeps: number[] = [];
  const clock: Clock = { now: () => now, sleep: async (ms) => { sleeps.push(ms); now += ms; } };
  return { clock, sleeps, advance: (ms: number) => (now += ms) };
}

/** One request through the cap as the account's limiter sends it (limiter.ts pump): wait what delayMs says, then take a token. */
async function acquire(pacer: Pacer, clock: Clock): Promise<void> {
  for (let wait = pacer.delayMs(); wait > 0; wait = pacer.delayMs()) await clock.sleep(wait);
  pacer.take();
}

describe("pacer", () => {
  it("lets a burst of maxRequestsPerSecond through, then spaces requests at the rate", async () => {
    const { clock, sleeps, advance } = fakeClock();
    const pacer = new Pacer(2, clock);
    await acquire(pacer, clock);
    await acquire(pacer, clock);
    expect(sleeps).toEqual([]);
    await acquire(pacer, clock);
    await acquire(pacer, clock);
    expect(sleeps).toEqual([500, 500]);
    advance(250); // half a token refilled: the next request waits for the other half only
    await acquire(pacer, clock);
    expect(sleeps).toEqual([500, 500, 250]);
  });

  it("is unlimited by default", async () => {
    const { clock, sleeps } = fakeClock();
    const pacer = new Pacer(undefined, clock);
    for (let i = 0; i < 100; i += 1) await acquire(pacer, clock);
    expect(sleeps).toEqual([]);
  });

  it("a cap below one request per second still lets requests through, one per 1/rate seconds", async () => {
    const { clock, sleeps } = fakeClock();
    const pacer = new Pacer(0.5, clock);
    // The test's deadline: a pacer that never grants would sleep forever on this clock.
    const bounded: Clock = { now: clock.now, sleep: async (ms, signal) => { if (sleeps.length >= 10) throw new Error("still held after 10 sleeps"); await clock.sleep(ms, signal); } };
    const capped = new Pacer(0.5, bounded);
    await acquire(capped, bounded);
    await acquire(capped, bounded);
    expect(sleeps).toEqual([2000]);
    expect(pacer.delayMs()).toBe(0); // a fresh bucket holds one request
  });

  it("a cap set on an unlimited pacer applies at once: a burst of one second's worth, then the rate", async () => {
    const { clock, sleeps } = fakeClock();
    const pacer = new Pacer(undefined, clock);
    pacer.setRate(1);
    await acquire(pacer, clock);
    await acquire(pacer, clock);
    expect(sleeps).toEqual([1000]);
  });

  it("a lowered cap applies at once: the burst left shrinks to the new rate", async () => {
    const { clock, sleeps } = fakeClock();
    const pacer = new Pacer(10, clock);
    pacer.setRate(2);
    expect(pacer.rate).toBe(2);
    for (let i = 0; i < 3; i++) await acquire(pacer, clock);
    expect(sleeps).toEqual([500]);
    pacer.setRate(undefined); // no cap: nothing waits
    for (let i = 0; i < 10; i++) await acquire(pacer, clock);
    expect(sleeps).toEqual([500]);
  });

  it("requests sent while no cap is set do not spend the tokens a cap set again later starts with", async () => {
    // Two providers of one account in one program, one with vmhost:maxRequestsPerSecond and one without: the most
    // recently created client's setting wins, so the cap can go and come back within a process.
    const { clock, sleeps, advance } = fakeClock();
    const pacer = new Pacer(2, clock);
    advance(1_000); // a full burst of 2 earned
    pacer.setRate(undefined);
    for (let i = 0; i < 10; i++) await acquire(pacer, clock);
    pacer.setRate(2);
    await acquire(pacer, clock);
    await acquire(pacer, clock);
    expect(sleeps).toEqual([]); // the burst earned before the cap went is still there
  });

  it("says how long the next request must wait: 0 while a token is there, else until one has refilled", () => {
    const { clock, advance } = fakeClock();
    const pacer = new Pacer(2, clock);
    expect(pacer.delayMs()).toBe(0); // a full bucket holds two
    pacer.take();
    pacer.take();
    expect(pacer.delayMs()).toBe(500);
    advance(250);
    expect(pacer.delayMs()).toBe(250); // half a token is there
  });

  it("a clock set back does not take tokens away", () => {
    const { clock, advance } = fakeClock();
    const pacer = new Pacer(1, clock);
    advance(10_000);
    pacer.take(); // the bucket's one token
    advance(-5_000); // the system clock set back (NTP)
    expect(pacer.delayMs()).toBe(1000);
    advance(1_000);
    expect(pacer.delayMs()).toBe(0);
  });

  it("is shared per base URL + key, keyed by a hash of the key", () => {
    const { clock } = fakeClock();
    const a = limiterFor("https://api.example.test/v1", "key-a-123456", undefined, clock);
    expect(limiterFor("https://api.example.test/v1/", "key-a-123456", undefined, clock)).toBe(a);
    expect(limiterFor("https://api.example.test/v1//", "key-a-123456", undefined, clock)).toBe(a);
    expect(limiterFor("https://api.example.test/v1", "key-b-123456", undefined, clock)).not.toBe(a);
    expect(accountKey("https://api.example.test/v1", "key-a-123456")).toMatch(/^https:\/\/api\.example\.test\/v1#[0-9a-f]{16}$/);
  });
});
