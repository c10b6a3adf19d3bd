import { after, systemClock } from "../../clock";
import { WaitTimeoutError, type Deadline } from "../../wait/poll";

/**
 * Serializes work per key (an instance uuid) inside one provider process. The API refuses a second
 * operation on an instance that is busy, and Pulumi runs independent resources in parallel: an address,
 * a private network, a disk and a snapshot declared on one VM would otherwise collide. Each holder also
 * waits for the instance to settle before it starts (see wait/), so the lock only has to order callers.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  /**
   * Runs `fn` when every earlier caller with the same key has finished (successfully or not).
   * With a `deadline`, waiting in the queue counts against it: when it passes before our turn, the call
   * fails with a WaitTimeoutError naming `what` (the resource's timeout bounds the whole operation, queue
   * included), and the callers behind us keep their order.
   */
  async run<T>(key: string, fn: () => Promise<T>, opts: { deadline?: Deadline; what?: string } = {}): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const current = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => current);
    this.tails.set(key, tail);
    const forget = () => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
    if (opts.deadline) {
      const { deadline } = opts;
      const queuedAt = systemClock.now();
      const expired = after(deadline.remainingMs(), () => true);
      const timedOut = await Promise.race([previous.then(() => false), expired.promise]);
      expired.cancel();
      if (timedOut) {
        // Give up our place without breaking the chain: whoever queued behind us runs when `previous` ends.
        void previous.then(() => {
          release();
          forget();
        });
        throw new WaitTimeoutError(
          `${opts.what ?? key}: other operations on the same instance (from this deployment) to finish first`,
          "queued behind another operation",
          systemClock.now() - queuedAt,
          deadline.phase,
        );
      }
    } else {
      await previous;
    }
    try {
      return await fn();
    } finally {
      release();
      forget();
    }
  }

  /** Keys with work queued or running (for diagnostics and tests). */
  get activeKeys(): string[] {
    return [...this.tails.keys()];
  }
}

/** The process-wide lock for operations on one instance, shared by every resource provider. */
export const instanceLock = new KeyedMutex();
