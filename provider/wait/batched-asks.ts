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
 * - A failed read fails the asks of its batch only; the next ask gets a new read.
 */
import { systemClock, type Clock } from "../clock";
import { outsideRequestDeadline } from "../api/deadline";

interface Asker<Q, A> {
  question: Q;
  now: boolean;
  resolve(answer: A): void;
  reject(error: unknown): void;
}

/** Shares reads between askers (see the module comment). */
export class BatchedAsks<Q, A> {
  private pending: Asker<Q, A>[] = [];
  private scheduled = false;
  private inFlight = false;
  private lastStartAt = -Infinity;
  private reads = 0;

  /**
   * @param readFor one read for a batch of questions; resolves to the answer of each question of that batch.
   */
  constructor(
    private readonly readFor: (questions: Q[]) => Promise<(question: Q) => A>,
    private readonly minIntervalMs = 0,
    private readonly clock: Clock = systemClock,
  ) {}

  /** The answer to `question` from the next read that starts after this call. */
  ask(question: Q, options: { now?: boolean } = {}): Promise<A> {
    return new Promise<A>((resolve, reject) => {
      this.pending.push({ question, now: options.now === true, resolve, reject });
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
    const batch = this.pending;
    this.pending = [];
    this.scheduled = false;
    this.inFlight = true; // who asks from now on is answered by the next read
    this.lastStartAt = this.clock.now();
    this.reads += 1;
    try {
      const answer = await this.readFor(batch.map((a) => a.question));
      for (const a of batch) a.resolve(answer(a.question));
    } catch (error) {
      for (const a of batch) a.reject(error);
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
