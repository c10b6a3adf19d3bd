/**
 * The deadline of the resource operation a request belongs to, carried implicitly (AsyncLocalStorage) from the
 * provider's create/update/delete down to every API call it makes, with whether the operation has sent a write yet
 * (its requests then go ahead of those of operations that have changed nothing: limiter.ts). A 429 only says "not
 * now": the client waits as long as this deadline allows instead of failing after a fixed number of retries (a fleet
 * of 50 VMs at 10 requests/s can be told "wait" many times in a row, and that must not fail a 30-minute create).
 * Without a scope (reads, tools), the call's own `maxRetryTimeMs` bounds the wait.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** One resource operation's scope: its deadline, and whether it has sent a write yet (shared by nested scopes). */
interface OperationScope {
  atMs: number;
  progress: { wrote?: true };
}

const scope = new AsyncLocalStorage<OperationScope>();

/** Runs `fn` with every API call in it bounded by `atMs` (epoch ms) for rate-limit waits; nested scopes narrow it. */
export function withRequestDeadline<T>(atMs: number, fn: () => Promise<T>): Promise<T> {
  const outer = scope.getStore();
  return scope.run({ atMs: outer === undefined ? atMs : Math.min(outer.atMs, atMs), progress: outer?.progress ?? {} }, fn);
}

/** The deadline of the current resource operation (epoch ms), if one is set. */
export function currentRequestDeadline(): number | undefined {
  return scope.getStore()?.atMs;
}

/**
 * Notes that the current resource operation sent a write (pipeline.ts, as the request leaves the rate limiter): from
 * then on it is underway (it may have changed something at the host, a VM made that must be seen through and recorded),
 * and its requests go ahead of those of operations that have changed nothing yet (limiter.ts).
 */
export function noteWriteSent(): void {
  const store = scope.getStore();
  if (store) store.progress.wrote = true;
}

/** Whether the current resource operation has sent a write (see {@link noteWriteSent}). */
export function currentOperationUnderway(): boolean {
  return scope.getStore()?.progress.wrote === true;
}

/**
 * Runs `fn` outside any resource's deadline: for work shared by many resources (the status poller's list
 * requests), which must not be bounded by whichever resource happened to start it.
 */
export function outsideRequestDeadline<T>(fn: () => T): T {
  return scope.exit(fn);
}

/** Where shared work stands in the rate limiter's queue (limiter.ts QueueDeadline): set by {@link withQueuePlace}. */
export interface QueuePlace {
  /** The nearest deadline of the resource operations it serves, if any has one. */
  orderAt: number | undefined;
  /** Whether one of them is underway (has sent a write). */
  underway: boolean;
}

const queueScope = new AsyncLocalStorage<QueuePlace>();

/**
 * Runs `fn` with its requests placed in the rate limiter's queue as `place` says (limiter.ts), without bounding them
 * by its deadline: shared work done for several resources (a status tick) takes the nearest deadline of those it
 * serves, and goes with the operations underway when one of them is.
 */
export function withQueuePlace<T>(place: QueuePlace, fn: () => Promise<T>): Promise<T> {
  return queueScope.run(place, fn);
}

/** The place of the current shared work in the rate limiter's queue, when set by {@link withQueuePlace}. */
export function currentQueuePlace(): QueuePlace | undefined {
  return queueScope.getStore();
}
