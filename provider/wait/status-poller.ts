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
 * list can shift between pages: only a 404 on the detail says "gone").
 */
import type { InstanceList, InstanceListItem, VmHostClient } from "../api";
import { LIST_ALL_PAGE_SIZE, systemClock, type Clock } from "../api";
import { outsideRequestDeadline } from "../api/deadline";

interface Request {
  uuid: string;
  now: boolean;
  resolve(row: InstanceListItem | undefined): void;
  reject(error: unknown): void;
}

/** Time source of the poller: the client's Clock (api/retry.ts), so tests inject one fake clock for both. */
export type PollerClock = Clock;


/** Counters of a poller (for `make bench`). */
export interface PollerStats {
  /** List rounds made. */
  ticks: number;
  /** List requests made (a round can read several pages). */
  requests: number;
  /** Status questions answered. */
  answered: number;
}

/** Shares list requests between every instance wait (see the module comment). */
export class InstanceStatusPoller {
  private pending: Request[] = [];
  private scheduled = false;
  private inFlight = false;
  private lastTickAt = -Infinity;
  private readonly counters: PollerStats = { ticks: 0, requests: 0, answered: 0 };

  constructor(
    private readonly listPage: (page: number) => Promise<InstanceList>,
    private readonly minIntervalMs: number,
    private readonly clock: PollerClock = systemClock,
  ) {}

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
    return new Promise((resolve, reject) => {
      this.pending.push({ uuid, now: options.now === true, resolve, reject });
      this.schedule();
    });
  }

  /** Counters so far. */
  stats(): PollerStats {
    return { ...this.counters };
  }

  /**
   * At most one tick is scheduled or in flight at a time: who asks while one is in flight is answered by the
   * next, which starts when that one ends (and not before the interval). Without this, ticks queued behind a
   * busy rate limiter piled up and went out together (8 list requests in one second during a 50-VM up).
   */
  private schedule(): void {
    if (this.scheduled || this.inFlight || this.pending.length === 0) return;
    this.scheduled = true;
    // Shared work: not bounded by the deadline of the resource whose wait happened to start it.
    void outsideRequestDeadline(() => this.tick());
  }

  private async tick(): Promise<void> {
    // Waits that start together (a fleet's creates answered in one burst) share the first tick too.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const gap = this.lastTickAt + this.minIntervalMs - this.clock.now();
    if (gap > 0 && !this.pending.some((r) => r.now)) await this.clock.sleep(gap);
    const batch = this.pending;
    this.pending = [];
    this.scheduled = false;
    this.inFlight = true; // who asks from now on is answered by the next tick
    this.lastTickAt = this.clock.now();
    this.counters.ticks += 1;
    try {
      const wanted = new Set(batch.map((r) => r.uuid));
      const found = new Map<string, InstanceListItem>();
      for (let page = 1; ; page += 1) {
        this.counters.requests += 1;
        const list = await this.listPage(page);
        for (const row of list.data) if (wanted.has(row.uuid)) found.set(row.uuid, row);
        if (found.size === wanted.size || list.data.length === 0 || page >= list.page.total_pages) break;
      }
      this.counters.answered += batch.length;
      for (const r of batch) r.resolve(found.get(r.uuid));
    } catch (error) {
      for (const r of batch) r.reject(error);
    } finally {
      this.inFlight = false;
      this.schedule();
    }
  }
}

const pollers = new WeakMap<VmHostClient, InstanceStatusPoller>();

/**
 * The shortest time between two ticks: 0.9 s, so an operation is noticed within about a second of its end while
 * polling costs about one request per second in total. `VMHOST_POLL_FAST_MS` lowers it (tests).
 */
export function pollIntervalMs(env: Readonly<Record<string, string | undefined>> = process.env): number {
  const configured = Number(env.VMHOST_POLL_FAST_MS);
  return Number.isFinite(configured) && configured > 0 ? configured : 900;
}

/** The shared poller of a client, created on first use. */
export function statusPollerFor(client: VmHostClient): InstanceStatusPoller {
  let poller = pollers.get(client);
  if (!poller) {
    poller = new InstanceStatusPoller((page) => client.instances.list({ limit: LIST_ALL_PAGE_SIZE, page }), pollIntervalMs());
    pollers.set(client, poller);
  }
  return poller;
}
