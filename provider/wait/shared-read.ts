/**
 * A list read shared by every wait that polls the same list: the block storage list (`GET /storage/blocks`, one
 * per account) for disk waits, an instance's snapshot list for the snapshot waits on that instance.
 *
 * The rules of batched-asks.ts, as for the instance status poller: a wait gets the answer of the next read that
 * STARTS AFTER it asked (an older answer could predate the change it waits for); at most one read is in flight;
 * reads start at least the poll interval apart, so ten disks being attached cost one list request per interval,
 * not ten. A failed read fails the waits it would have answered (their poll loop counts it as one failed poll).
 */
import { systemClock, type Clock } from "../clock";
import type { VmHostClient } from "../api";
import { BatchedAsks, perClient } from "./batched-asks";
import { pollIntervalMs } from "./status-poller";

/** One shared, paced list read (see the module comment): every wait asks the same question, "the list now". */
export class SharedRead<T> {
  private readonly asks: BatchedAsks<void, T>;

  /** `intervalMs`: the least time between the starts of two reads (the poll interval of the waits it serves). */
  constructor(readOnce: () => Promise<T>, readonly intervalMs: number, clock: Clock = systemClock) {
    this.asks = new BatchedAsks<void, T>(async () => {
      const value = await readOnce();
      return () => value;
    }, intervalMs, clock);
  }

  /**
   * The answer of the next read that starts after this call. `now` starts it without waiting for the interval
   * (a wait on injected time, where real-time spacing means nothing).
   */
  read(options: { now?: boolean } = {}): Promise<T> {
    return this.asks.ask(undefined, options);
  }

  /** Reads made so far. */
  get count(): number {
    return this.asks.count;
  }
}

const readsOf = perClient((_client: VmHostClient) => new Map<string, SharedRead<unknown>>());

/**
 * The shared read named `key` of a client (i.e. of a provider process and account), created on first use with
 * `readOnce` and the process's poll interval (`VMHOST_POLL_FAST_MS` in tests). One key names one list: e.g.
 * `storage` or `snapshots:<instance uuid>`.
 */
export function sharedReadFor<T>(client: VmHostClient, key: string, readOnce: () => Promise<T>): SharedRead<T> {
  const reads = readsOf(client);
  let read = reads.get(key) as SharedRead<T> | undefined;
  if (!read) {
    read = new SharedRead(readOnce, pollIntervalMs());
    reads.set(key, read as SharedRead<unknown>);
  }
  return read;
}
