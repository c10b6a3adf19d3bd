/**
 * A list read shared by every wait that polls the same list: the block storage list (`GET /storage/blocks`, one
 * per account) for disk waits, an instance's snapshot list for the snapshot waits on that instance.
 *
 * The same rules as the instance status poller (status-poller.ts), for lists that answer whole: a wait gets the
 * answer of the next read that STARTS AFTER it asked (an older answer could predate the change it waits for); at
 * most one read is in flight, and who asks meanwhile shares the next one; reads start at least the poll interval
 * apart, so ten disks being attached cost one list request per interval, not ten. A failed read fails the waits
 * it would have answered (their poll loop counts it as one failed poll).
 */
import { systemClock, type Clock } from "../clock";
import type { VmHostClient } from "../api";
import { outsideRequestDeadline } from "../api/deadline";
import { pollIntervalMs } from "./status-poller";

interface Asker<T> {
  now: boolean;
  resolve(value: T): void;
  reject(error: unknown): void;
}

/** One shared, paced list read (see the module comment). */
export class SharedRead<T> {
  private pending: Asker<T>[] = [];
  private scheduled = false;
  private inFlight = false;
  private lastReadAt = -Infinity;
  private reads = 0;

  constructor(
    private readonly readOnce: () => Promise<T>,
    private readonly minIntervalMs: number,
    private readonly clock: Clock = systemClock,
  ) {}

  /**
   * The answer of the next read that starts after this call. `now` starts it without waiting for the interval
   * (a wait on injected time, where real-time spacing means nothing).
   */
  read(options: { now?: boolean } = {}): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ now: options.now === true, resolve, reject });
      this.schedule();
    });
  }

  /** Reads made so far. */
  get count(): number {
    return this.reads;
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight || this.pending.length === 0) return;
    this.scheduled = true;
    // Shared work: not bounded by the deadline of the resource whose wait happened to start it.
    void outsideRequestDeadline(() => this.run());
  }

  private async run(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    const gap = this.lastReadAt + this.minIntervalMs - this.clock.now();
    if (gap > 0 && !this.pending.some((a) => a.now)) await this.clock.sleep(gap);
    const batch = this.pending;
    this.pending = [];
    this.scheduled = false;
    this.inFlight = true; // who asks from now on is answered by the next read
    this.lastReadAt = this.clock.now();
    this.reads += 1;
    try {
      const value = await this.readOnce();
      for (const a of batch) a.resolve(value);
    } catch (error) {
      for (const a of batch) a.reject(error);
    } finally {
      this.inFlight = false;
      this.schedule();
    }
  }
}

const shared = new WeakMap<VmHostClient, Map<string, SharedRead<unknown>>>();

/**
 * The shared read named `key` of a client (i.e. of a provider process and account), created on first use with
 * `readOnce` and the process's poll interval (`VMHOST_POLL_FAST_MS` in tests). One key names one list: e.g.
 * `storage` or `snapshots:<instance uuid>`.
 */
export function sharedReadFor<T>(client: VmHostClient, key: string, readOnce: () => Promise<T>): SharedRead<T> {
  let reads = shared.get(client);
  if (!reads) {
    reads = new Map();
    shared.set(client, reads);
  }
  let read = reads.get(key) as SharedRead<T> | undefined;
  if (!read) {
    read = new SharedRead(readOnce, pollIntervalMs());
    reads.set(key, read as SharedRead<unknown>);
  }
  return read;
}
