/**
 * The one clock of the provider: every wait, deadline, retry pause and duration measurement reads the time and
 * sleeps through a {@link Clock}, so tests inject one fake clock (hcloud-go's action waiter takes its poll
 * interval from options the same way) and no module keeps its own `Date.now()` / `setTimeout`.
 */

/** Clock used for waits, so tests run retries, pacing and waits without real delays. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms` milliseconds (rejects with the signal's reason if it aborts). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Node's timers hold at most this (a longer one fires at once, with a TimeoutOverflowWarning). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The real clock. A sleep longer than a timer can hold is slept in parts. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: async (ms, signal) => {
    let left = Math.max(0, ms);
    for (; left > MAX_TIMER_MS; left -= MAX_TIMER_MS) await sleepOnce(MAX_TIMER_MS, signal);
    return sleepOnce(left, signal);
  },
};

function sleepOnce(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, Math.max(0, ms));
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Settles with `fn()`'s value once `ms` have passed on `clock`, unless `cancel()` is called first (then it never
 * settles and holds no timer). For races such as "the deadline passes before the poll answers".
 */
export function after<T>(ms: number, fn: () => T, clock: Clock = systemClock): { promise: Promise<T>; cancel: () => void } {
  const abort = new AbortController();
  const promise = clock.sleep(ms, abort.signal).then(fn, () => new Promise<T>(() => undefined));
  return { promise, cancel: () => abort.abort() };
}
