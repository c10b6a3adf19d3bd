/**
 * What a route handler receives and returns. Handlers are synchronous functions of the state: the server
 * has already parsed the request, checked auth and faults, and advanced the operations to "now".
 */
import type { Input } from "./validation";
import type { SimContext } from "./state";

/** The parsed request. */
export interface RequestData {
  /** Path parameters by placeholder name (URL-decoded). */
  params: Record<string, string>;
  query: URLSearchParams;
  /** Form fields (`k[]` collected into arrays) or a JSON object. */
  body: Input;
}

/** A successful answer: the envelope `{message, data}` with HTTP 200 unless `status` says otherwise. */
export interface Reply {
  status?: number;
  message: string;
  data: unknown;
}

/** A route handler. Throws `HttpError` for error answers. */
export type Handler = (ctx: SimContext, req: RequestData) => Reply;

/** Shorthand for a 200 answer. */
export const ok = (message: string, data: unknown): Reply => ({ message, data });

/** The query parameters as an Input for the validator (first value of each). */
export function queryInput(query: URLSearchParams): Input {
  const out: Input = {};
  for (const [k, v] of query) if (!(k in out)) out[k] = v;
  return out;
}

/** Pagination per Laravel: `page` from 1, `limit` 1..100 (default 10). */
export function paginate<T>(items: T[], page: number, limit: number): { data: T[]; page: PageInfo } {
  const total = items.length;
  const totalPages = Math.max(1, Math.ceil(total / limit));
  const slice = items.slice((page - 1) * limit, page * limit);
  return {
    data: slice,
    page: { total, count: slice.length, per_page: limit, current_page: page, total_pages: totalPages },
  };
}

/** The `page` object of paginated lists. */
export interface PageInfo {
  total: number;
  count: number;
  per_page: number;
  current_page: number;
  total_pages: number;
}
