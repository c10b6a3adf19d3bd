/**
 * The pre-create hostname listing, shared by concurrent creates.
 *
 * Before sending a create, the Instance provider lists the instances with the new VM's hostname (the duplicate
 * guard of common/reconcile.ts `writeExactlyOnce` / `refuseBeside`: a VM left by an interrupted `up` must not
 * get a twin), and lists them again after an ambiguous failure to find the VM the failed request may have made.
 * One `GET /instance?search=<hostname>` per create made a 50-VM fleet spend 50 requests (5 s at 10 requests/s)
 * before its last create could go out. Here every create waiting at that moment is answered by one listing:
 *
 * - Correctness first (the rules of batched-asks.ts): an answer always comes from a listing that STARTED AFTER the
 *   question was asked. A create
 *   asks before it sends its POST, so a listing that predates a create's POST only ever serves creates that had
 *   not sent theirs yet; a look after an ambiguous failure asks after that POST, so it never sees a listing from
 *   before it. (Same rule as the status poller's ticks, status-poller.ts.)
 * - A listing "starts" when its request leaves the rate limiter for the host (batched-asks.ts `holdOpen`): every
 *   create that asks until then shares it. A fleet's creates reach the provider one by one while earlier creates
 *   queue in the limiter, so a listing issued at the first ask could wait a second to be sent, and each create
 *   asking meanwhile needed another listing (10-40 listings in a 50-VM create phase, a create each at 10 req/s).
 * - At most one listing is in flight; questions asked once it was sent are answered by the next one, started when
 *   it ends and at least `listingIntervalMs()` (0.5 s) after the previous one started. So a burst of creates
 *   costs one or two listings whatever its size, and creates trickling in (an engine handing a fleet over one by
 *   one) share a listing per half second instead of making one each; a lone create never waits.
 * - The whole account is listed in one page (`limit=100&page=1`) when it fits; a list of several pages is not
 *   read as a whole, because rows shift between pages when VMs are deleted meanwhile and a skipped row would be
 *   a missed twin. Then each hostname is searched as before (`search=<hostname>`, every page), and the listing
 *   remembers that the account spans several pages (later batches search straight away).
 */
import type { InstanceListItem, VmHostClient } from "../api";
import { LIST_ALL_PAGE_SIZE } from "../api";
import { systemClock, type Clock } from "../clock";
import { pollIntervalMs } from "./status-poller";
import { BatchedAsks, perClient, type Batch } from "./batched-asks";

/** Counters of a listing (tests, `make bench`). */
export interface HostnameListingStats {
  /** Listings made (each answers every question of its batch). */
  listings: number;
  /** Requests made (one per page read, or one per hostname searched). */
  requests: number;
  /** Questions answered. */
  answered: number;
}

/** The list calls the listing needs (a VmHostClient's `instances`, or a fake in tests). */
export type ListingSource = Pick<VmHostClient["instances"], "list" | "listAll">;

/** The shortest time between the starts of two listings (or the status poller's interval, if shorter: tests). */
export function listingIntervalMs(): number {
  return Math.min(500, pollIntervalMs());
}

/** Shares instance listings between the creates of one process (see the module comment). */
export class SharedHostnameListing {
  /** Set once the account's list is seen to span several pages: then only searches are used. */
  private multiPage = false;
  private readonly counters: HostnameListingStats = { listings: 0, requests: 0, answered: 0 };
  private readonly asks: BatchedAsks<string, InstanceListItem[]>;

  /** @param minIntervalMs shortest time between the starts of two listings (0: back to back). */
  constructor(
    private readonly source: ListingSource,
    minIntervalMs = 0,
    clock: Clock = systemClock,
  ) {
    this.asks = new BatchedAsks<string, InstanceListItem[]>(
      async (batch) => {
        this.counters.listings += 1;
        const rows = await this.list(batch);
        this.counters.answered += batch.close().length;
        return (hostname) => rows.filter((r) => r.hostname === hostname);
      },
      minIntervalMs,
      clock,
      { holdOpen: true },
    );
  }

  /**
   * Every instance whose hostname is exactly `hostname`, from a listing that started after this call. Rejects
   * with the listing's error when it fails (the caller retries: writeExactlyOnce reads persistently).
   */
  named(hostname: string): Promise<InstanceListItem[]> {
    return this.asks.ask(hostname);
  }

  /** Counters so far. */
  stats(): HostnameListingStats {
    return { ...this.counters };
  }

  /** Rows that may carry one of the batch's hostnames (possibly more rows; the caller filters by exact name). */
  private async list(batch: Batch<string>): Promise<InstanceListItem[]> {
    if (!this.multiPage) {
      this.counters.requests += 1;
      // the batch closes when this request is sent: creates asking until then share it
      const page = await this.source.list({ limit: LIST_ALL_PAGE_SIZE, page: 1 }, { onSend: () => void batch.close() });
      if (page.page.total_pages <= 1 && page.data.length >= page.page.total) return page.data;
      this.multiPage = true;
    }
    const found = await Promise.all(
      [...new Set(batch.close())].map(async (hostname) => {
        this.counters.requests += 1;
        return this.source.listAll({ search: hostname });
      }),
    );
    // Each VM once: a search over several pages while another client creates or deletes VMs of matching names shifts
    // rows between pages, and a row read at the end of one page and again at the top of the next was two VMs to the
    // look after an ambiguous create (multistack audit).
    const byUuid = new Map<string, InstanceListItem>();
    for (const row of found.flat()) if (!byUuid.has(row.uuid)) byUuid.set(row.uuid, row);
    return [...byUuid.values()];
  }
}

/** The shared hostname listing of a client (i.e. of a provider process and account), created on first use. */
export const hostnameListingFor = perClient((client: VmHostClient) => new SharedHostnameListing(client.instances, listingIntervalMs()));
