/**
 * One status poller per client (i.e. per provider process and account), shared by every instance wait.
 *
 * Each wait used to poll its own `GET /instance/{uuid}/detail`: 50 VMs waiting meant 50 requests per round,
 * which a rate-limited host answers with 429s. The instance list carries `status` and `operation_flag` for a page
 * of VMs per request, so one list request (a "tick") answers every wait at once. A wait asks for the status
 * seen by the next tick that starts after it asked (an older answer could predate the operation it waits for);
 * ticks are at least `minIntervalMs` apart, so status polling costs about one request per interval in total,
 * however many VMs wait. Only where the list cannot tell does a wait read the detail: sizes, addresses and
 * networks after an operation (once, when the list shows it finished), and a VM missing from the list (the
 * list can shift between pages: only a 404 on the detail says "gone"). An operation that usually ends within
 * two ticks is looked at on the detail first (wait/instance.ts): that read is needed anyway once it has ended.
 *
 * A wait whose own detail read is planned at the usual end of its operation (the "end read", wait/instance.ts)
 * asks the ticks before it only to notice an early end: it {@link InstanceStatusPoller.watch}es. A tick that
 * only such waits asked for is left out while the host's rate limit paces our requests (it was reached within
 * the last second): there it would take a place in the window from another resource's request (in a 50-VM up,
 * a tick a second delayed the fleet's end reads by one window in total, seen in make bench), and an early end
 * it showed could only be acted upon behind those requests anyway. The waits then rely on their end reads.
 */
import type { InstanceList, InstanceListItem, RateLimitView, VmHostClient } from "../api";
import { LIST_ALL_PAGE_SIZE } from "../api";
import { systemClock, type Clock } from "../clock";
import { BatchedAsks, perClient, type Batch } from "./batched-asks";

/** Counters of a poller (for `make bench`). */
export interface PollerStats {
  /** List rounds made. */
  ticks: number;
  /** List requests made (a round can read several pages). */
  requests: number;
  /** Status questions answered. */
  answered: number;
  /** Ticks left out: only watching waits asked, and the host's rate limit was busy. */
  skipped: number;
}

/** What {@link InstanceStatusPoller.watch} answers when the tick was left out (the host's rate limit is busy). */
export const TICK_SKIPPED = Symbol("tick skipped");

/** One question to a tick: the instance, and whether the asker only watches for an early end. */
interface StatusAsk {
  uuid: string;
  watchOnly: boolean;
}

/** Shares list requests between every instance wait (see the module comment). */
export class InstanceStatusPoller {
  private readonly counters: PollerStats = { ticks: 0, requests: 0, answered: 0, skipped: 0 };
  // One tick at a time, ticks at least the interval apart (batched-asks.ts): ticks queued behind a busy rate
  // limiter once piled up and went out together (8 list requests in one second during a 50-VM up).
  private readonly asks: BatchedAsks<StatusAsk, InstanceListItem | undefined | typeof TICK_SKIPPED>;

  constructor(
    private readonly listPage: (page: number, onSend?: () => void) => Promise<InstanceList>,
    private readonly minIntervalMs: number,
    clock: Clock = systemClock,
    /** The account's rate limiter (a tick only watching waits asked for is left out while it is busy). */
    private readonly rateLimit: RateLimitView = { reachedWithin: () => false },
  ) {
    // A tick takes every wait that asks until its first page leaves the rate limiter (batched-asks.ts holdOpen):
    // behind a fleet's queued requests, a wait asking then is answered by that tick, not one an interval later.
    this.asks = new BatchedAsks((batch) => this.tick(batch), minIntervalMs, clock, { holdOpen: true });
  }

  /** The shortest time between the starts of two ticks. */
  get intervalMs(): number {
    return this.minIntervalMs;
  }

  /**
   * The instance's list row from the next tick that starts after this call, or undefined when the list does
   * not show it. Rejects with the list's error when that tick fails. `now` starts that tick without waiting for
   * the interval: for a wait that runs on its own injected time (tests), where real-time spacing means nothing.
   */
  status(uuid: string, options: { now?: boolean } = {}): Promise<InstanceListItem | undefined> {
    // Never TICK_SKIPPED: a tick with an ask that is not watch-only is always made.
    return this.asks.ask({ uuid, watchOnly: false }, options) as Promise<InstanceListItem | undefined>;
  }

  /**
   * Like {@link status}, for a wait that only watches for an early end of its operation (it reads the detail at
   * the usual end anyway): TICK_SKIPPED when the tick was left out because only such waits asked for it and the
   * host's rate limit is busy (see the module comment).
   */
  watch(uuid: string, options: { now?: boolean } = {}): Promise<InstanceListItem | undefined | typeof TICK_SKIPPED> {
    return this.asks.ask({ uuid, watchOnly: true }, options);
  }

  /** Counters so far. */
  stats(): PollerStats {
    return { ...this.counters };
  }

  /**
   * One tick: list pages until every asked instance is found, the list ends, or as many pages were read as asked
   * instances are still missing: each of those costs one detail read instead (its wait reads the detail when the
   * list does not show it), cheaper than paging on through an account of many VMs (multistack audit: a resize of an
   * old VM with 1,000 other VMs in the account read all 11 pages every tick, 12 requests/s of a shared rate limit).
   */
  private async tick(batch: Batch<StatusAsk>): Promise<(ask: StatusAsk) => InstanceListItem | undefined | typeof TICK_SKIPPED> {
    // Decided on the asks made so far and closed at once: a status() ask made later goes to the next tick.
    if (batch.peek().every((a) => a.watchOnly) && this.rateLimit.reachedWithin(RATE_LIMIT_BUSY_WITHIN_MS)) {
      batch.close();
      this.counters.skipped += 1;
      return () => TICK_SKIPPED;
    }
    this.counters.ticks += 1;
    const found = new Map<string, InstanceListItem>();
    let wanted: Set<string> | undefined;
    for (let page = 1; ; page += 1) {
      this.counters.requests += 1;
      const list = await this.listPage(page, page === 1 ? () => void batch.close() : undefined);
      wanted ??= new Set(batch.close().map((a) => a.uuid));
      for (const row of list.data) if (wanted.has(row.uuid)) found.set(row.uuid, row);
      if (found.size === wanted.size || list.data.length === 0 || page >= list.page.total_pages || page >= wanted.size - found.size) break;
    }
    this.counters.answered += batch.close().length;
    return (ask) => found.get(ask.uuid);
  }
}

/**
 * "The host's rate limit is busy" for the tick decision: it was reached within the last second (the window of the
 * simulator and of hosts limiting per second; a host limiting per minute stays busy while requests queue).
 */
const RATE_LIMIT_BUSY_WITHIN_MS = 1_000;

/**
 * The shortest time between two ticks: 0.9 s, so an operation is noticed within about a second of its end while
 * polling costs about one request per second in total. `VMHOST_POLL_FAST_MS` lowers it (tests).
 */
export function pollIntervalMs(env: Readonly<Record<string, string | undefined>> = process.env): number {
  const configured = Number(env.VMHOST_POLL_FAST_MS);
  return Number.isFinite(configured) && configured > 0 ? configured : 900;
}

/** The shared poller of a client, created on first use. */
export const statusPollerFor = perClient(
  (client: VmHostClient) =>
    new InstanceStatusPoller(
      (page, onSend) => client.instances.list({ limit: LIST_ALL_PAGE_SIZE, page }, { onSend }),
      pollIntervalMs(),
      systemClock,
      client.rateLimit,
    ),
);
