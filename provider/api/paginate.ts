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

/** Collects every item of a paged list into an array. */
export async function collectAll<T>(fetchPage: (page: number) => Promise<Page<T>>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of paginate(fetchPage)) items.push(item);
  return items;
}
