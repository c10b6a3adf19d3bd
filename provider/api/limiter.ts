/**
 * The process-wide rate limiter of one service account: it needs no configuration.
 *
 * Hosts of this API are Laravel applications behind `throttle` middleware: every answer carries
 * `X-RateLimit-Limit` and `X-RateLimit-Remaining`, and a 429 adds `Retry-After` (seconds) and
 * `X-RateLimit-Reset` (epoch seconds of the window's end). The limit is not published and differs per host,
 * so it is learned from those headers instead of configured:
 *
 * - Until the first answer arrives only one request is in flight: a fleet's first second would otherwise
 *   send 50 creates into a limit of 10 (the issue's "24 of 50 failed"). The first answer tells the limit.
 * - After each answer the budget of the current window is `Remaining` minus the requests granted after the
 *   answered one (they are on their way and count against the same window). At 0, requests queue.
 * - A 429 pauses every request of the account until the window ends (`Reset` when it falls inside
 *   `Retry-After`, being more precise than whole seconds; else `Retry-After`); then the whole limit is available.
 * - When the budget is spent and the window's end is unknown, one probe request goes out a second after the
 *   window began, as far as the answers tell: the window began no later than its first answer we saw arrived (the
 *   first answer of the process, or the first whose `Remaining` went up instead of down). Not a second after the
 *   budget ran out: a fleet that spent a window just before it ended then sent nothing for most of the next one
 *   (up to 0.9 s lost, in about half the make bench runs); nor a second after the next request queued (that held a
 *   fleet's status reads for up to a second into every new window). Then at most one probe a second: its answer
 *   tells the new budget (`Remaining`) or, as a 429, when the window ends. On a host whose windows last one
 *   second a probe so timed never comes early; on one with longer windows it costs at most one 429 per window,
 *   which names the window's end. (Window lengths are not predicted from earlier windows: a length guessed from
 *   two 429s far apart once held a 50-VM fleet for 30 s at a time with nothing sent.)
 * - Requests of resource operations underway (they have sent a write: a VM may exist that must be seen settled and
 *   recorded, api/deadline.ts) go ahead of requests of operations that have changed nothing yet. Finishing what was
 *   started comes before starting more: a fleet on a host slower than its timeouts allow then gets some resources
 *   done and the rest never sent, instead of many VMs made whose creates failed "did not become ready" (their settle
 *   reads queued behind later creates of deadlines equal to the millisecond; fleet test, 15 of 18 VMs made). Such
 *   requests are few per operation (its settle and outputs reads, its next write), so the operations not yet
 *   underway wait at most until those underway are done. A shared read (a status tick, wait/batched-asks.ts) goes
 *   with them only when one it serves is underway with its deadline within the horizon: a tick recurs every poll
 *   interval, and always first it would take most windows of a slow host from the resources not started yet.
 *   Within each group:
 * - Requests are granted in arrival order, except that a request whose resource operation's deadline (its
 *   `timeouts`, api/deadline.ts) is nearer than {@link DEADLINE_HORIZON_MS} is served by that deadline: it goes
 *   ahead of requests that joined the queue later than a horizon before its deadline. Shared reads (the status
 *   poller's ticks, wait/batched-asks.ts) carry the nearest deadline of the waits they answer: a wait served last
 *   would time out all the same. Every request's place is
 *   `min(deadline, joined + horizon)` (earliest first, ties in arrival order): with the default timeouts (20-30
 *   minutes) that is arrival order exactly, and no request waits behind more than what joined before it or within a
 *   horizon after it, so none starves. With tight timeouts a resource that is nearly done (its settle reads, started
 *   first) is no longer failed behind the creates of resources that joined later (fleet audit: 24 creates with
 *   `timeouts.create` 8 s on a host allowing 2 requests a second all failed, each VM made).
 * - A write whose deadline passes while it waits in this queue is not sent: it fails with
 *   {@link QueuedPastDeadlineError}, which says that it was never sent and where the time went (this provider's queue,
 *   behind how many requests, at the host's learned limit), not that the host was slow. Before, it went out after its
 *   resource had given up on it (a create then made a VM whose create had already failed). Reads are still sent (one
 *   after an ambiguous write decides whether it took effect), as are writes that joined the queue after their deadline
 *   had passed (the clean-up of a failed operation) and retries (an earlier attempt may have reached the host).
 * - `vmhost:maxRequestsPerSecond` stays as a cap (a token bucket, {@link Pacer}) on top of what is learned.
 *
 * Whether a 429 then fails the call is the retry step's decision (pipeline.ts): it waits while the pause ends
 * before the resource's deadline, whatever the number of retries.
 */
import type { Clock } from "./retry";
import { accountKey, Pacer } from "./pacer";

/** How long to hold requests when the budget is spent and the window's end is unknown (then probe once). */
export const PROBE_INTERVAL_MS = 1_000;

/** Deadlines nearer than this order the queue (see the module comment); further ones keep arrival order. */
export const DEADLINE_HORIZON_MS = 60_000;

/** What a request tells the queue about deadlines (api/deadline.ts), in epoch ms of the limiter's clock. */
export interface QueueDeadline {
  /**
   * The deadline that orders it: its resource operation's, or for shared work (a status tick) the nearest of the
   * resources it serves.
   */
  orderAt?: number;
  /** When it fails unsent if still queued (see the module comment): its own resource's deadline, for a first attempt of a write. */
  expiresAt?: number;
  /** Its resource operation (or one of those a shared read serves) has sent a write: it goes ahead of those that have not. */
  underway?: boolean;
}

/**
 * A request that waited in this provider's queue for the host until its resource operation's deadline passed, and
 * was therefore never sent (so it changed nothing). The message names the request when the caller (the pipeline's
 * rate-limit step) knows it.
 */
export class QueuedPastDeadlineError extends Error {
  override readonly name = "QueuedPastDeadlineError";
  constructor(
    /** How long it waited in the queue. */
    readonly waitedMs: number,
    /** Requests ahead of it when it joined the queue. */
    readonly aheadWhenQueued: number,
    /** Requests still queued when it gave up (itself not counted). */
    readonly queuedNow: number,
    /** The host's limit per window, as learned from its answers. */
    readonly limit: number | undefined,
    request = "the request",
  ) {
    super(
      `${request} was never sent (it changed nothing): it waited ${Math.round(waitedMs / 100) / 10} s in this provider's own queue for the ` +
        `host, behind ${aheadWhenQueued} other request(s) of this deployment (${queuedNow} still queued), paced by the host's rate limit` +
        `${limit !== undefined ? ` of ${limit} requests per window (learned from its X-RateLimit-Limit)` : ""}, and its resource's ` +
        "deadline passed first. The host was not slow: this deployment asks more of it at once than its rate limit lets through in that " +
        "time. Raise the resource's timeouts (e.g. timeouts: { create: \"30m\" }), or change fewer resources at once (pulumi up " +
        "--parallel, or --target), then run pulumi up again.",
    );
  }
}

/**
 * Whether the host's rate limit is what paces the account's requests right now: read by work that can be left
 * out when requests compete for the limit (wait/status-poller.ts skips a list tick that only watches for an early end).
 */
export interface RateLimitView {
  /** True when requests are queued, or the window's budget ran out (or a 429 came) within the last `withinMs`. */
  reachedWithin(withinMs: number): boolean;
  /**
   * For a wait that timed out: a clause saying that the host's rate limit paced this provider's requests lately (with
   * the learned limit and how many are queued), undefined when it did not.
   */
  describePacing?(): string | undefined;
}

/** "Lately" for {@link RateLimitView.describePacing}. */
const PACING_NOTE_WITHIN_MS = 5_000;

/** Counters of one limiter, for `make bench` and debugging. */
export interface LimiterStats {
  /** Requests granted. */
  granted: number;
  /** 429 answers seen. */
  throttled: number;
  /** The learned limit per window (`X-RateLimit-Limit`), if any. */
  limit: number | undefined;
}

interface Waiter {
  resolve(ticket: number): void;
  reject(reason: unknown): void;
  signal?: AbortSignal;
  onAbort?: () => void;
  /** When it joined the queue. */
  queuedAt: number;
  /** Its place: operations underway first, then earliest key first (see the module comment). */
  underway: boolean;
  key: number;
  /** When it fails unsent, if it does (see QueueDeadline.expiresAt). */
  expiresAt?: number;
  /** Requests ahead of it when it joined. */
  ahead: number;
}

/** Whether a request placed `a` goes ahead of a queued `b` (ties keep arrival order): see the module comment. */
function goesBefore(a: Pick<Waiter, "underway" | "key">, b: Pick<Waiter, "underway" | "key">): boolean {
  return a.underway !== b.underway ? a.underway : a.key < b.key;
}

function headerNumber(headers: Record<string, string | undefined>, name: string): number | undefined {
  const text = headers[name]?.trim();
  return text && /^\d+(\.\d+)?$/.test(text) ? Number(text) : undefined;
}

/** A fair, self-tuning limiter for one account (see the module comment). */
export class RateLimiter implements RateLimitView {
  private readonly cap: Pacer;
  /** When the budget was last seen spent (a grant took its last request, an answer said 0 left, or a 429). */
  private exhaustedAt = -Infinity;
  private limit: number | undefined;
  private budget: number | undefined;
  private windowEndsAt: number | undefined;
  private pausedUntil = 0;
  /** When the budget was last seen spent (undefined while a budget is left or none is known): a probe is due a second later. */
  private spentAt: number | undefined;
  /** When the first answer known to come from the current window arrived (the window began no later). */
  private windowSeenAt: number | undefined;
  /** `Remaining` of the newest answer: one that does not go down from it comes from a new window. */
  private newestRemaining: number | undefined;
  private lastProbeAt = -Infinity;
  private tickets = 0;
  private newestObserved = 0;
  private answered = false;
  private inFlight = 0;
  private throttled = 0;
  private readonly queue: Waiter[] = [];
  private pumping = false;
  private pumpSleep: AbortController | undefined;
  /** When the pump's current sleep ends (a waiter expiring earlier wakes it). */
  private pumpWakesAt = Infinity;

  constructor(
    capPerSecond: number | undefined,
    private readonly clock: Clock,
    /** Multiplies server-requested pauses (tests: a tiny value). */
    private readonly delayScale = 1,
  ) {
    this.cap = new Pacer(capPerSecond, clock);
  }

  /** Changes the configured cap (undefined = none: only what is learned applies). */
  setCap(perSecond: number | undefined): void {
    if (this.cap.rate !== perSecond) this.cap.setRate(perSecond);
  }

  /** The configured cap. */
  get capPerSecond(): number | undefined {
    return this.cap.rate;
  }

  /** Counters (granted requests, 429s seen, what was learned). */
  stats(): LimiterStats {
    return { granted: this.tickets, throttled: this.throttled, limit: this.limit };
  }

  /** The time (epoch ms of the limiter's clock) until which every request is held, 0 when none. */
  get pausedUntilMs(): number {
    return this.pausedUntil;
  }

  /**
   * Waits for permission to send one request, in arrival order (operations underway first, and nearest deadline first
   * within the horizon: see the module comment). Resolves to a ticket to hand back to {@link observe} with the answer
   * (or without one when none came); rejects with {@link QueuedPastDeadlineError} when `deadline.expiresAt` passes
   * while it is queued.
   */
  acquire(signal?: AbortSignal, deadline?: QueueDeadline): Promise<number> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<number>((resolve, reject) => {
      const queuedAt = this.clock.now();
      const key = Math.min(deadline?.orderAt ?? Infinity, deadline?.expiresAt ?? Infinity, queuedAt + DEADLINE_HORIZON_MS);
      // (a write that joins after its deadline passed is the clean-up of a failed operation: sent, as before)
      const expiresAt = deadline?.expiresAt !== undefined && deadline.expiresAt > queuedAt ? deadline.expiresAt : undefined;
      const underway = deadline?.underway === true;
      let index = this.queue.length;
      while (index > 0 && goesBefore({ underway, key }, this.queue[index - 1]!)) index -= 1;
      const waiter: Waiter = { resolve, reject, signal, queuedAt, underway, key, expiresAt, ahead: index };
      if (signal) {
        waiter.onAbort = () => {
          const index = this.queue.indexOf(waiter);
          if (index >= 0) this.queue.splice(index, 1);
          if (this.queue.length === 0) this.pumpSleep?.abort();
          reject(signal.reason);
        };
        signal.addEventListener("abort", waiter.onAbort, { once: true });
      }
      this.queue.splice(index, 0, waiter);
      // A pump asleep past this waiter's expiry decides again (it sleeps until the next grant or expiry).
      if (expiresAt !== undefined && expiresAt < this.pumpWakesAt) this.pumpSleep?.abort();
      void this.pump();
    });
  }

  /** Fails, unsent, every queued waiter whose deadline has passed (see QueueDeadline.expiresAt). */
  private expireOverdue(now: number): void {
    for (let i = 0; i < this.queue.length; ) {
      const waiter = this.queue[i]!;
      if (waiter.expiresAt === undefined || waiter.expiresAt > now) {
        i += 1;
        continue;
      }
      this.queue.splice(i, 1);
      if (waiter.signal && waiter.onAbort) waiter.signal.removeEventListener("abort", waiter.onAbort);
      waiter.reject(new QueuedPastDeadlineError(now - waiter.queuedAt, waiter.ahead, this.queue.length, this.limit));
    }
  }

  /** The earliest time a queued waiter expires (Infinity when none does). */
  private nextExpiry(): number {
    let next = Infinity;
    for (const waiter of this.queue) if (waiter.expiresAt !== undefined && waiter.expiresAt < next) next = waiter.expiresAt;
    return next;
  }

  reachedWithin(withinMs: number): boolean {
    const now = this.clock.now();
    return this.queue.length > 0 || this.pausedUntil > now || now - this.exhaustedAt <= withinMs;
  }

  describePacing(): string | undefined {
    if (!this.reachedWithin(PACING_NOTE_WITHIN_MS)) return undefined;
    return (
      "the host's rate limit paced this provider's requests meanwhile" +
      (this.limit !== undefined ? ` (${this.limit} requests per window, learned from its X-RateLimit-Limit)` : "") +
      `, ${this.queue.length} request(s) still queued in this provider, so that time went partly to its own queue rather than to a slow host`
    );
  }

  /** Holds every request of the account until `untilMs`; an earlier time never shortens a later pause. */
  pauseUntil(untilMs: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, untilMs);
  }

  /**
   * Learns from one answer (`response` undefined when none arrived: a network error or a timeout).
   * Returns, for a 429, the time until which the account is paused.
   */
  observe(ticket: number, response?: { status: number; headers: Record<string, string | undefined> }): number | undefined {
    this.inFlight = Math.max(0, this.inFlight - 1);
    let pausedUntil: number | undefined;
    if (response) {
      this.answered = true;
      const now = this.clock.now();
      const limit = headerNumber(response.headers, "x-ratelimit-limit");
      if (limit !== undefined && limit > 0) this.limit = limit;
      const remaining = headerNumber(response.headers, "x-ratelimit-remaining");
      if (remaining !== undefined && ticket >= this.newestObserved) {
        // In one window every later request leaves less (answers are taken in ticket order); a request that
        // overtook an earlier one on the way can look like a new window: the probe then comes later, never early.
        const newWindow = this.newestRemaining === undefined || remaining >= this.newestRemaining;
        if (newWindow) this.windowSeenAt = now;
        this.newestRemaining = remaining;
        this.newestObserved = ticket;
        // Requests granted after this one were sent later: the service counts them in this window too. Within a
        // window an answer only ever lowers the budget: two requests sent together can reach the host in the other
        // order, and the later one's larger `Remaining` then overstated the budget by one (a 429 in make bench).
        const counted = Math.max(0, remaining - (this.tickets - ticket));
        this.budget = newWindow || this.budget === undefined ? counted : Math.min(this.budget, counted);
      } else if (remaining === undefined && response.status !== 429 && ticket >= this.newestObserved) {
        // An answer that reports no limit (the host stopped limiting, or this route is not throttled): the budget
        // is unknown again rather than counted down to 0 by grants that no answer refills, which held every
        // later request to one probe a second for the rest of the process. A 429 teaches the limit again.
        this.newestObserved = ticket;
        this.budget = undefined;
        this.windowEndsAt = undefined;
        this.newestRemaining = undefined;
      }
      if (response.status === 429) {
        this.throttled += 1;
        this.budget = 0;
        pausedUntil = this.learnWindowEnd(response.headers, now);
        if (pausedUntil !== undefined) this.pauseUntil(pausedUntil);
      }
      // A budget again (or none known): no probe due. Spent: a probe is due a second from now, or stays due when
      // it already was.
      if (this.budget === undefined || this.budget > 0) this.spentAt = undefined;
      else {
        this.spentAt ??= now;
        this.exhaustedAt = now;
      }
    }
    // The answer may free the queue (a probe's answer names the new window's budget): wake a pump that sleeps
    // towards the next probe, so it decides again now. Left asleep, it held every queued request for the rest
    // of the probe interval: a 50-VM up sent about 10 requests one second, 1 the next (seen in make bench).
    this.pumpSleep?.abort();
    void this.pump();
    return pausedUntil;
  }

  private learnWindowEnd(headers: Record<string, string | undefined>, now: number): number | undefined {
    const retryAfterText = headers["retry-after"]?.trim();
    let retryAfterMs: number | undefined;
    if (retryAfterText && /^\d+(\.\d+)?$/.test(retryAfterText)) retryAfterMs = Number(retryAfterText) * 1000;
    else if (retryAfterText && !Number.isNaN(Date.parse(retryAfterText))) retryAfterMs = Math.max(0, Date.parse(retryAfterText) - now);
    const reset = headerNumber(headers, "x-ratelimit-reset");
    // Epoch seconds are > 10^9 today; a smaller value is a relative number of seconds.
    const resetMs = reset === undefined ? undefined : reset > 1e9 ? reset * 1000 : now + reset * 1000;
    let endsAt: number | undefined;
    if (retryAfterMs !== undefined) {
      endsAt = now + retryAfterMs;
      // Retry-After is whole seconds, rounded up; Reset names the window's end exactly. Trusted only when it
      // agrees with Retry-After (a skewed server clock would otherwise pause too long or not at all).
      if (resetMs !== undefined && resetMs > now && resetMs <= endsAt) endsAt = resetMs;
    } else if (resetMs !== undefined && resetMs > now) {
      endsAt = resetMs;
    }
    if (endsAt === undefined) return undefined;
    this.windowEndsAt = now + (endsAt - now) * this.delayScale;
    return this.windowEndsAt;
  }

  /** How long the next request must wait now (0 = it may go). */
  private delayMs(now: number): number {
    if (this.pausedUntil > now) return this.pausedUntil - now;
    if (!this.answered && this.inFlight > 0) return Infinity; // woken by observe()
    if (this.windowEndsAt !== undefined) {
      // The window has ended (the pause, which lasts at least until its end, is over): the whole limit again, in a
      // window that began right then.
      this.budget = this.limit;
      this.spentAt = undefined;
      this.windowSeenAt = this.windowEndsAt;
      this.newestRemaining = this.limit;
      this.windowEndsAt = undefined;
    }
    if (this.budget !== undefined && this.budget <= 0) {
      // The window's end is unknown here: a known end is also the pause's end (observe pauses until it), which
      // returned above.
      const spentAt = (this.spentAt ??= now);
      const windowBegan = Math.min(spentAt, this.windowSeenAt ?? spentAt);
      const probeAt = Math.max(windowBegan, this.lastProbeAt) + PROBE_INTERVAL_MS;
      if (now < probeAt) return probeAt - now;
      this.spentAt = undefined; // the probe's grant spends the budget again
      this.lastProbeAt = now; // and the next probe is due a second after it at the earliest
      this.budget = 1; // one probe: its answer tells the window
    }
    return this.cap.delayMs();
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.queue.length > 0) {
        const now = this.clock.now();
        this.expireOverdue(now);
        if (this.queue.length === 0) break;
        const wait = this.delayMs(now);
        if (wait > 0) {
          // until the next grant may go, or the next waiter expires, whichever comes first (an Infinity wait is ended
          // by observe(), which aborts this sleep)
          const sleepMs = Math.min(wait, this.nextExpiry() - now);
          if (sleepMs === Infinity) return;
          this.pumpSleep = new AbortController();
          this.pumpWakesAt = now + sleepMs;
          await this.clock.sleep(sleepMs, this.pumpSleep.signal).catch(() => undefined);
          this.pumpSleep = undefined;
          this.pumpWakesAt = Infinity;
          continue;
        }
        const waiter = this.queue.shift()!;
        if (waiter.signal && waiter.onAbort) waiter.signal.removeEventListener("abort", waiter.onAbort);
        if (this.budget !== undefined && --this.budget <= 0) {
          this.spentAt ??= this.clock.now();
          this.exhaustedAt = this.clock.now();
        }
        this.cap.take();
        this.inFlight += 1;
        this.tickets += 1;
        waiter.resolve(this.tickets);
      }
    } finally {
      this.pumping = false;
    }
  }
}

const limiters = new Map<string, RateLimiter>();

/**
 * The process-wide limiter of an account (base URL + key hash), created on first use. Every client of the
 * account in this process shares it: Pulumi runs many resource operations at once in one provider process.
 */
export function limiterFor(baseUrl: string, apiKey: string, capPerSecond: number | undefined, clock: Clock): RateLimiter {
  const key = accountKey(baseUrl, apiKey);
  let limiter = limiters.get(key);
  if (!limiter) {
    limiter = new RateLimiter(capPerSecond, clock);
    limiters.set(key, limiter);
  } else {
    limiter.setCap(capPerSecond);
  }
  return limiter;
}

/** The keys of the limiters that exist (for tests proving no raw key is stored). */
export function limiterKeys(): string[] {
  return [...limiters.keys()];
}

/** Every process-wide limiter's counters, keyed like {@link limiterKeys} (for `make bench`). */
export function limiterStats(): Record<string, LimiterStats> {
  return Object.fromEntries([...limiters].map(([key, limiter]) => [key, limiter.stats()]));
}
