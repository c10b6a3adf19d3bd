import type { Clock } from "../clock";
import { currentQueuePlace, noteWriteSent, withRequestDeadline, type QueuePlace } from "../api/deadline";
import { SharedRead } from "./shared-read";
import { createGate } from "../../tests/support/gate";

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A list whose reads are recorded with the (fake) time they started; `hold()` keeps the next read unanswered. */
function fakeList() {
  let now = 0;
  let version = 0;
  const starts: number[] = [];
  const gate = createGate();
  const clock: Clock = { now: () => now, sleep: async (ms) => void (now += ms) };
  const readOnce = async () => {
    starts.push(now);
    const seen = version; // the list as it is when the read reaches it
    await gate.passed();
    return seen;
  };
  return {
    clock,
    readOnce,
    starts,
    change: () => void (version += 1),
    hold: gate.hold,
  };
}

describe("shared list read (disk and snapshot waits)", () => {
  it("answers every waiter asking together with one read, and spaces reads by the interval", async () => {
    const list = fakeList();
    const shared = new SharedRead(list.readOnce, 1000, list.clock);
    await Promise.all(Array.from({ length: 10 }, () => shared.read()));
    await Promise.all(Array.from({ length: 10 }, () => shared.read()));
    expect(list.starts).toEqual([0, 1000]);
    expect(shared.count).toBe(2);
  });

  it("never answers with a read that started before the ask; asks during a read share the next one", async () => {
    const list = fakeList();
    const shared = new SharedRead(list.readOnce, 1000, list.clock);
    const release = list.hold();
    const first = shared.read();
    await tick();
    await tick();
    list.change(); // e.g. the disk was attached after the first read reached the host
    const later = [shared.read(), shared.read(), shared.read()];
    await tick();
    expect(list.starts).toHaveLength(1); // no second read while one is in flight
    release();
    expect(await first).toBe(0);
    expect(await Promise.all(later)).toEqual([1, 1, 1]);
    expect(list.starts).toHaveLength(2);
  });

  it("a failed read fails its waiters only; the next ask reads again", async () => {
    let fail = true;
    const list = fakeList();
    const shared = new SharedRead(async () => {
      if (fail) throw new Error("HTTP 502");
      return list.readOnce();
    }, 1000, list.clock);
    await expect(shared.read()).rejects.toThrow("HTTP 502");
    fail = false;
    await expect(shared.read()).resolves.toBe(0);
  });

  it("a wait on injected time starts its read without the real-time interval", async () => {
    const list = fakeList();
    const shared = new SharedRead(list.readOnce, 1000, list.clock);
    await shared.read();
    await shared.read({ now: true });
    expect(list.starts).toEqual([0, 0]);
  });
});

describe("a shared list read's place in the rate limiter's queue", () => {
  it("carries the nearest deadline of its waiters, and goes with the operations underway when one of them is", async () => {
    const places: (QueuePlace | undefined)[] = [];
    const clock: Clock = { now: () => 0, sleep: async () => undefined };
    // (deadlines within the limiter's horizon of this clock's 0: a tight timeout, where the place matters)
    const shared = new SharedRead(async () => void places.push(currentQueuePlace()), 1000, clock);
    await Promise.all([
      withRequestDeadline(90_000, () => shared.read()),
      withRequestDeadline(8_000, async () => {
        noteWriteSent(); // this disk's attach was sent
        return shared.read();
      }),
    ]);
    // (before, a read not held open took its place from the askers left once its batch was closed, none: disk and
    // snapshot reads queued as if no resource waited for them)
    expect(places).toEqual([{ orderAt: 8_000, underway: true }]);
  });
});
