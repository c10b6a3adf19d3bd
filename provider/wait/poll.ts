import { NetworkError, RateLimitedError, ServerError, TimeoutError } from "../api/errors";
import { after, systemClock } from "../clock";
import { formatDuration } from "../duration";

/** Where progress lines of long waits go (the provider routes them to Pulumi's log / stderr). */
export type ProgressLogger = (line: string) => void;

/** The resource operation a deadline bounds; its timeout is set by `timeouts.<phase>`. */
export type TimeoutPhase = "create" | "update" | "delete";

/**
 * A point in time by which a wait must have finished. One deadline bounds a whole create, update or delete
 * (every wait in it, the per-instance lock included); `phase` names the `timeouts` key that sets it, so a
 * timeout message tells the user which key to raise.
 */
export class Deadline {
  readonly at: number;
  constructor(
    readonly totalMs: number,
    private readonly now: () => number = systemClock.now,
    readonly phase?: TimeoutPhase,
  ) {
    this.at = now() + totalMs;
  }
  remainingMs(): number {
    return Math.max(0, this.at - this.now());
  }
  expired(): boolean {
    return this.now() >= this.at;
  }
}

/**
 * The polling schedule. Goals (issue 11): every operation noticed within about a second of its end, also in a
 * fresh process that knows nothing about the host, at about one status request per second for all waits
 * together (the shared poller, status-poller.ts, makes that hold however many VMs wait); and once the usual
 * duration of an operation kind is known (durations.ts keeps it across runs), few requests per wait.
 * So: without an estimate, poll every `fastMs`; with one, poll once at the start (fast operations such as a
 * rename are done at once), sleep until shortly before the usual finish, then poll every `fastMs`; far past it
 * (a host having a slow day), back off up to `maxMs`.
 */
export interface PollSchedule {
  /** The interval when nothing is known, and near the expected finish. */
  fastMs: number;
  /** The longest interval between two polls (far past the expected finish). */
  maxMs: number;
}

/** The default schedule: 0.9 s / 10 s (`VMHOST_POLL_FAST_MS` / `VMHOST_POLL_MAX_MS` override them, for tests). */
export const defaultPollSchedule: PollSchedule = {
  fastMs: Number(process.env.VMHOST_POLL_FAST_MS ?? 900),
  maxMs: Number(process.env.VMHOST_POLL_MAX_MS ?? 10_000),
};

/**
 * A poll the wait makes at a set time (the end read of waitForInstanceSettled): no other poll starts within
 * `leadMs` before it (a poll answered by the next shared tick could otherwise still be waiting then).
 */
export interface PlannedPoll {
  /** When, in ms since the wait started. */
  atMs: number;
  /** How long before it no other poll starts. */
  leadMs: number;
}

/**
 * The delay before the next poll, given how long we have waited, how long the operation usually takes, and the
 * planned poll still ahead, if any (the delay then ends at it rather than just before it).
 */
export function nextPollDelay(elapsedMs: number, expectedMs: number | undefined, schedule: PollSchedule, planned?: PlannedPoll): number {
  const delay = scheduledDelay(elapsedMs, expectedMs, schedule);
  if (planned && elapsedMs < planned.atMs && elapsedMs + delay > planned.atMs - planned.leadMs) {
    // One look just before the planned poll (as early as it may be) when none came near it: else a short usual duration
    // (under about 5 s, where the tenth before it is within the lead) had no look between the start and the planned
    // poll, which then always found the operation ended, so a usual duration too long was never seen to be (fleet
    // audit: 3.4 s kept for 2 s operations, 1.9 s late at every run). A look that sees the operation still running
    // (the usual end holds) also brackets the end to within the lead, so it is learned without drift.
    const lookAt = planned.atMs - planned.leadMs;
    if (elapsedMs < lookAt - planned.leadMs) return lookAt - elapsedMs;
    return planned.atMs - elapsedMs;
  }
  return delay;
}

function scheduledDelay(elapsedMs: number, expectedMs: number | undefined, schedule: PollSchedule): number {
  const { fastMs, maxMs } = schedule;
  if (expectedMs === undefined) return fastMs;
  // Wake a tenth early (at least one interval): durations vary a little from one operation to the next.
  const wakeAt = expectedMs - Math.max(fastMs, expectedMs * 0.1);
  if (elapsedMs < wakeAt) return wakeAt - elapsedMs;
  if (elapsedMs <= expectedMs * 1.5 + fastMs) return fastMs;
  return Math.min(maxMs, Math.max(fastMs, (elapsedMs - expectedMs) * 0.1));
}

/** What one poll concluded. */
export type PollVerdict<T> =
  | { done: true; value: T }
  | { done: false; status: string }
  | { failed: true; message: string };

/** Thrown when a wait's deadline passes; names what was awaited and the last status seen. */
export class WaitTimeoutError extends Error {
  override readonly name = "WaitTimeoutError";
  constructor(
    readonly what: string,
    readonly lastStatus: string | undefined,
    readonly waitedMs: number,
    /** The operation whose deadline passed: the hint names `timeouts.<phase>`. */
    readonly phase?: TimeoutPhase,
    /** The whole deadline, when the wait began after the operation did (its earlier steps used the rest). */
    readonly deadlineMs?: number,
    /**
     * Set when the host's rate limit paced this provider's requests meanwhile (api/limiter.ts describePacing): the
     * time went (partly) to the provider's own queue, and the message says so instead of blaming a slow host.
     */
    readonly pacing?: string,
  ) {
    const fix = pacing ? "or change fewer resources at once (pulumi up --parallel, or --target)" : "if the host is slow";
    super(
      `timed out after ${formatDuration(waitedMs)} waiting for ${what}` +
        (deadlineMs !== undefined && deadlineMs > waitedMs + 1_000
          ? ` (the ${phase ?? "operation"}'s deadline of ${formatDuration(deadlineMs)}, counted from its start, has passed)`
          : "") +
        (lastStatus !== undefined ? ` (last status seen: ${lastStatus})` : "") +
        (pacing ? `; ${pacing}` : "") +
        (phase
          ? `; raise timeouts.${phase} (e.g. timeouts: { ${phase}: "30m" }) ${fix}`
          : `; raise the resource's timeouts input ${fix}`),
    );
  }
}

/** Thrown when a poll sees a status that means the operation failed (e.g. `Error`). */
export class WaitFailedError extends Error {
  override readonly name = "WaitFailedError";
  constructor(
    readonly what: string,
    readonly detail: string,
  ) {
    super(`${what} failed: ${detail}`);
  }
}

/**
 * A poll that failed transiently (5xx, network, timeout, rate limit after the client's own retries) does not end
 * a wait that may last many minutes: one bad answer during a 5-minute create must not fail the create. Only this
 * many failed polls IN A ROW end it (with the last error), so a route that is really broken still fails fast.
 */
export const MAX_CONSECUTIVE_POLL_FAILURES = 5;

/** Failures of one poll that say nothing about the awaited object: the next poll may well succeed. */
export function isTransientPollError(error: unknown): boolean {
  return error instanceof ServerError || error instanceof NetworkError || error instanceof TimeoutError || error instanceof RateLimitedError;
}

export interface PollOptions<T> {
  /** What is awaited, for messages: "instance 6f1c… to finish resize". */
  what: string;
  deadline: Deadline;
  /**
   * One poll: reads the API and concludes. A transient error it throws (see {@link isTransientPollError}) reads
   * as "status unknown" until {@link MAX_CONSECUTIVE_POLL_FAILURES} come in a row; any other error ends the wait.
   */
  poll: () => Promise<PollVerdict<T>>;
  /** Usual duration of the operation, if known: polling is fast around it. Read before every sleep (may be a getter). */
  readonly expectedMs?: number;
  /** A poll due at a set time (see {@link PlannedPoll}); `poll` itself decides what that poll reads. Read like expectedMs. */
  readonly planned?: PlannedPoll;
  schedule?: PollSchedule;
  log?: ProgressLogger;
  /** Progress is logged at most this often (and only for waits longer than it). */
  progressEveryMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /** Asked when the deadline passes: whether the host's rate limit paced the requests meanwhile (WaitTimeoutError.pacing). */
  pacing?: () => string | undefined;
}

/**
 * One poll, but never past the wait's deadline: a poll can take long (the client retries a 502 for up to a minute,
 * a shared status tick waits its turn behind a rate limit), and the wait must end when its deadline says (soak
 * finding: a 30 s delete wait reported after 1m56s). Real time only: waits on injected time (tests) keep to their
 * own clock. The abandoned poll's answer is dropped.
 */
async function withinDeadline<V>(poll: Promise<V>, deadline: Deadline, lastStatus: () => string | undefined, started: number, now: () => number): Promise<V> {
  const expired = after(deadline.remainingMs(), (): never => {
    throw new DeadlinePassed(lastStatus(), now() - started);
  });
  try {
    return await Promise.race([poll, expired.promise]);
  } finally {
    expired.cancel();
    poll.catch(() => undefined);
  }
}

/** The deadline passed during a poll (turned into the wait's WaitTimeoutError by pollUntil). */
class DeadlinePassed extends Error {
  constructor(
    readonly lastStatus: string | undefined,
    readonly waitedMs: number,
  ) {
    super("deadline passed during a poll");
  }
}

/**
 * Polls until `poll` says done (returns its value), says failed (throws WaitFailedError), or the deadline
 * passes (throws WaitTimeoutError with the last status seen). The first poll happens at once.
 */
export async function pollUntil<T>(opts: PollOptions<T>): Promise<T> {
  const now = opts.now ?? systemClock.now;
  const sleep = opts.sleep ?? systemClock.sleep;
  const schedule = opts.schedule ?? defaultPollSchedule;
  const progressEveryMs = opts.progressEveryMs ?? 15_000;
  const started = now();
  let lastStatus: string | undefined;
  let lastProgress = started;
  let failuresInARow = 0;
  for (;;) {
    let verdict: PollVerdict<T>;
    try {
      // Also the last poll, made when the sleep before it ran to the deadline (or a wait that starts with its
      // deadline passed): it may still answer at once (a fresh shared status), but one that does not answer must
      // not hold the wait past its deadline.
      verdict = opts.sleep || opts.now ? await opts.poll() : await withinDeadline(opts.poll(), opts.deadline, () => lastStatus, started, now);
      failuresInARow = 0;
    } catch (error) {
      if (error instanceof DeadlinePassed) throw new WaitTimeoutError(opts.what, error.lastStatus, error.waitedMs, opts.deadline.phase, opts.deadline.totalMs, opts.pacing?.());
      if (!isTransientPollError(error) || ++failuresInARow >= MAX_CONSECUTIVE_POLL_FAILURES) throw error;
      verdict = { done: false, status: `unknown (${(error as Error).message})` };
    }
    if ("failed" in verdict) throw new WaitFailedError(opts.what, verdict.message);
    if (verdict.done) return verdict.value;
    lastStatus = verdict.status;
    const elapsed = now() - started;
    if (opts.deadline.expired()) throw new WaitTimeoutError(opts.what, lastStatus, elapsed, opts.deadline.phase, opts.deadline.totalMs, opts.pacing?.());
    if (opts.log && now() - lastProgress >= progressEveryMs) {
      lastProgress = now();
      opts.log(
        `still waiting for ${opts.what}: status ${lastStatus}, ${formatDuration(elapsed)} elapsed, ` +
          `${formatDuration(opts.deadline.remainingMs())} left`,
      );
    }
    // Whole milliseconds, at least one: the time until a learned end can come out as a sliver (0.0001 ms, from
    // floating-point rounding at epoch magnitudes), which a clock at today's epoch cannot add: the wait then polled
    // in a loop with the time standing still (found as a hanging test).
    const delay = Math.max(1, Math.ceil(Math.min(nextPollDelay(elapsed, opts.expectedMs, schedule, opts.planned), opts.deadline.remainingMs())));
    await sleep(delay);
  }
}

/** The backoff between retries of {@link retryUntilDeadline}: 250 ms doubling to 5 s, never past the deadline. */
export function retryBackoffMs(attempt: number, deadline: Deadline): number {
  return Math.min(deadline.remainingMs(), Math.min(5_000, 250 * 2 ** Math.min(attempt, 5)));
}

/**
 * The one retry loop for answers that say "try again" rather than "failed" (the API busy with another
 * operation, a read failing transiently during reconciliation): runs `attempt` until it succeeds, an error
 * that is not `retryable` comes, or the deadline passes (then `atDeadline(lastError)` is thrown), backing
 * off between attempts (like terraform-provider-hcloud's control.Retry).
 */
export async function retryUntilDeadline<T>(
  opts: {
    deadline: Deadline;
    retryable: (error: unknown) => boolean;
    atDeadline: (lastError: unknown) => Error;
    onRetry?: (error: unknown, attempt: number) => void;
    sleep?: (ms: number) => Promise<void>;
  },
  attempt: () => Promise<T>,
): Promise<T> {
  const sleep = opts.sleep ?? systemClock.sleep;
  for (let n = 0; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (!opts.retryable(error)) throw error;
      if (opts.deadline.expired()) throw opts.atDeadline(error);
      opts.onRetry?.(error, n);
      await sleep(retryBackoffMs(n, opts.deadline));
    }
  }
}
