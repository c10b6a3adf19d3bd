import { systemClock } from "./clock";

describe("systemClock.sleep", () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it("waits the whole time even beyond what one timer holds (2^31-1 ms): a long deadline never ends at once", async () => {
    let done = false;
    const asleep = systemClock.sleep(2 ** 31 + 5_000).then(() => (done = true));
    await jest.advanceTimersByTimeAsync(2 ** 31 - 1);
    expect(done).toBe(false);
    await jest.advanceTimersByTimeAsync(5_000);
    expect(done).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    await asleep;
    expect(done).toBe(true);
  });

  it("stops when its signal aborts, also in a later part", async () => {
    const abort = new AbortController();
    const asleep = systemClock.sleep(2 ** 32, abort.signal);
    await jest.advanceTimersByTimeAsync(2 ** 31);
    abort.abort(new Error("cancelled"));
    await expect(asleep).rejects.toThrow("cancelled");
  });
});
