/**
 * Serializes work per key (an instance uuid) inside one provider process. The API refuses a second
 * operation on an instance that is busy, and Pulumi runs independent resources in parallel: an address,
 * a private network, a disk and a snapshot declared on one VM would otherwise collide. Each holder also
 * waits for the instance to settle before it starts (see wait/), so the lock only has to order callers.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `fn` when every earlier caller with the same key has finished (successfully or not). */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const current = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => current);
    this.tails.set(key, tail);
    await previous;
    try {
      return await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Keys with work queued or running (for diagnostics and tests). */
  get activeKeys(): string[] {
    return [...this.tails.keys()];
  }
}

/** The process-wide lock for operations on one instance, shared by every resource provider. */
export const instanceLock = new KeyedMutex();
