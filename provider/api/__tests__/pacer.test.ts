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
    const { clock, sleeps } = fakeClock();
    const pacer = new Pacer(2, clock);
    await pacer.acquire();
    await pacer.acquire();
    expect(sleeps).toEqual([]);
    await pacer.acquire();
    await pacer.acquire();
    expect(sleeps).toEqual([500, 500]);
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
    await pacer.acquire();
    expect(sleeps).toEqual([3000]);
    pacer.pauseUntil(1000); // an earlier pause never shortens a later one, and a past one costs nothing
    advance(10);
    await pacer.acquire();
    expect(sleeps).toEqual([3000]);
  });

  it("is shared per base URL + key, keyed by a hash of the key", () => {
    const { clock } = fakeClock();
    const a = limiterFor("https://api.example.test/v1", "key-a-123456", undefined, clock);
    expect(limiterFor("https://api.example.test/v1/", "key-a-123456", undefined, clock)).toBe(a);
    expect(limiterFor("https://api.example.test/v1", "key-b-123456", undefined, clock)).not.toBe(a);
    expect(accountKey("https://api.example.test/v1", "key-a-123456")).toMatch(/^https:\/\/api\.example\.test\/v1#[0-9a-f]{16}$/);
  });
});
