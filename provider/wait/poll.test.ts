import { ServerError, ValidationError } from "../api/errors";
import { Deadline, nextPollDelay, pollUntil, retryUntilDeadline, WaitFailedError, WaitTimeoutError, PollVerdict } from "./poll";

/** A fake clock: sleeping advances time instantly, so these tests never wait for real. */
function fakeTime() {
  let t = 0;
  return { now: () => t, sleep: async (ms: number) => void (t += ms), advance: (ms: number) => void (t += ms) };
}
const schedule = { fastMs: 250, maxMs: 10_000 };

describe("deadline", () => {
  it("counts down on its clock and has passed exactly at its end", () => {
    let t = 1_000;
    const d = new Deadline(60_000, () => t);
    expect(d.remainingMs()).toBe(60_000);
    t += 45_000;
    expect(d.remainingMs()).toBe(15_000);
    expect(d.expired()).toBe(false);
    t += 15_000;
    expect(d.expired()).toBe(true);
    expect(d.remainingMs()).toBe(0);
  });
});

describe("wait errors", () => {
  it("name themselves, the status only when one was seen, and the timeouts key to raise", () => {
    const bare = new WaitTimeoutError("instance vm-1 to be created", undefined, 90_000);
    expect(String(bare)).toBe("WaitTimeoutError: timed out after 1m30s waiting for instance vm-1 to be created; raise the resource's timeouts input if the host is slow");
    const phased = new WaitTimeoutError("instance vm-1 to be deleted", "Deleting", 30_000, "delete");
    expect(phased.message).toBe('timed out after 30s waiting for instance vm-1 to be deleted (last status seen: Deleting); raise timeouts.delete (e.g. timeouts: { delete: "30m" }) if the host is slow');
    expect(String(new WaitFailedError("snapshot s-1 to be Ready", "status Error"))).toBe("WaitFailedError: snapshot s-1 to be Ready failed: status Error");
  });
});

describe("polling schedule", () => {
  it("without an estimate polls every interval (noticed within one interval, also in a fresh process)", () => {
    expect(nextPollDelay(0, undefined, schedule)).toBe(250);
    expect(nextPollDelay(600_000, undefined, schedule)).toBe(250);
  });
  it("with an estimate sleeps until a tenth before the usual finish, then polls every interval", () => {
    expect(nextPollDelay(0, 60_000, schedule)).toBe(54_000);
    expect(nextPollDelay(54_000, 60_000, schedule)).toBe(250);
    expect(nextPollDelay(61_000, 60_000, schedule)).toBe(250);
    // part way through the first sleep (a wait that started late): sleep only the rest of it
    expect(nextPollDelay(20_000, 60_000, schedule)).toBe(34_000);
  });
  it("keeps polling every interval until half again the usual duration (plus one interval), then backs off", () => {
    expect(nextPollDelay(80_000, 60_000, schedule)).toBe(250);
    expect(nextPollDelay(90_250, 60_000, schedule)).toBe(250);
    expect(nextPollDelay(90_260, 60_000, schedule)).toBe(3_026);
  });
  it("a planned poll: no poll starts within its lead before it, the sleep ends at it instead; after it the schedule is as before", () => {
    const planned = { atMs: 60_300, leadMs: 900 };
    expect(nextPollDelay(0, 60_000, schedule, planned)).toBe(54_000);
    expect(nextPollDelay(54_000, 60_000, schedule, planned)).toBe(250);
    expect(nextPollDelay(59_100, 60_000, schedule, planned)).toBe(250); // answered by 59_350 + a tick: before it
    expect(nextPollDelay(59_200, 60_000, schedule, planned)).toBe(1_100); // would start within the lead: sleep until it
    expect(nextPollDelay(60_300, 60_000, schedule, planned)).toBe(250);
    expect(nextPollDelay(90_260, 60_000, schedule, planned)).toBe(3_026);
    // a planned poll far ahead of a long sleep cuts it short (after one look just before it: none came near it)
    expect(nextPollDelay(0, 60_000, schedule, { atMs: 30_000, leadMs: 900 })).toBe(29_100);
    expect(nextPollDelay(29_100, 60_000, schedule, { atMs: 30_000, leadMs: 900 })).toBe(900);
  });
  it("a short usual duration (its tenth within the lead): one look just before the planned poll, so a usual duration too long shows", () => {
    // 3.4 s known, end read at 3.85 s: without that look the first look after the start was the end read, which then
    // always found the operation over and kept 3.4 s for 2 s operations (fleet audit: 1.9 s late at every run)
    const planned = { atMs: 3_850, leadMs: 900 };
    expect(nextPollDelay(50, 3_400, schedule, planned)).toBe(2_900);
    expect(nextPollDelay(2_950, 3_400, schedule, planned)).toBe(900);
    // no second one when a look came within a lead of it already
    expect(nextPollDelay(2_100, 3_400, schedule, planned)).toBe(1_750);
  });
  it("far past the usual finish backs off up to the cap", () => {
    expect(nextPollDelay(120_000, 60_000, schedule)).toBe(6_000);
    expect(nextPollDelay(3_600_000, 60_000, schedule)).toBe(10_000);
  });
  it("a lone 60 s operation whose duration is known costs at most 12 polls", () => {
    let polls = 1;
    for (let t = 0; t < 60_000; polls++) t += nextPollDelay(t, 60_000, { fastMs: 900, maxMs: 10_000 });
    expect(polls).toBeLessThanOrEqual(12);
  });
});

describe("pollUntil", () => {
  it("returns as soon as the poll says done, polling first at once", async () => {
    const clock = fakeTime();
    const statuses = ["creating", "creating", "Running"];
    let polls = 0;
    const value = await pollUntil<string>({
      what: "instance vm-1 to be created",
      deadline: new Deadline(60_000, clock.now),
      poll: async (): Promise<PollVerdict<string>> => {
        const s = statuses[polls++]!;
        return s === "Running" ? { done: true, value: s } : { done: false, status: s };
      },
      schedule, now: clock.now, sleep: clock.sleep,
    });
    expect(value).toBe("Running");
    expect(polls).toBe(3);
    expect(clock.now()).toBe(500);
  });

  it("fails at once on a failure verdict, naming what failed", async () => {
    const clock = fakeTime();
    await expect(
      pollUntil({
        what: "instance vm-1 to finish resize", deadline: new Deadline(60_000, clock.now),
        poll: async () => ({ failed: true as const, message: "status Error" }), now: clock.now, sleep: clock.sleep,
      }),
    ).rejects.toEqual(new WaitFailedError("instance vm-1 to finish resize", "status Error"));
  });

  it("times out at the deadline with the last status seen, logging progress on the way", async () => {
    const clock = fakeTime();
    const lines: string[] = [];
    const err = await pollUntil({
      what: "instance vm-1 to be created", deadline: new Deadline(60_000, clock.now),
      poll: async () => ({ done: false as const, status: "creating" }),
      schedule, now: clock.now, sleep: clock.sleep, log: (l) => lines.push(l), progressEveryMs: 15_000,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect((err as WaitTimeoutError).message).toMatch(/timed out after 1m0?s? waiting for instance vm-1 to be created \(last status seen: creating\)/);
    expect(clock.now()).toBeGreaterThanOrEqual(60_000);
    expect(clock.now()).toBeLessThan(61_000);
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(lines[0]).toMatch(/status creating, .* elapsed, .* left/);
  });

  it("a wait whose requests the host's rate limit paced says the time went to the provider's queue, not to a slow host", async () => {
    const clock = fakeTime();
    const pacing = "the host's rate limit paced this provider's requests meanwhile (2 requests per window), 18 request(s) still queued in this provider";
    let paced = false;
    const err = await pollUntil({
      what: "instance vm-1 (q-5) to finish creating", deadline: new Deadline(8_000, clock.now, "create"),
      poll: async () => ({ done: false as const, status: "creating" }),
      schedule, now: clock.now, sleep: clock.sleep, pacing: () => (paced ? pacing : undefined),
    }).catch((e: unknown) => e);
    expect((err as WaitTimeoutError).message).toMatch(/raise timeouts\.create \(e\.g\. timeouts: \{ create: "30m" \}\) if the host is slow$/);
    paced = true;
    const queued = await pollUntil({
      what: "instance vm-1 (q-5) to finish creating", deadline: new Deadline(8_000, clock.now, "create"),
      poll: async () => ({ done: false as const, status: "creating" }),
      schedule, now: clock.now, sleep: clock.sleep, pacing: () => (paced ? pacing : undefined),
    }).catch((e: unknown) => e);
    expect((queued as WaitTimeoutError).message).toMatch(
      /\(last status seen: creating\); the host's rate limit paced this provider's requests meanwhile \(2 requests per window\), 18 request\(s\) still queued in this provider; raise timeouts\.create \(e\.g\. timeouts: \{ create: "30m" \}\) or change fewer resources at once \(pulumi up --parallel, or --target\)$/,
    );
  });

  it("never sleeps less than a millisecond: a clock at today's epoch still moves, so the deadline is reached", async () => {
    // Found as a hang: at epoch-millisecond magnitudes the wake-up delay before a learned end came out as 0.0001 ms
    // (floating-point rounding of the elapsed time), which an injected clock cannot add, so the wait polled forever.
    let t = 1_731_639_674_140;
    let polls = 0;
    const err = await pollUntil({
      what: "deletion", deadline: new Deadline(20_000, () => t), expectedMs: 10_476,
      poll: async () => {
        if (++polls > 1_000) throw new Error("polled 1000 times without the clock moving");
        return { done: false as const, status: "deleting" };
      },
      schedule: { fastMs: 900, maxMs: 10_000 }, now: () => t, sleep: async (ms) => void (t += ms),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect(polls).toBeLessThan(30);
  });

  it("measures the time waited from the wait's start, whatever the clock reads", async () => {
    const clock = fakeTime();
    clock.advance(1_700_000_000_000);
    const err = await pollUntil({
      what: "instance vm-1 to be created", deadline: new Deadline(60_000, clock.now, "create"),
      poll: async () => ({ done: false as const, status: "creating" }), schedule, now: clock.now, sleep: clock.sleep,
    }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/^timed out after 1m waiting for instance vm-1 to be created/);
  });

  it("logs progress once per progress interval, not on every poll", async () => {
    const clock = fakeTime();
    const lines: string[] = [];
    await pollUntil({
      what: "instance vm-1 to be created", deadline: new Deadline(60_000, clock.now),
      poll: async () => ({ done: false as const, status: "creating" }),
      schedule: { fastMs: 5_000, maxMs: 5_000 }, now: clock.now, sleep: clock.sleep, log: (l) => lines.push(l), progressEveryMs: 15_000,
    }).catch(() => undefined);
    expect(lines).toEqual([
      "still waiting for instance vm-1 to be created: status creating, 15s elapsed, 45s left",
      "still waiting for instance vm-1 to be created: status creating, 30s elapsed, 30s left",
      "still waiting for instance vm-1 to be created: status creating, 45s elapsed, 15s left",
    ]);
  });
});

describe("pollUntil under transient API failures", () => {
  const serverError = () => new ServerError({ operation: "listSnapshots", method: "GET", path: "/x", status: 500, apiMessage: "Server Error" });

  it("reads a transient failure as 'status unknown' and goes on", async () => {
    const clock = fakeTime();
    let polls = 0;
    const value = await pollUntil<string>({
      what: "snapshot s-1 to be ready", deadline: new Deadline(60_000, clock.now), schedule, now: clock.now, sleep: clock.sleep,
      poll: async () => {
        polls++;
        if (polls <= 2) throw serverError();
        return { done: true, value: "Ready" };
      },
    });
    expect(value).toBe("Ready");
    expect(polls).toBe(3);
  });

  it("names the failure as the last status when the deadline passes while polls fail", async () => {
    const clock = fakeTime();
    let polls = 0;
    const err = await pollUntil<string>({
      what: "snapshot s-1 to be ready", deadline: new Deadline(1_000, clock.now), schedule, now: clock.now, sleep: clock.sleep,
      poll: async () => {
        if (++polls > 1) throw serverError();
        return { done: false, status: "creating" };
      },
    }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/\(last status seen: unknown \(.*HTTP 500.*\)\)/);
  });

  it("ends with the error after too many failures in a row, and at once on a non-transient one", async () => {
    const clock = fakeTime();
    let polls = 0;
    await expect(
      pollUntil({ what: "w", deadline: new Deadline(3_600_000, clock.now), schedule, now: clock.now, sleep: clock.sleep,
        poll: async () => { polls++; throw serverError(); } }),
    ).rejects.toBeInstanceOf(ServerError);
    expect(polls).toBe(5);
    polls = 0;
    const invalid = new ValidationError({ operation: "x", method: "GET", path: "/x", status: 422, apiMessage: "bad" });
    await expect(
      pollUntil({ what: "w", deadline: new Deadline(3_600_000, clock.now), schedule, now: clock.now, sleep: clock.sleep,
        poll: async () => { polls++; throw invalid; } }),
    ).rejects.toBe(invalid);
    expect(polls).toBe(1);
  });
});

describe("pollUntil: the deadline also bounds a poll in flight", () => {
  it("ends with WaitTimeoutError (last status seen) when a poll outlasts the deadline", async () => {
    let polls = 0;
    const never = new Promise<PollVerdict<string>>(() => undefined);
    const err = await pollUntil<string>({
      what: "instance vm-1 to be deleted", deadline: new Deadline(200), schedule: { fastMs: 1, maxMs: 1 },
      poll: async () => (++polls === 1 ? { done: false, status: "Deleting" } : never),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect((err as Error).message).toMatch(/waiting for instance vm-1 to be deleted \(last status seen: Deleting\)/);
  });

  it("also bounds the last poll, made once the sleep before it reached the deadline, and a wait begun past its deadline", async () => {
    const never = new Promise<PollVerdict<string>>(() => undefined);
    // The test's own bound: without it a wait that ignores its deadline would hang until jest's timeout.
    const stillWaiting = (ms: number) => new Promise<string>((resolve) => setTimeout(() => resolve("still waiting"), ms).unref());
    let polls = 0;
    const lastPoll = pollUntil<string>({
      what: "instance vm-1 to be deleted", deadline: new Deadline(30, Date.now, "delete"), schedule: { fastMs: 60_000, maxMs: 60_000 },
      poll: async () => (++polls === 1 ? { done: false, status: "Deleting" } : never),
    }).catch((e: unknown) => e);
    const err = await Promise.race([lastPoll, stillWaiting(2_000)]);
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect((err as Error).message).toMatch(/waiting for instance vm-1 to be deleted \(last status seen: Deleting\); raise timeouts\.delete /);
    expect(polls).toBe(2);
    const begunLate = pollUntil<string>({ what: "instance vm-1 to be deleted", deadline: new Deadline(0), poll: () => never }).catch((e: unknown) => e);
    expect(await Promise.race([begunLate, stillWaiting(2_000)])).toBeInstanceOf(WaitTimeoutError);
  });

  it("names the time waited and the timeouts key of the operation", async () => {
    const never = new Promise<PollVerdict<string>>(() => undefined);
    const err = await pollUntil<string>({ what: "instance vm-1 to be deleted", deadline: new Deadline(50, Date.now, "delete"), poll: () => never }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/^timed out after \d+ms waiting for instance vm-1 to be deleted; raise timeouts\.delete /);
  });

  it("takes the answer of a poll that needs a moment, well within the deadline", async () => {
    const value = await pollUntil<string>({
      what: "w", deadline: new Deadline(60_000),
      poll: () => new Promise((resolve) => setTimeout(() => resolve({ done: true, value: "Ready" }), 20)),
    });
    expect(value).toBe("Ready");
  });

  it("leaves no timer behind once the wait is over (the provider process can exit at once, not at the deadline)", async () => {
    jest.useFakeTimers();
    try {
      const value = await pollUntil<string>({ what: "w", deadline: new Deadline(3_600_000), poll: async () => ({ done: true, value: "Ready" }) });
      expect(value).toBe("Ready");
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  it("keeps to injected time: a poll slower in real time than the deadline on the injected clock still counts", async () => {
    // injected time: the wait keeps to its own clock, however long the poll takes in real time
    const slow = <T>(v: T) => new Promise<T>((resolve) => setTimeout(() => resolve(v), 20));
    const clock = fakeTime();
    for (const injected of [{ now: clock.now }, { sleep: clock.sleep }]) {
      const value = await pollUntil<string>({ what: "w", deadline: new Deadline(1, clock.now), ...injected, poll: () => slow({ done: true as const, value: "Ready" }) });
      expect(value).toBe("Ready");
    }
  });
});

describe("retryUntilDeadline", () => {
  /** Time that moves only when the loop sleeps, so backoffs are exact and instant. */
  function fakeTime() {
    let now = 0;
    return { now: () => now, sleep: async (ms: number) => void (now += ms) };
  }
  const retryable = (e: unknown) => e instanceof Error && e.message === "busy";

  it("retries a retryable answer with growing backoff until it succeeds", async () => {
    const time = fakeTime();
    const waits: number[] = [];
    let calls = 0;
    const value = await retryUntilDeadline(
      { deadline: new Deadline(60_000, time.now), retryable, atDeadline: () => new Error("late"), sleep: async (ms) => (waits.push(ms), time.sleep(ms)) },
      async () => (++calls < 4 ? Promise.reject(new Error("busy")) : "done"),
    );
    expect(value).toBe("done");
    expect(waits).toEqual([250, 500, 1000]);
  });

  it("throws what atDeadline makes of the last error once the deadline passed, never sleeping past it", async () => {
    const time = fakeTime();
    const error = await retryUntilDeadline(
      { deadline: new Deadline(3_000, time.now), retryable, atDeadline: (last) => new Error(`gave up after ${(last as Error).message}`), sleep: time.sleep },
      async () => Promise.reject(new Error("busy")),
    ).catch((e: unknown) => e);
    expect((error as Error).message).toBe("gave up after busy");
    expect(time.now()).toBe(3_000);
  });

  it("rethrows an error that is not retryable at once", async () => {
    const time = fakeTime();
    let calls = 0;
    await expect(
      retryUntilDeadline({ deadline: new Deadline(60_000, time.now), retryable, atDeadline: () => new Error("late"), sleep: time.sleep }, async () => {
        calls++;
        throw new Error("refused");
      }),
    ).rejects.toThrow("refused");
    expect(calls).toBe(1);
  });
});
