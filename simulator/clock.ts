/**
 * Time source of the simulator. Every time-dependent behaviour (operation progress, timestamps, the
 * per-second request budget, RRD buckets, invoice settlement) reads `now()` lazily on each request, and
 * the simulator runs no timers, so a test that injects a {@link ManualClock} controls progress exactly
 * instead of sleeping.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** The real wall clock (the default). */
export const systemClock: Clock = { now: () => Date.now() };

/**
 * A clock that only moves when told to: operations started under it finish when the test advances the
 * clock past their end, and the next request (or admin read) observes the new state.
 */
export class ManualClock implements Clock {
  private current: number;

  /** @param start epoch milliseconds to start at (default 2024-11-15T03:00:00Z, a fixed instant). */
  constructor(start: number = Date.UTC(2024, 10, 15, 3, 0, 0)) {
    this.current = start;
  }

  /** Current simulated time in epoch milliseconds. */
  now(): number {
    return this.current;
  }

  /** Moves time forward by `ms` milliseconds (negative values are refused: time never runs back). */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`ManualClock.advance: ${ms} is not a non-negative number of ms`);
    this.current += ms;
  }

  /** Moves time forward by `seconds` seconds. */
  advanceSeconds(seconds: number): void {
    this.advance(seconds * 1000);
  }

  /** Sets the time; it may not be earlier than the current time. */
  set(epochMs: number): void {
    if (epochMs < this.current) throw new RangeError("ManualClock.set: time never runs back");
    this.current = epochMs;
  }
}
