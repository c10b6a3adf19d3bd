/**
 * "Batch the asks, one read answers all": the one mechanism behind every shared read of the provider (the instance
 * status poller, the pre-create hostname listing, the disk and snapshot list reads).
 *
 * - An ask is answered by the next read that STARTS AFTER it was asked, never by one already under way: an older
 *   answer could predate what the asker waits for (an operation's end, a create's POST).
 * - At most one read is in flight; asks arriving meanwhile wait for the next one, which starts when it ends. (Reads
 *   queued behind a busy rate limiter would otherwise pile up and go out together.)
 * - Reads start at least `minIntervalMs` apart (0: as soon as the previous one ended), unless an ask says `now`
 *   (a wait on injected time, where real-time spacing means nothing).
 * - Asks made in the same turn of the event loop share a read (a fleet's waits released by one answer).
 * - `holdOpen`: a read "starts" when its request leaves the rate limiter for the host, not when it is issued: the
 *   reader closes its batch then (`batch.close()`, from the request's `onSend`), and asks made until that moment
 *   join it. Behind a busy limiter (a fleet's creates queued at 10 requests/s) a read can wait seconds to be sent;
 *   without this, every ask made meanwhile needed a read of its own after it. The rule above holds as well or
 *   better: the host answers after every joined ask was made.
 * - A failed read fails the asks of its batch only; the next ask gets a new read.
 */
import { systemClock, type Clock } from "../clock";
import { currentOperationUnderway, currentRequestDeadline, outsideRequestDeadline, withQueuePlace } from "../api/deadline";
import { DEADLINE_HORIZON_MS } from "../api/limiter";

interface Asker<Q, A> {
  question: Q;
  now: boolean;
  /** The deadline of the resource operation that asked (api/deadline.ts), if any. */
  dueAt: number | undefined;
  /** Whether that operation has sent a write (api/deadline.ts currentOperationUnderway). */
  underway: boolean;
  resolve(answer: A): void;
  reject(error: unknown): void;
}

/** The questions of one read. */
export interface Batch<Q> {
  /** Closes the batch (asks from now on wait for the next read) and returns its questions; the same on every call. */
  close(): Q[];
  /** The questions so far, without closing the batch (all of them once it is closed). */
  peek(): Q[];
}

/** Shares reads between askers (see the module comment). */
export class BatchedAsks<Q, A> {
  private pending: Asker<Q, A>[] = [];
  private scheduled = false;
  private inFlight = false;
  private lastStartAt = -Infinity;
  private reads = 0;

  /**
   * @param readFor one read for a batch; resolves to the answer of each question of that batch. The batch is closed
   *   before `readFor` is called, unless `holdOpen`: then the reader closes it when its request is sent (and it is
   *   closed anyway when the read ends).
   */
  constructor(
    private readonly readFor: (batch: Batch<Q>) => Promise<(question: Q) => A>,
    private readonly minIntervalMs = 0,
    private readonly clock: Clock = systemClock,
    private readonly options: { holdOpen?: boolean } = {},
  ) {}

  /** The answer to `question` from the next read that starts after this call. */
  ask(question: Q, options: { now?: boolean } = {}): Promise<A> {
    return new Promise<A>((resolve, reject) => {
      this.pending.push({ question, now: options.now === true, dueAt: currentRequestDeadline(), underway: currentOperationUnderway(), resolve, reject });
      this.schedule();
    });
  }

  /** Reads started so far. */
  get count(): number {
    return this.reads;
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight || this.pending.length === 0) return;
    this.scheduled = true;
    // Shared work: not bounded by the deadline of the resource whose ask happened to start it.
    void outsideRequestDeadline(() => this.run());
  }

  private async run(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    const gap = this.lastStartAt + this.minIntervalMs - this.clock.now();
    if (gap > 0 && !this.pending.some((a) => a.now)) await this.clock.sleep(gap);
    this.scheduled = false;
    this.inFlight = true; // no second read meanwhile: asks wait in `pending` for this one (until closed) or the next
    this.lastStartAt = this.clock.now();
    this.reads += 1;
    let askers: Asker<Q, A>[] | undefined;
    const close = (): Asker<Q, A>[] => {
      if (!askers) {
        askers = this.pending;
        this.pending = [];
      }
      return askers;
    };
    const batch: Batch<Q> = { close: () => close().map((a) => a.question), peek: () => (askers ?? this.pending).map((a) => a.question) };
    if (!this.options.holdOpen) close();
    // Not bounded by any asker's deadline, but placed in the rate limiter's queue by the nearest of them, and with the
    // operations underway when one of them is and its deadline is near (limiter.ts): served after the requests of
    // resources due later, a tick left the waits of tight timeouts to time out behind creates that joined after them
    // (fleet audit). Only when near: a read that recurs every interval, always put first, would take most of the
    // windows of a slow host (60 requests a minute) from the resources not started yet, for as long as any operation
    // runs; with the default timeouts it keeps its arrival order. (The askers so far: a batch not held open is closed
    // already.)
    const asking = askers ?? this.pending;
    const dueAt = Math.min(...asking.map((a) => a.dueAt ?? Infinity));
    const nearUntil = this.clock.now() + DEADLINE_HORIZON_MS;
    const underway = asking.some((a) => a.underway && a.dueAt !== undefined && a.dueAt <= nearUntil);
    const place = { orderAt: Number.isFinite(dueAt) ? dueAt : undefined, underway };
    try {
      const answer = await withQueuePlace(place, () => this.readFor(batch));
      for (const a of close()) a.resolve(answer(a.question));
    } catch (error) {
      for (const a of close()) a.reject(error);
    } finally {
      this.inFlight = false;
      this.schedule();
    }
  }
}

/**
 * One `T` per client (i.e. per provider process and account), made on first use: a shared read serves the waits
 * of one client, whose requests share one rate limiter. (Kept weakly: a client dropped by a new configuration
 * takes its shared reads with it.)
 */
export function perClient<C extends object, T>(make: (client: C) => T): (client: C) => T {
  const made = new WeakMap<C, T>();
  return (client) => {
    let value = made.get(client);
    if (value === undefined) {
      value = make(client);
      made.set(client, value);
    }
    return value;
  };
}
