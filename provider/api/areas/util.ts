/** Helpers shared by the area clients. */
import { NotFoundError } from "../errors";

/** Resolves to undefined when the call fails with NotFoundError (404/410): absence is a normal answer. */
export async function undefinedIfNotFound<T>(promise: Promise<T>): Promise<T | undefined> {
  try {
    return await promise;
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

/**
 * Page size asked by the readers of every page (`listAll`, the status poller, the hostname listing). The service's
 * maximum is not published (api-spec.md §8); a host that refuses this one is asked again with the maximum its answer
 * names, or with none (its default), and the client keeps that for the list (client.ts `call`).
 */
export const LIST_ALL_PAGE_SIZE = 100;

/** Options every area method accepts. */
export interface RequestOptions {
  /** Aborts the call, including waits between retries. */
  signal?: AbortSignal;
  /**
   * Called when the request leaves the rate limiter for the host (before each attempt; the first call is the one
   * that counts): a shared read (wait/batched-asks.ts) lets every question asked until then share its answer.
   */
  onSend?: () => void;
}
