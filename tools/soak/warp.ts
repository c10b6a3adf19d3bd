/**
 * Time warp for the soak: every duration runs `factor` times faster than wall time, on both sides at once.
 *
 * The provider's waits are real: retry backoffs of up to 15 s, Retry-After of at least 1 s, polls, deadlines
 * of minutes. A soak of 500+ lifecycles cannot spend that in wall time, and the provider has no knob for it
 * (and must not get one for the soak's sake). So the provider's process runs on a warped clock
 * ({@link installTimeWarp}: `Date.now` runs fast, timers fire early) and the simulator on the same warped
 * clock ({@link warpedClock}): an operation of 2 simulated seconds takes 0.2 s of wall time at factor 10, and
 * the provider's 2-second poll interval and 20-second deadline shrink alike, so every ratio the provider
 * sees (operation length vs deadline vs backoff vs rate-limit window) is the one it would see unwarped.
 */

/** The simulator's clock, `factor` times faster than wall time from `origin` on. */
export function warpedClock(factor: number, origin: number = Date.now()): { now(): number } {
  return { now: () => origin + (Date.now() - origin) * factor };
}

/**
 * Warps this process: `Date.now()` (and `new Date()` without arguments) run `factor` times faster, and
 * `setTimeout` / `setInterval` delays are divided by `factor`. Call it before anything captures the timers.
 */
export function installTimeWarp(factor: number): void {
  if (!(factor >= 1)) throw new RangeError(`time warp factor must be >= 1, got ${factor}`);
  if (factor === 1) return;
  const realNow = Date.now.bind(Date);
  const origin = realNow();
  const warpedNow = (): number => origin + (realNow() - origin) * factor;
  const RealDate = Date;
  // `new Date()` must agree with `Date.now()` (deadlines and log times are built from both).
  class WarpedDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(warpedNow());
      else super(...(args as [string]));
    }
    static override now(): number {
      return warpedNow();
    }
  }
  globalThis.Date = WarpedDate as DateConstructor;
  const realSetTimeout = globalThis.setTimeout;
  const realSetInterval = globalThis.setInterval;
  const scale = (ms: unknown): number => Math.max(0, Number(ms ?? 0) / factor);
  globalThis.setTimeout = ((fn: (...a: unknown[]) => void, ms?: number, ...rest: unknown[]) =>
    realSetTimeout(fn, scale(ms), ...rest)) as typeof setTimeout;
  globalThis.setInterval = ((fn: (...a: unknown[]) => void, ms?: number, ...rest: unknown[]) =>
    realSetInterval(fn, scale(ms), ...rest)) as typeof setInterval;
}
