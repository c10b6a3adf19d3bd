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
 * - At most one listing is in flight; questions asked meanwhile are answered by the next one, started when it
 *   ends. So a burst of creates costs one or two listings whatever its size.
 * - The whole account is listed in one page (`limit=100&page=1`) when it fits; a list of several pages is not
 *   read as a whole, because rows shift between pages when VMs are deleted meanwhile and a skipped row would be
 *   a missed twin. Then (and for a lone question, where a search is as cheap) each hostname is searched as
 *   before (`search=<hostname>`, every page), and the listing remembers that the account spans several pages.
 */
import type { InstanceListItem, VmHostClient } from "../api";
import { LIST_ALL_PAGE_SIZE } from "../api";
import { BatchedAsks, perClient } from "./batched-asks";

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

/** Shares instance listings between the creates of one process (see the module comment). */
export class SharedHostnameListing {
  /** Set once the account's list is seen to span several pages: then only searches are used. */
  private multiPage = false;
  private readonly counters: HostnameListingStats = { listings: 0, requests: 0, answered: 0 };
  // No interval between listings: a create must not wait for one; one in flight at a time batches the asks.
  private readonly asks = new BatchedAsks<string, InstanceListItem[]>(async (hostnames) => {
    this.counters.listings += 1;
    const rows = await this.list([...new Set(hostnames)]);
    this.counters.answered += hostnames.length;
    return (hostname) => rows.filter((r) => r.hostname === hostname);
  });

  constructor(private readonly source: ListingSource) {}

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

  /** Rows that may carry one of `hostnames` (possibly more rows; the caller filters by exact name). */
  private async list(hostnames: string[]): Promise<InstanceListItem[]> {
    if (hostnames.length > 1 && !this.multiPage) {
      this.counters.requests += 1;
      const page = await this.source.list({ limit: LIST_ALL_PAGE_SIZE, page: 1 });
      if (page.page.total_pages <= 1 && page.data.length >= page.page.total) return page.data;
      this.multiPage = true;
    }
    const found = await Promise.all(
      hostnames.map(async (hostname) => {
        this.counters.requests += 1;
        return this.source.listAll({ search: hostname });
      }),
    );
    return found.flat();
  }
}

/** The shared hostname listing of a client (i.e. of a provider process and account), created on first use. */
export const hostnameListingFor = perClient((client: VmHostClient) => new SharedHostnameListing(client.instances));
