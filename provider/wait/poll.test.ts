import { ServerError, ValidationError } from "../api/errors";
import { Deadline, nextPollDelay, pollUntil, WaitFailedError, WaitTimeoutError, PollVerdict } from "./poll";

/** A fake clock: sleeping advances time instantly, so these tests never wait for real. */
function fakeTime() {
  let t = 0;
  return { now: () => t, sleep: async (ms: number) => void (t += ms), advance: (ms: number) => void (t += ms) };
}
const schedule = { fastMs: 250, maxMs: 10_000, fastPhaseMs: 2_000 };

describe("polling schedule", () => {
  it("polls fast at first, backs off in between, and is fast again near the expected finish", () => {
    expect(nextPollDelay(500, 120_000, schedule)).toBe(250);
    const middle = nextPollDelay(30_000, 120_000, schedule);
    expect(middle).toBeGreaterThan(5_000);
    expect(middle).toBeLessThanOrEqual(10_000);
    expect(nextPollDelay(118_000, 120_000, schedule)).toBe(250);
  });
  it("without an estimate, backs off geometrically up to the cap", () => {
    expect(nextPollDelay(4_000, undefined, schedule)).toBe(1_000);
    expect(nextPollDelay(600_000, undefined, schedule)).toBe(10_000);
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
