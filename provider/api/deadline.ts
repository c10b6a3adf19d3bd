/**
 * The deadline of the resource operation a request belongs to, carried implicitly (AsyncLocalStorage) from the
 * provider's create/update/delete down to every API call it makes. A 429 only says "not now": the client
 * waits as long as this deadline allows instead of failing after a fixed number of retries (a fleet of 50
 * VMs at 10 requests/s can be told "wait" many times in a row, and that must not fail a 30-minute create).
 * Without a scope (reads, tools), the call's own `maxRetryTimeMs` bounds the wait.
 */
import { AsyncLocalStorage } from "node:async_hooks";

const scope = new AsyncLocalStorage<number>();

/** Runs `fn` with every API call in it bounded by `atMs` (epoch ms) for rate-limit waits; nested scopes narrow it. */
export function withRequestDeadline<T>(atMs: number, fn: () => Promise<T>): Promise<T> {
  const outer = scope.getStore();
  return scope.run(outer === undefined ? atMs : Math.min(outer, atMs), fn);
}

/** The deadline of the current resource operation (epoch ms), if one is set. */
export function currentRequestDeadline(): number | undefined {
  return scope.getStore();
}

/**
 * Runs `fn` outside any resource's deadline: for work shared by many resources (the status poller's list
 * requests), which must not be bounded by whichever resource happened to start it.
 */
export function outsideRequestDeadline<T>(fn: () => T): T {
  return scope.exit(fn);
}

const queueScope = new AsyncLocalStorage<number>();

/**
 * Runs `fn` with its requests placed in the rate limiter's queue as if due by `atMs` (limiter.ts), without bounding
 * them by it: shared work done for several resources (a status tick) carries the nearest deadline of those it serves.
 */
export function withQueueDeadline<T>(atMs: number | undefined, fn: () => Promise<T>): Promise<T> {
  return atMs === undefined ? fn() : queueScope.run(atMs, fn);
}

/** The deadline that places the current request in the rate limiter's queue, when set by {@link withQueueDeadline}. */
export function currentQueueDeadline(): number | undefined {
  return queueScope.getStore();
}
