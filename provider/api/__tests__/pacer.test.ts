import { accountKey, Pacer } from "../pacer";
import { limiterFor } from "../limiter";
import type { Clock } from "../retry";

function fakeClock() {
  let now = 0;
  const sleeps: number[] = [];
  const clock: Clock = { now: () => now, sleep: async (ms) => { sleeps.push(ms); now += ms; } };
  return { clock, sleeps, advance: (ms: number) => (now += ms) };
}

describe("pacer", () => {
  it("lets a burst of maxRequestsPerSecond through, then spaces requests at the rate", async () => {
    const { clock, sleeps, advance } = fakeClock();
    const pacer = new Pacer(2, clock);
    await pacer.acquire();
    await pacer.acquire();
    expect(sleeps).toEqual([]);
    await pacer.acquire();
    await pacer.acquire();
    expect(sleeps).toEqual([500, 500]);
    advance(250); // half a token refilled: the next request waits for the other half only
    await pacer.acquire();
    expect(sleeps).toEqual([500, 500, 250]);
  });

  it("is unlimited by default", async () => {
    const { clock, sleeps } = fakeClock();
    const pacer = new Pacer(undefined, clock);
    for (let i = 0; i < 100; i += 1) await pacer.acquire();
    expect(sleeps).toEqual([]);
  });

  it("holds everyone after a 429 until the requested time", async () => {
    const { clock, sleeps, advance } = fakeClock();
    const pacer = new Pacer(undefined, clock);
    pacer.pauseUntil(3000);
    expect(pacer.delayMs(1000)).toBe(2000); // what the account's limiter asks of its cap
    await pacer.acquire();
    expect(sleeps).toEqual([3000]);
    pacer.pauseUntil(1000); // an earlier pause never shortens a later one, and a past one costs nothing
    advance(10);
    await pacer.acquire();
    expect(sleeps).toEqual([3000]);
    pacer.pauseUntil(clock.now() + 2000); // a pause from a later moment: held for what is left of it
    await pacer.acquire();
    expect(sleeps).toEqual([3000, 2000]);
  });

  it("a cap below one request per second still lets requests through, one per 1/rate seconds", async () => {
    const { clock, sleeps } = fakeClock();
    const pacer = new Pacer(0.5, clock);
    // The test's deadline: a pacer that never grants would sleep forever on this clock.
    const bounded: Clock = { now: clock.now, sleep: async (ms, signal) => { if (sleeps.length >= 10) throw new Error("still held after 10 sleeps"); await clock.sleep(ms, signal); } };
    const capped = new Pacer(0.5, bounded);
    await capped.acquire();
    await capped.acquire();
    expect(sleeps).toEqual([2000]);
    expect(pacer.delayMs(clock.now())).toBe(0); // a fresh bucket holds one request
  });

  it("a cap set on an unlimited pacer applies at once: a burst of one second's worth, then the rate", async () => {
    const { clock, sleeps } = fakeClock();
    const pacer = new Pacer(undefined, clock);
    pacer.setRate(1);
    await pacer.acquire();
    await pacer.acquire();
    expect(sleeps).toEqual([1000]);
  });

  it("a lowered cap applies at once: the burst left shrinks to the new rate", async () => {
    const { clock, sleeps } = fakeClock();
    const pacer = new Pacer(10, clock);
    pacer.setRate(2);
    expect(pacer.rate).toBe(2);
    for (let i = 0; i < 3; i++) await pacer.acquire();
    expect(sleeps).toEqual([500]);
    pacer.setRate(undefined); // no cap: nothing waits
    for (let i = 0; i < 10; i++) await pacer.acquire();
    expect(sleeps).toEqual([500]);
  });

  it("says how long the next request must wait: 0 while a token is there, else until one has refilled", () => {
    const { clock, advance } = fakeClock();
    const pacer = new Pacer(2, clock);
    expect(pacer.delayMs(clock.now())).toBe(0); // a full bucket holds two
    pacer.take(clock.now());
    pacer.take(clock.now());
    expect(pacer.delayMs(clock.now())).toBe(500);
    advance(250);
    expect(pacer.delayMs(clock.now())).toBe(250); // half a token is there
    pacer.pauseUntil(clock.now()); // a pause that ends now adds nothing to the rate's wait
    expect(pacer.delayMs(clock.now())).toBe(250);
  });

  it("a clock set back does not take tokens away", () => {
    const { clock, advance } = fakeClock();
    const pacer = new Pacer(1, clock);
    advance(10_000);
    pacer.take(clock.now()); // the bucket's one token
    advance(-5_000); // the system clock set back (NTP)
    expect(pacer.delayMs(clock.now())).toBe(1000);
    advance(1_000);
    expect(pacer.delayMs(clock.now())).toBe(0);
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
