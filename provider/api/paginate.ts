/**
 * Iteration over the paged lists (instances, credit history, backups, firewall rules): `{data, page}`
 * answers with `current_page` / `total_pages`.
 */
import type { PageInfo } from "./schemas/common";

/** One page of a paged list. */
export interface Page<T> {
  data: T[];
  page: PageInfo;
}

/** Safety stop: a service that keeps reporting more pages is not followed past this many. */
export const MAX_PAGES = 1000;

/**
 * Yields every item of a paged list, fetching page 1, 2, ... until `current_page >= total_pages` or a page
 * comes back empty (so a host that miscounts pages cannot loop forever).
 */
export async function* paginate<T>(fetchPage: (page: number) => Promise<Page<T>>): AsyncGenerator<T, void, undefined> {
  for (let pageNumber = 1; pageNumber <= MAX_PAGES; pageNumber += 1) {
    const result = await fetchPage(pageNumber);
    yield* result.data;
    if (result.data.length === 0) return;
    const { current_page: current, total_pages: total } = result.page;
    if (Math.max(current, pageNumber) >= total) return;
  }
}

/** How many times {@link collectAll} reads a list that changed while it was read before it takes what it read. */
export const CONSISTENT_READ_ATTEMPTS = 3;

/**
 * Collects every item of a paged list into an array. A list whose `total` changed between its pages was written to
 * while it was read (a concurrent delete or create of this process or of another client): its rows shifted between
 * pages, so a row can have been skipped (one deleted from page 1 moves the first row of page 2 onto page 1, read
 * already) or read twice. Such a list is read again from page 1, up to {@link CONSISTENT_READ_ATTEMPTS} times in all
 * (the last read is taken as it is; callers that match by id dedupe). A skipped row is the dangerous one: a refresh
 * would take a firewall rule or backup that stands for deleted and drop it from the state.
 */
export async function collectAll<T>(fetchPage: (page: number) => Promise<Page<T>>): Promise<T[]> {
  for (let attempt = 1; ; attempt += 1) {
    const items: T[] = [];
    const totals = new Set<number>();
    for await (const item of paginate(async (page) => {
      const result = await fetchPage(page);
      totals.add(result.page.total);
      return result;
    })) items.push(item);
    if (totals.size <= 1 || attempt >= CONSISTENT_READ_ATTEMPTS) return items;
  }
}
