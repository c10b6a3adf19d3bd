import type { Clock } from "../../clock";
import { Deadline } from "../../wait/poll";
import { DeploymentActivity } from "./activity";

/** A clock whose sleeps pass at once (after letting other promises run), moving the time on. */
function fakeClock() {
  let now = 1_000_000;
  const clock: Clock = {
    now: () => now,
    sleep: async (ms) => {
      const wake = now + ms; // sleepers side by side share the time: the clock moves to the latest wake-up
      await new Promise((resolve) => setImmediate(resolve));
      now = Math.max(now, wake);
    },
  };
  return { clock, now: () => now };
}

const QUIET = 1_000;

describe("DeploymentActivity (a create waiting for the rest of the deployment)", () => {
  it("answers at once, without waiting, when nothing else runs and nothing ended lately", async () => {
    const { clock, now } = fakeClock();
    const activity = new DeploymentActivity(clock, QUIET);
    const start = now();
    const waited = await activity.track(() => activity.waitForOthers(new Deadline(60_000, clock.now)));
    expect([waited, now() - start]).toEqual([false, 0]);
  });

  it("a Diff that just answered counts as activity: its step is about to start, so a wait lasts the quiet pause", async () => {
    const { clock, now } = fakeClock();
    const activity = new DeploymentActivity(clock, QUIET);
    activity.noteDiffed();
    const start = now();
    const waited = await activity.track(() => activity.waitForOthers(new Deadline(60_000, clock.now)));
    expect(waited).toBe(true);
    expect(now() - start).toBeGreaterThanOrEqual(QUIET);
  });

  it("waits until another running call has ended and the quiet pause has passed", async () => {
    const { clock, now } = fakeClock();
    const activity = new DeploymentActivity(clock, QUIET);
    let finishOther!: () => void;
    const other = activity.track(() => new Promise<void>((resolve) => (finishOther = resolve)));
    const start = now();
    const waiting = activity.track(() => activity.waitForOthers(new Deadline(60_000, clock.now)));
    // the other call runs for (at least) two seconds of the clock
    while (now() - start < 2_000) await new Promise((resolve) => setImmediate(resolve));
    const endedAt = now();
    finishOther();
    await other;
    expect(await waiting).toBe(true);
    expect(now() - endedAt).toBeGreaterThanOrEqual(QUIET);
    expect(now() - endedAt).toBeLessThan(QUIET + 200);
  });

  it("creates refused after waiting for the others never hold each other up (one quiet pause for all)", async () => {
    const { clock, now } = fakeClock();
    const activity = new DeploymentActivity(clock, QUIET);
    const deadline = new Deadline(60_000, clock.now);
    const start = now();
    let finishOther!: () => void;
    const other = activity.track(() => new Promise<void>((resolve) => (finishOther = resolve)));
    const waited: boolean[] = [];
    const refused = async () => {
      waited.push(await activity.waitForOthers(deadline));
      throw new Error("refused: a stranger holds the hostname");
    };
    const waiting = Promise.allSettled([1, 2, 3].map(() => activity.track(refused)));
    while (now() - start < 3_000) await new Promise((resolve) => setImmediate(resolve));
    finishOther();
    await other;
    expect((await waiting).map((r) => r.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect(waited).toEqual([true, true, true]);
    expect(now() - start).toBeLessThan(3_000 + QUIET + 200);
  });

  it("waits that began together are released together, though each released one then works (adoptions of one up)", async () => {
    const { clock, now } = fakeClock();
    const activity = new DeploymentActivity(clock, QUIET);
    const deadline = new Deadline(60_000, clock.now);
    let finishOther!: () => void;
    const other = activity.track(() => new Promise<void>((resolve) => (finishOther = resolve)));
    const start = now();
    const released: number[] = [];
    // each adoption: waits (not a tracked call yet), then its tracked create takes 5 s
    const adoption = async () => {
      await activity.waitForOthers(deadline, false);
      released.push(now() - start);
      await activity.track(() => clock.sleep(5_000));
    };
    const all = Promise.all([adoption(), adoption(), adoption()]);
    while (now() - start < 2_000) await new Promise((resolve) => setImmediate(resolve));
    finishOther();
    await other;
    await all;
    // audit: released one after another, each behind the previous one's create and a new pause
    expect(Math.max(...released) - Math.min(...released)).toBeLessThanOrEqual(200);
    expect(Math.min(...released)).toBeGreaterThanOrEqual(2_000 + QUIET); // not before the other call ended, plus the pause
    expect(Math.max(...released)).toBeLessThan(2_000 + QUIET + 300); // and all within one pause of it
  });

  it("a call that ended lately makes it wait out the quiet pause (the engine registering what waited for it)", async () => {
    const { clock, now } = fakeClock();
    const activity = new DeploymentActivity(clock, QUIET);
    await activity.track(async () => undefined);
    const endedAt = now();
    expect(await activity.track(() => activity.waitForOthers(new Deadline(60_000, clock.now)))).toBe(true);
    expect(now() - endedAt).toBeGreaterThanOrEqual(QUIET);
  });

  it("stops at the deadline while others still run", async () => {
    const { clock, now } = fakeClock();
    const activity = new DeploymentActivity(clock, QUIET);
    void activity.track(() => new Promise<void>(() => undefined)); // never ends
    const start = now();
    expect(await activity.track(() => activity.waitForOthers(new Deadline(5_000, clock.now)))).toBe(true);
    expect(now() - start).toBe(5_000);
  });
});
