import { Deadline, WaitTimeoutError } from "../../wait/poll";
import { KeyedMutex } from "./lock";

/** A holder of the lock that runs until `release` is called (it has started when `started` resolves). */
function holding(m: KeyedMutex, key: string, log: string[], name: string) {
  let release!: () => void;
  let markStarted!: () => void;
  const started = new Promise<void>((r) => (markStarted = r));
  const done = m.run(key, async () => {
    log.push(`${name} start`);
    const released = new Promise<void>((r) => (release = r));
    markStarted();
    await released;
    log.push(`${name} end`);
  });
  return { done, release: async () => { await started; release(); } };
}

describe("KeyedMutex with a deadline (the resource's timeout bounds the wait in the queue)", () => {
  it("fails a caller whose deadline passes while queued, naming what waited and the timeout to raise, and never runs it", async () => {
    const m = new KeyedMutex();
    const log: string[] = [];
    const first = holding(m, "vm-1", log, "first");
    const late = m.run("vm-1", async () => void log.push("late ran"), { deadline: new Deadline(0, undefined, "create"), what: 'snapshot "nightly"' });
    const error = await late.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitTimeoutError);
    const timeout = error as WaitTimeoutError;
    expect(timeout.message).toMatch(/^timed out after \d+ms waiting for snapshot "nightly": other operations on the same instance \(from this deployment\) to finish first \(last status seen: queued behind another operation\); raise timeouts\.create/);
    expect(timeout.waitedMs).toBeLessThan(60_000);
    await first.release();
    await first.done;
    await new Promise((r) => setImmediate(r)); // the place given up is handed on a tick after the holder ends
    expect(log).toEqual(["first start", "first end"]);
    expect(m.activeKeys).toEqual([]);
  });
  it("keeps the order of the callers behind one that gave up", async () => {
    const m = new KeyedMutex();
    const log: string[] = [];
    const first = holding(m, "vm-1", log, "first");
    const late = m.run("vm-1", async () => void log.push("late ran"), { deadline: new Deadline(0) });
    const third = m.run("vm-1", async () => void log.push("third"));
    expect(m.activeKeys).toEqual(["vm-1"]);
    await expect(late).rejects.toThrow(/waiting for vm-1: other operations on the same instance/);
    expect(log).toEqual(["first start"]);
    await first.release();
    await third;
    expect(log).toEqual(["first start", "first end", "third"]);
    expect(m.activeKeys).toEqual([]);
  });
  it("runs a caller with time left as soon as its turn comes", async () => {
    const m = new KeyedMutex();
    const log: string[] = [];
    const first = holding(m, "vm-1", log, "first");
    const next = m.run("vm-1", async () => { log.push("next"); return 7; }, { deadline: new Deadline(3_600_000) });
    await first.release();
    await expect(next).resolves.toBe(7);
    expect(log).toEqual(["first start", "first end", "next"]);
  });
});

describe("KeyedMutex (one operation at a time per instance)", () => {
  it("runs callers with the same key one after another, in order, even when one fails", async () => {
    const m = new KeyedMutex();
    const log: string[] = [];
    let releaseFirst!: () => void;
    const first = m.run("vm-1", async () => {
      log.push("first start");
      await new Promise<void>((r) => (releaseFirst = r));
      log.push("first end");
      throw new Error("boom");
    });
    const second = m.run("vm-1", async () => void log.push("second"));
    const other = m.run("vm-2", async () => void log.push("other key"));
    await other;
    expect(log).toEqual(["first start", "other key"]);
    releaseFirst();
    await expect(first).rejects.toThrow("boom");
    await second;
    expect(log).toEqual(["first start", "other key", "first end", "second"]);
    expect(m.activeKeys).toEqual([]);
  });
});
