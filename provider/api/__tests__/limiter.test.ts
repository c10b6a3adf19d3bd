import { getEventListeners } from "node:events";
import { currentOperationUnderway, withRequestDeadline } from "../deadline";
import { RateLimitedError } from "../errors";
import { limiterFor, limiterKeys, limiterStats, PROBE_INTERVAL_MS, QueuedPastDeadlineError, RateLimiter } from "../limiter";
import type { Clock } from "../retry";
import { systemClock } from "../../clock";
import { mockClient } from "./helpers";

function fakeClock(start = 1_700_000_000_300) {
  let now = start;
  const sleeps: number[] = [];
  // Time moves only after pending callbacks ran, so a test sees when each grant happened.
  const clock: Clock = { now: () => now, sleep: async (ms) => { sleeps.push(ms); await settle(); now += ms; } };
  return { clock, sleeps, now: () => now };
}

/** Lets pending promise callbacks run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A clock whose sleeps end when time is advanced past them, or at once when aborted (as the system clock's). */
function steppedClock(start: number) {
  let now = start;
  const sleepers: { until: number; resolve: () => void }[] = [];
  const clock: Clock = {
    now: () => now,
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        sleepers.push({ until: now + ms, resolve });
        signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      }),
  };
  const advance = async (ms: number) => {
    now += ms;
    for (const s of sleepers.splice(0)) if (s.until <= now) s.resolve(); else sleepers.push(s);
    for (let i = 0; i < 5; i++) await settle();
  };
  return { clock, advance, now: () => now };
}
const answer = (status: number, headers: Record<string, string>) => ({ status, headers });
describe("rate limiter: learns the host's limit from its answers", () => {
  it("sends one request until the first answer, then as many as X-RateLimit-Remaining allows", async () => {
    const start = 1_700_000_000_300;
    const { clock, now } = fakeClock(start);
    const limiter = new RateLimiter(undefined, clock);
    const grantedAt: Record<string, number> = {};
    const first = await limiter.acquire();
    const later = ["b", "c", "d"].map((name) => limiter.acquire().then((t) => { grantedAt[name] = now() - start; return t; }));
    await settle();
    expect(grantedAt).toEqual({}); // the limit is unknown until an answer tells it
    limiter.observe(first, answer(200, { "x-ratelimit-limit": "3", "x-ratelimit-remaining": "2" }));
    await Promise.all(later);
    // b and c use the window's budget at once; d waits: the window's end is unknown, so one probe a second later.
    expect(grantedAt).toEqual({ b: 0, c: 0, d: PROBE_INTERVAL_MS });
    expect(limiter.stats()).toMatchObject({ limit: 3, granted: 4 });
  });

  it("counts requests sent after the answered one against the same window", async () => {
    const { clock, sleeps } = fakeClock();
    const limiter = new RateLimiter(undefined, clock);
    const a = await limiter.acquire();
    limiter.observe(a, answer(200, { "x-ratelimit-limit": "10", "x-ratelimit-remaining": "9" }));
    const b = await limiter.acquire();
    await limiter.acquire(); // c
    // b's answer says 1 left, but c went out after b: nothing is left for d in this window.
    limiter.observe(b, answer(200, { "x-ratelimit-remaining": "1" }));
    await limiter.acquire();
    expect(sleeps).toEqual([PROBE_INTERVAL_MS]);
  });

  it("tells whether the limit was reached lately: budget spent, a request queued, or a 429's pause", async () => {
    const { clock, advance } = steppedClock(1_700_000_000_000);
    const limiter = new RateLimiter(undefined, clock);
    expect(limiter.reachedWithin(1000)).toBe(false); // nothing learned yet: nothing says the limit paces us
    const a = await limiter.acquire();
    limiter.observe(a, answer(200, { "x-ratelimit-limit": "2", "x-ratelimit-remaining": "1" }));
    expect(limiter.reachedWithin(1000)).toBe(false); // one left
    await limiter.acquire(); // the last of the window
    expect(limiter.reachedWithin(1000)).toBe(true);
    await advance(1001);
    expect(limiter.reachedWithin(1000)).toBe(false); // a second later: not lately
    // A request queued (the budget spent; its probe is not due yet) counts as reached while it waits.
    const queued = limiter.acquire();
    await settle();
    expect(limiter.reachedWithin(0)).toBe(true);
    await advance(PROBE_INTERVAL_MS);
    const b = await queued;
    // A 429: the account is paused until the window's end, and the limit was reached now.
    limiter.observe(b, answer(429, { "retry-after": "5" }));
    await advance(2000);
    expect(limiter.reachedWithin(1000)).toBe(true); // still paused (3 s left)
    await advance(3000);
    expect(limiter.reachedWithin(1000)).toBe(false);
  });

  it("a window spent just before its end: the probe goes a second after the window's first answer, not a second after the spend", async () => {
    const { clock, advance, now } = steppedClock(1_700_000_000_400);
    const limiter = new RateLimiter(undefined, clock);
    const a = await limiter.acquire();
    await advance(10);
    limiter.observe(a, answer(200, { "x-ratelimit-limit": "3", "x-ratelimit-remaining": "2" })); // the window began by now (.410)
    await advance(540);
    const [b, c] = [await limiter.acquire(), await limiter.acquire()]; // spent at .950
    limiter.observe(b, answer(200, { "x-ratelimit-remaining": "1" }));
    limiter.observe(c, answer(200, { "x-ratelimit-remaining": "0" }));
    const grantedAt: number[] = [];
    const probe = limiter.acquire().then((t) => (grantedAt.push(now()), t));
    await advance(459);
    expect(grantedAt).toEqual([]);
    await advance(1);
    expect(grantedAt).toEqual([1_700_000_001_410]); // a second after .410 (the old rule: 1.950, most of a window lost)
    // Its answer is a 429 that names no window end: the next probe a second after this one, not at once.
    limiter.observe(await probe, answer(429, {}));
    const next = limiter.acquire().then((t) => (grantedAt.push(now()), t));
    await advance(999);
    expect(grantedAt).toHaveLength(1);
    await advance(1);
    expect(grantedAt[1]).toBe(1_700_000_002_410);
    // That one says a new window began (Remaining went up): the budget is used at once, and the next probe is a
    // second after this answer.
    limiter.observe(await next, answer(200, { "x-ratelimit-remaining": "2" }));
    await limiter.acquire();
    await limiter.acquire();
    const last = limiter.acquire().then(() => grantedAt.push(now()));
    await advance(999);
    expect(grantedAt).toHaveLength(2);
    await advance(1);
    await last;
    expect(grantedAt[2]).toBe(1_700_000_003_410);
  });

  it("two requests that reach the host in the other order do not raise the budget (the later one's Remaining is larger)", async () => {
    const { clock, advance } = steppedClock(1_700_000_000_000);
    const limiter = new RateLimiter(undefined, clock);
    const a = await limiter.acquire();
    limiter.observe(a, answer(200, { "x-ratelimit-limit": "4", "x-ratelimit-remaining": "3" }));
    const [b, c, d] = [await limiter.acquire(), await limiter.acquire(), await limiter.acquire()]; // the window spent
    // c reached the host before b: c was counted second (2 left), b third (1 left), d last (0 left).
    limiter.observe(c, answer(200, { "x-ratelimit-remaining": "2" }));
    limiter.observe(b, answer(200, { "x-ratelimit-remaining": "1" }));
    let sent = false;
    const next = limiter.acquire().then((t) => ((sent = true), t));
    await advance(10);
    expect(sent).toBe(false); // c's answer counted only d after it: "1 left" would have sent this into a 429
    limiter.observe(d, answer(200, { "x-ratelimit-remaining": "0" }));
    await advance(1000); // the probe, a second after the window's first answer
    await next;
    expect(sent).toBe(true);
  });

  it("a 429 holds every request until the window's end (X-RateLimit-Reset, more precise than Retry-After)", async () => {
    const { clock, sleeps } = fakeClock(1_700_000_000_300);
    const limiter = new RateLimiter(undefined, clock);
    const a = await limiter.acquire();
    const until = limiter.observe(a, answer(429, { "retry-after": "1", "x-ratelimit-limit": "5", "x-ratelimit-remaining": "0", "x-ratelimit-reset": "1700000001" }));
    expect(until).toBe(1_700_000_001_000);
    await Promise.all([limiter.acquire(), limiter.acquire()]);
    expect(sleeps).toEqual([700]); // one shared wait, not one per request
    expect(limiter.stats().throttled).toBe(1);
  });

  it("ignores a Reset that disagrees with Retry-After (a skewed server clock)", async () => {
    const { clock, sleeps } = fakeClock(1_700_000_000_300);
    const limiter = new RateLimiter(undefined, clock);
    const a = await limiter.acquire();
    limiter.observe(a, answer(429, { "retry-after": "2", "x-ratelimit-reset": "1700000900" }));
    await limiter.acquire();
    expect(sleeps).toEqual([2000]);
  });

  it("after a 429's window the whole limit is there; once spent, nothing waits longer than a probe interval", async () => {
    const { clock, sleeps, now } = fakeClock(1_700_000_000_500);
    const limiter = new RateLimiter(undefined, clock);
    const first = await limiter.acquire();
    limiter.observe(first, answer(429, { "retry-after": "1", "x-ratelimit-limit": "2", "x-ratelimit-remaining": "0", "x-ratelimit-reset": "1700000001" }));
    await limiter.acquire();
    await limiter.acquire(); // the new window's two requests
    expect(now()).toBe(1_700_000_001_000);
    const second = await limiter.acquire(); // the budget is spent and no one said when it refills: a probe
    expect(now()).toBe(1_700_000_001_000 + PROBE_INTERVAL_MS);
    limiter.observe(second, answer(429, { "retry-after": "30", "x-ratelimit-reset": "1700000030" }));
    await limiter.acquire(); // a 429 that names a far window end is believed
    expect(now()).toBe(1_700_000_030_000);
    expect(sleeps).toEqual([500, PROBE_INTERVAL_MS, 28_000]);
  });

  it("a probe's answer releases the queued requests at once, not a probe interval later", async () => {
    // A clock whose sleeps end when time is advanced, or at once when aborted (as the system clock's).
    let now = 1_700_000_000_300;
    const sleepers: { until: number; resolve: () => void }[] = [];
    const clock: Clock = {
      now: () => now,
      sleep: (ms, signal) =>
        new Promise<void>((resolve, reject) => {
          const sleeper = { until: now + ms, resolve };
          sleepers.push(sleeper);
          signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
        }),
    };
    const advance = async (ms: number) => {
      now += ms;
      for (const s of sleepers.splice(0)) if (s.until <= now) s.resolve(); else sleepers.push(s);
      await settle();
    };
    const limiter = new RateLimiter(undefined, clock);
    const a = await limiter.acquire();
    limiter.observe(a, answer(200, { "x-ratelimit-limit": "10", "x-ratelimit-remaining": "0" })); // window spent
    const probe = limiter.acquire();
    await settle();
    await advance(PROBE_INTERVAL_MS);
    const b = await probe; // the probe goes out a probe interval later
    const granted: string[] = [];
    const queued = ["c", "d", "e"].map((name) => limiter.acquire().then(() => granted.push(name)));
    await settle();
    expect(granted).toEqual([]); // nothing known about the new window until the probe answers
    limiter.observe(b, answer(200, { "x-ratelimit-limit": "10", "x-ratelimit-remaining": "9" }));
    for (let i = 0; i < 5; i++) await settle(); // no time advanced: released by the answer itself
    expect(granted).toEqual(["c", "d", "e"]);
    await Promise.all(queued);
    expect(now).toBe(1_700_000_000_300 + PROBE_INTERVAL_MS);
  });

  it("a probe due is kept while answers say the window is still spent, and forgotten once one names a budget", async () => {
    const start = 1_700_000_000_000;
    const { clock, advance, now } = steppedClock(start);
    const limiter = new RateLimiter(undefined, clock);
    // Grants are recorded, never awaited: a request held for good fails the test instead of hanging it.
    const granted: Record<string, { at: number; ticket: number }> = {};
    const ask = (name: string) => void limiter.acquire().then((ticket) => (granted[name] = { at: now() - start, ticket }));
    const a = await limiter.acquire();
    limiter.observe(a, answer(200, { "x-ratelimit-limit": "10", "x-ratelimit-remaining": "2" }));
    ask("b");
    ask("c");
    ask("probe"); // the window is spent: a probe is due a probe interval from now
    await advance(500);
    limiter.observe(granted.b!.ticket, answer(200, { "x-ratelimit-remaining": "0" })); // still spent: the probe stays due at 1000
    await advance(500);
    expect(granted.probe?.at).toBe(PROBE_INTERVAL_MS);
    limiter.observe(granted.probe!.ticket, answer(200, { "x-ratelimit-remaining": "1" }));
    ask("d");
    ask("e"); // spent again: a probe is due at 2000
    await advance(200);
    limiter.observe(granted.d!.ticket, answer(200, { "x-ratelimit-remaining": "5" })); // a budget again: no probe due
    await advance(0);
    expect(granted.e?.at).toBe(1_200);
    for (const name of ["f", "g", "h", "i"]) ask(name); // the rest of the budget
    await advance(0);
    expect(granted.i?.at).toBe(1_200);
    await advance(500);
    // Spent since i (1200): the probe is due a probe interval after the budget ran out (2200); not at the old due
    // time (2000), forgotten when d named a budget, nor a probe interval after this ask (2700).
    ask("j");
    await advance(499);
    expect(granted.j).toBeUndefined();
    await advance(1);
    expect(granted.j?.at).toBe(2_200);
    await advance(3_000);
    ask("k"); // long after the probe j (its window's budget unknown, spent by j): k probes at once
    await advance(0);
    expect(granted.k?.at).toBe(5_200);
  });

  it("late answers to older requests (a previous window's count, or none) do not override a newer answer's count", async () => {
    const { clock, now } = fakeClock();
    const start = now();
    const limiter = new RateLimiter(undefined, clock);
    const a = await limiter.acquire();
    limiter.observe(a, answer(200, { "x-ratelimit-limit": "10", "x-ratelimit-remaining": "9" }));
    const [b, c, d] = [await limiter.acquire(), await limiter.acquire(), await limiter.acquire()];
    limiter.observe(d, answer(200, { "x-ratelimit-limit": "10", "x-ratelimit-remaining": "9" })); // a new window
    limiter.observe(b, answer(200, { "x-ratelimit-limit": "10", "x-ratelimit-remaining": "0" })); // the old window's last
    limiter.observe(c, answer(200, {}));
    const grantedAt: number[] = [];
    for (let i = 0; i < 10; i++) limiter.observe(await limiter.acquire().then((t) => (grantedAt.push(now() - start), t)));
    // the new window's 9 go at once; the 10th waits for a probe
    expect(grantedAt).toEqual([...Array(9).fill(0), PROBE_INTERVAL_MS]);
  });

  it("a 429 that names no window end, seen during a pause, keeps the window end already known", async () => {
    const { clock, now } = fakeClock(1_700_000_000_000);
    const limiter = new RateLimiter(undefined, clock);
    const first = await limiter.acquire();
    limiter.observe(first, answer(200, { "x-ratelimit-limit": "5", "x-ratelimit-remaining": "4" }));
    const [a, b] = [await limiter.acquire(), await limiter.acquire()];
    limiter.observe(a, answer(429, { "retry-after": "5" }));
    limiter.observe(b, answer(429, {})); // sent before the pause, answered without Retry-After
    await Promise.all([limiter.acquire(), limiter.acquire()]);
    expect(now()).toBe(1_700_000_005_000); // the new window's whole limit at its start, no probe
  });

  it("a host that stops reporting a limit is no longer paced (the learned budget does not run down to one probe a second)", async () => {
    const { clock, sleeps } = fakeClock();
    const limiter = new RateLimiter(undefined, clock);
    const a = await limiter.acquire();
    limiter.observe(a, answer(200, { "x-ratelimit-limit": "3", "x-ratelimit-remaining": "2" }));
    const b = await limiter.acquire();
    limiter.observe(b, answer(200, {})); // the host answers without X-RateLimit headers from now on
    for (let i = 0; i < 10; i++) limiter.observe(await limiter.acquire(), answer(200, {}));
    expect(sleeps).toEqual([]); // ten requests, none held
  });

  it("grants in arrival order (fair), also under the maxRequestsPerSecond cap", async () => {
    const { clock } = fakeClock();
    const limiter = new RateLimiter(1, clock);
    const order: number[] = [];
    await Promise.all([1, 2, 3, 4].map((n) => limiter.acquire().then((t) => { order.push(n); limiter.observe(t); })));
    expect(order).toEqual([1, 2, 3, 4]);
  });

  it("a request that got no answer frees its place (the next one is not held forever)", async () => {
    const { clock } = fakeClock();
    const limiter = new RateLimiter(undefined, clock);
    const a = await limiter.acquire();
    const b = limiter.acquire();
    limiter.observe(a); // a network error: no answer
    await expect(b).resolves.toBe(2);
  });

  it("an aborted waiter leaves the queue", async () => {
    const { clock } = fakeClock();
    const limiter = new RateLimiter(undefined, clock);
    const a = await limiter.acquire();
    const controller = new AbortController();
    const b = limiter.acquire(controller.signal);
    const c = limiter.acquire();
    controller.abort(new Error("cancelled"));
    await expect(b).rejects.toThrow("cancelled");
    limiter.observe(a, answer(200, {}));
    await expect(c).resolves.toBe(2);
  });

  it("a granted request leaves no listener on its signal (one signal shared by many requests would collect them)", async () => {
    const { clock } = fakeClock();
    const limiter = new RateLimiter(undefined, clock);
    const shared = new AbortController().signal;
    for (let i = 0; i < 20; i++) limiter.observe(await limiter.acquire(shared), answer(200, {}));
    expect(getEventListeners(shared, "abort")).toHaveLength(0);
  });

  it("a cancelled last waiter leaves no timer behind (the provider process can exit at once, not at the pause's end)", async () => {
    jest.useFakeTimers();
    try {
      const limiter = new RateLimiter(undefined, systemClock);
      const a = await limiter.acquire();
      limiter.observe(a, answer(429, { "retry-after": "30" }));
      const controller = new AbortController();
      const b = limiter.acquire(controller.signal);
      expect(jest.getTimerCount()).toBe(1); // held until the pause ends
      controller.abort(new Error("cancelled"));
      await expect(b).rejects.toThrow("cancelled");
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });
});

describe("client: a 429 is a wait, bounded by the deadline, never by a retry count", () => {
  const path = "/v1/instance/i-1/detail";
  const detail = { message: "ok", data: null };

  it("keeps waiting through more 429s than maxRetries and succeeds", async () => {
    const { pool, client, calls } = mockClient({ maxRetries: 2 });
    pool.intercept({ path, method: "GET" }).reply(429, { message: "Too Many Attempts." }, { headers: { "retry-after": "1" } }).times(8);
    pool.intercept({ path, method: "GET" }).reply(404, { message: "gone" });
    await expect(client.instances.find("i-1")).resolves.toBeUndefined();
    expect(calls()).toHaveLength(9);
    void detail;
  });

  it("fails with RateLimitedError only when the next wait would pass the resource's deadline", async () => {
    const { pool, client, calls, clock } = mockClient({ maxRetries: 20, maxRetryTimeMs: 3_600_000 });
    pool.intercept({ path, method: "GET" }).reply(429, { message: "Too Many Attempts." }, { headers: { "retry-after": "2" } }).persist();
    const error = await withRequestDeadline(clock.now() + 5_000, () => client.instances.get("i-1")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as Error).message).toContain("HTTP 429 rate limited by the service");
    expect(calls()).toHaveLength(3); // at 0 s, 2 s, 4 s; the wait to 6 s would pass the 5 s deadline
  });
});

describe("rate limiter: the window's end from other header forms, and its settings", () => {
  it("a 429 whose Retry-After is an HTTP date, or that names only X-RateLimit-Reset, pauses until then", async () => {
    const { clock, now } = fakeClock(1_700_000_000_300);
    const limiter = new RateLimiter(undefined, clock);
    const a = await limiter.acquire();
    // an HTTP date has whole seconds: the window ends at 1_700_000_003_000
    expect(limiter.observe(a, answer(429, { "retry-after": new Date(now() + 3_000).toUTCString() }))).toBe(1_700_000_003_000);
    const b = await limiter.acquire();
    expect(now()).toBe(1_700_000_003_000);
    expect(limiter.observe(b, answer(429, { "x-ratelimit-reset": "1700000010" }))).toBe(1_700_000_010_000);
    const c = await limiter.acquire();
    expect(now()).toBe(1_700_000_010_000);
    // a small reset value is a number of seconds from now
    expect(limiter.observe(c, answer(429, { "x-ratelimit-reset": "5" }))).toBe(1_700_000_015_000);
  });

  it("a Retry-After of seconds is read with spaces around it and with a fraction; one that is neither seconds nor a date is no window end", async () => {
    for (const [retryAfter, held] of [[" 2 ", 2_000], ["12", 12_000], ["1.25", 1_250], ["5s", PROBE_INTERVAL_MS], ["~5", PROBE_INTERVAL_MS]] as const) {
      const { clock, sleeps } = fakeClock(1_700_000_000_000);
      const limiter = new RateLimiter(undefined, clock);
      const a = await limiter.acquire();
      limiter.observe(a, answer(429, { "retry-after": retryAfter }));
      await limiter.acquire();
      // no window end known: the budget is spent, so the next request is a probe a probe interval later
      expect({ retryAfter, sleeps }).toEqual({ retryAfter, sleeps: [held] });
    }
  });

  it("a pause holds every request until its end; an earlier end, also a later 429's, never shortens it", async () => {
    const { clock, sleeps } = fakeClock(1_700_000_000_000);
    const limiter = new RateLimiter(undefined, clock);
    limiter.pauseUntil(1_700_000_005_000);
    limiter.pauseUntil(1_700_000_001_000);
    limiter.observe(await limiter.acquire(), answer(200, {}));
    expect(sleeps).toEqual([5_000]);
    const [a, b] = [await limiter.acquire(), await limiter.acquire()];
    limiter.observe(a, answer(429, { "retry-after": "30" }));
    limiter.observe(b, answer(429, { "retry-after": "2" })); // answered later, names an earlier end
    await limiter.acquire();
    expect(sleeps).toEqual([5_000, 30_000]);
  });

  it("a Reset not after now (a server clock behind ours) is no window end: Retry-After, or else a probe, decides", async () => {
    const cases: [Record<string, string>, number][] = [
      [{ "retry-after": "2", "x-ratelimit-reset": "1699999990" }, 2_000],
      [{ "retry-after": "1", "x-ratelimit-reset": "1700000000" }, 1_000],
      [{ "x-ratelimit-reset": "1699999990" }, PROBE_INTERVAL_MS],
      [{ "x-ratelimit-reset": "1700000000" }, PROBE_INTERVAL_MS],
    ];
    for (const [headers, held] of cases) {
      const { clock, sleeps } = fakeClock(1_700_000_000_000);
      const limiter = new RateLimiter(undefined, clock);
      const a = await limiter.acquire();
      limiter.observe(a, answer(429, headers));
      await limiter.acquire();
      expect({ headers, sleeps }).toEqual({ headers, sleeps: [held] });
    }
  });

  it("a Reset with a fraction of a second ends the window at that fraction", async () => {
    const { clock, sleeps } = fakeClock(1_700_000_000_300);
    const limiter = new RateLimiter(undefined, clock);
    const a = await limiter.acquire();
    expect(limiter.observe(a, answer(429, { "retry-after": "1", "x-ratelimit-reset": "1700000000.75" }))).toBe(1_700_000_000_750);
    await limiter.acquire();
    expect(sleeps).toEqual([450]);
  });

  it("a limit of 0 is not learned: after the window every request goes, none is held for a probe", async () => {
    const { clock, sleeps } = fakeClock(1_700_000_000_000);
    const limiter = new RateLimiter(undefined, clock);
    const a = await limiter.acquire();
    limiter.observe(a, answer(429, { "retry-after": "1", "x-ratelimit-limit": "0" }));
    await Promise.all([limiter.acquire(), limiter.acquire()]);
    expect(sleeps).toEqual([1000]);
    expect(limiter.stats().limit).toBeUndefined();
  });

  it("a count that is not plain decimal digits (negative, hex) is ignored, never read as 'nothing left'", async () => {
    const { clock, sleeps } = fakeClock();
    const limiter = new RateLimiter(undefined, clock);
    const a = await limiter.acquire();
    limiter.observe(a, answer(200, { "x-ratelimit-limit": "3", "x-ratelimit-remaining": "-1" }));
    const b = await limiter.acquire();
    limiter.observe(b, answer(200, { "x-ratelimit-remaining": "0x0" }));
    limiter.observe(await limiter.acquire(), answer(200, {}));
    expect(sleeps).toEqual([]); // no request held for a probe
  });

  it("the configured cap is kept per account and can change; the account's limiter is shared and counted", () => {
    const { clock } = fakeClock();
    const limiter = limiterFor("https://api.cap.test/v1", "key-cap-1", 5, clock);
    expect(limiter.capPerSecond).toBe(5);
    expect(limiterFor("https://api.cap.test/v1", "key-cap-1", 2, clock)).toBe(limiter);
    expect(limiter.capPerSecond).toBe(2);
    const key = limiterKeys().find((k) => k.includes("api.cap.test"))!;
    expect(key).not.toContain("key-cap-1");
    expect(limiterStats()[key]).toEqual(limiter.stats());
  });
});

describe("rate limiter: the queue and the resources' deadlines (timeouts)", () => {
  /** A limiter that learned a limit of 2 with nothing left in the window: the next grant is a probe a second later. */
  async function spentLimiter() {
    const start = 1_700_000_000_000;
    const stepped = steppedClock(start);
    const limiter = new RateLimiter(undefined, stepped.clock);
    limiter.observe(await limiter.acquire(), answer(200, { "x-ratelimit-limit": "2", "x-ratelimit-remaining": "0" }));
    return { ...stepped, limiter, start };
  }
  const order: string[] = [];
  const tickets = new Map<string, number>();
  beforeEach(() => {
    order.splice(0);
    tickets.clear();
  });
  const take = (name: string) => (ticket: number) => {
    order.push(name);
    tickets.set(name, ticket);
    return ticket;
  };
  /** One probe a second: each grant's answer says the window is spent again. */
  async function grantOneByOne(count: number, limiter: RateLimiter, advance: (ms: number) => Promise<void>): Promise<void> {
    for (let i = 0; i < count; i++) {
      await advance(PROBE_INTERVAL_MS);
      limiter.observe(tickets.get(order.at(-1)!)!, answer(200, { "x-ratelimit-remaining": "0" }));
    }
  }

  it("with far deadlines (the default timeouts) or none, requests go in arrival order", async () => {
    const { limiter, advance, start } = await spentLimiter();
    const far = { orderAt: start + 30 * 60_000, expiresAt: start + 30 * 60_000 };
    const all = [limiter.acquire(undefined, far).then(take("a")), limiter.acquire().then(take("b")), limiter.acquire(undefined, far).then(take("c"))];
    await grantOneByOne(3, limiter, advance);
    await Promise.all(all);
    expect(order).toEqual(["a", "b", "c"]);
  });

  it("a request whose deadline is near goes ahead of those that joined after a horizon before it", async () => {
    const { limiter, advance, start } = await spentLimiter();
    const all = [
      limiter.acquire(undefined, { expiresAt: start + 30 * 60_000 }).then(take("far")),
      limiter.acquire().then(take("poll")),
      limiter.acquire(undefined, { orderAt: start + 5_000 }).then(take("near")),
    ];
    await grantOneByOne(3, limiter, advance);
    await Promise.all(all);
    expect(order).toEqual(["near", "far", "poll"]);
  });

  it("a write whose deadline passes while queued fails unsent, saying where the time went; a read is still sent", async () => {
    const { limiter, advance, start } = await spentLimiter();
    const write = limiter.acquire(undefined, { expiresAt: start + 500 }).catch((e: unknown) => e);
    const read = limiter.acquire(undefined, { orderAt: start + 500 }).then(take("read"));
    await advance(500);
    const error = await write;
    expect(error).toBeInstanceOf(QueuedPastDeadlineError);
    expect(error).toMatchObject({ waitedMs: 500, aheadWhenQueued: 0, queuedNow: 1, limit: 2 });
    expect((error as Error).message).toContain("was never sent (it changed nothing)");
    expect((error as Error).message).toContain("this provider's own queue");
    expect((error as Error).message).toContain("2 requests per window");
    expect((error as Error).message).toContain("Raise the resource's timeouts");
    expect(order).toEqual([]);
    await advance(500);
    await read;
    expect(order).toEqual(["read"]);
    expect(limiter.stats().granted).toBe(2); // the first request and the read: the write never got a ticket
  });

  it("tells a wait that timed out whether the host's rate limit paced the requests lately (its queue, not a slow host)", async () => {
    const quiet = new RateLimiter(undefined, steppedClock(1_700_000_000_000).clock);
    quiet.observe(await quiet.acquire(), answer(200, { "x-ratelimit-limit": "10", "x-ratelimit-remaining": "9" }));
    expect(quiet.describePacing()).toBeUndefined();
    const { limiter } = await spentLimiter();
    void limiter.acquire();
    expect(limiter.describePacing()).toBe(
      "the host's rate limit paced this provider's requests meanwhile (2 requests per window, learned from its X-RateLimit-Limit), " +
        "1 request(s) still queued in this provider, so that time went partly to its own queue rather than to a slow host",
    );
  });

  it("requests of operations underway (they sent a write) go ahead of those of operations that changed nothing yet", async () => {
    const { limiter, advance, start } = await spentLimiter();
    // three creates not sent yet, then the settle read of a create already sent (same deadline to the millisecond, as
    // a fleet's), then a status tick serving it and one more of its reads: before, the reads waited behind the creates
    // and the VM's create failed "did not become ready" with the VM made
    const due = start + 12_000;
    const all = [
      limiter.acquire(undefined, { orderAt: due, expiresAt: due }).then(take("create-2")),
      limiter.acquire(undefined, { orderAt: due, expiresAt: due }).then(take("create-3")),
      limiter.acquire(undefined, { orderAt: due + 1, expiresAt: due + 1 }).then(take("create-4")),
      limiter.acquire(undefined, { orderAt: due + 1, underway: true }).then(take("read-1")),
      limiter.acquire(undefined, { orderAt: due, underway: true }).then(take("tick")),
      limiter.acquire(undefined, { underway: true }).then(take("no-deadline-underway")),
    ];
    await grantOneByOne(6, limiter, advance);
    await Promise.all(all);
    // underway first (by deadline, then arrival), then the rest as before
    expect(order).toEqual(["tick", "read-1", "no-deadline-underway", "create-2", "create-3", "create-4"]);
  });

  it("a write that joins after its deadline passed (the clean-up of a failed operation) is sent, as before", async () => {
    const { limiter, advance, start, now } = await spentLimiter();
    await advance(200);
    const late = limiter.acquire(undefined, { expiresAt: start + 100 }).then(take("clean-up"));
    await advance(800);
    await late;
    expect(order).toEqual(["clean-up"]);
    expect(now() - start).toBe(PROBE_INTERVAL_MS);
  });
});

/** A create's input for the client tests below. */
const createInput = { locationId: 1, tierId: 2, templateId: 3, hostname: "web-1", cpu: 1, memory: 1, storage: 10, username: "deploy", password: "Choose-A-Passw0rd", usePublicIp: false };

describe("client: an operation is underway once one of its writes was sent", () => {

  it("a read does not make it underway; a write sent does, whatever its answer, for the whole operation only", async () => {
    const { pool, client, clock } = mockClient({ maxRetries: 0 });
    pool.intercept({ path: "/v1/instance/i-1/detail", method: "GET" }).reply(404, { message: "gone" });
    pool.intercept({ path: "/v1/instance/i-1/console-websocket", method: "POST" }).reply(200, { message: "ok", data: { token: "t" } });
    pool.intercept({ path: "/v1/instance/create", method: "POST" }).reply(500, { message: "Server Error" });
    const seen: boolean[] = [];
    await withRequestDeadline(clock.now() + 60_000, async () => {
      await client.instances.find("i-1");
      // (a POST that only mints a console token is a read in the routes table)
      await client.instances.console("i-1").catch(() => undefined);
      seen.push(currentOperationUnderway());
      // (a 500 after sending: the host may have made the VM all the same)
      await client.instances.create(createInput).catch(() => undefined);
      seen.push(currentOperationUnderway());
      // a nested scope (a narrower deadline inside the operation) is the same operation
      await withRequestDeadline(clock.now() + 1_000, async () => void seen.push(currentOperationUnderway()));
    });
    // another operation, and work outside any operation, are not
    await withRequestDeadline(clock.now() + 60_000, async () => void seen.push(currentOperationUnderway()));
    seen.push(currentOperationUnderway());
    expect(seen).toEqual([false, true, true, false, false]);
  });
});

describe("client: a write queued past its resource's deadline is never sent, and says so", () => {
  it("a create that waited in the queue until the deadline fails unsent, naming the request; the host never sees it", async () => {
    const { pool, client, calls, clock } = mockClient();
    pool.intercept({ path: "/v1/instance/i-1/detail", method: "GET" }).reply(404, { message: "gone" }, { headers: { "x-ratelimit-limit": "1", "x-ratelimit-remaining": "0" } });
    await client.instances.find("i-1"); // the window is spent: the next request waits for a probe a second later
    const error = await withRequestDeadline(clock.now() + 400, () =>
      client.instances.create(createInput),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QueuedPastDeadlineError);
    expect((error as Error).message).toMatch(/^POST \/instance\/create \(createInstance\) was never sent \(it changed nothing\): it waited 0\.4 s/);
    expect(calls()).toHaveLength(1); // only the first read
    // never sent: the operation changed nothing, and is not taken as underway
    expect(await withRequestDeadline(clock.now() + 400, async () => {
      await client.instances.create(createInput).catch(() => undefined);
      return currentOperationUnderway();
    })).toBe(false);
  });
});
