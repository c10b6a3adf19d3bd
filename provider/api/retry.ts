/**
 * Retry policy: which failures are retried for which operation, and how long to wait.
 *
 * Why a small loop (in client.ts) rather than undici's `RetryHandler` / `interceptors.retry`: the policy
 * differs per operation (`read`/`idempotent`/`once`), a `once` operation must distinguish "the connection
 * never opened" (safe to re-send) from "it may have reached the server" (surface AmbiguousRequestError,
 * never re-send), `X-RateLimit-Reset` must be honoured besides `Retry-After`, the process-wide pacer must
 * be paused on a 429, the total time must be bounded across attempts, every attempt must be logged with
 * its retry count, and tests must run the waits on an injected clock. undici's handler retries inside the
 * dispatcher where none of that is visible; the explicit loop keeps it in one testable place.
 */
import type { RetryClass } from "./routes";

export { systemClock, type Clock } from "../clock";

/** Settings of the retry loop. */
export interface RetrySettings {
  /** Retries after the first attempt (default 4: at most 5 attempts). */
  maxRetries: number;
  /** Total time budget for one call including waits, in ms (default 60 000). */
  maxRetryTimeMs: number;
  /** First backoff ceiling in ms (default 500); doubles per retry. */
  baseDelayMs: number;
  /** Maximum backoff ceiling in ms (default 15 000). */
  maxDelayMs: number;
  /** Multiplies every wait, server-requested ones included (default 1; tests use a tiny value). */
  delayScale: number;
  /** Random source in [0, 1) for jitter (injectable for tests). */
  random: () => number;
}

/** Default retry settings. */
export const defaultRetrySettings: RetrySettings = {
  maxRetries: 4,
  maxRetryTimeMs: 60_000,
  baseDelayMs: 500,
  maxDelayMs: 15_000,
  delayScale: 1,
  random: Math.random,
};

/** What went wrong on one attempt. */
export type AttemptFailure =
  | { kind: "status"; status: number }
  | { kind: "network" | "timeout"; sent: boolean };

/** What to do after a failed attempt. */
export type RetryDecision = "retry" | "fail" | "ambiguous";

const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);

/**
 * Decides whether to retry. `read`/`idempotent`: 429, 502/503/504 and network errors or timeouts are
 * retried; a plain 500 only for `read`: a GET changes nothing, and Laravel hosts answer 500 now and then
 * under load (the fault soak's refreshes failed on one), while a 500 on a write is more often a request the
 * host cannot handle, better reported at once. `once`: only a 429 (the service refused before doing
 * anything) or a connection that never opened; any other failure after the request may have reached the
 * service (5xx, reset, timeout) is `ambiguous`. Other statuses (4xx) are final for every class.
 */
export function decideRetry(retryClass: RetryClass, failure: AttemptFailure): RetryDecision {
  if (failure.kind === "status") {
    if (failure.status === 429) return "retry";
    if (retryClass === "once") return failure.status >= 500 ? "ambiguous" : "fail";
    if (retryClass === "read" && failure.status === 500) return "retry";
    return RETRYABLE_STATUSES.has(failure.status) ? "retry" : "fail";
  }
  if (!failure.sent) return "retry";
  return retryClass === "once" ? "ambiguous" : "retry";
}

/**
 * The delay the service asked for, in ms: `Retry-After` (seconds or an HTTP date) or, failing that,
 * `X-RateLimit-Reset` (Laravel sends an epoch-seconds timestamp; small values are read as seconds to wait).
 * Undefined when neither header is usable.
 */
export function serverRequestedDelayMs(headers: Record<string, string | undefined>, now: number): number | undefined {
  const retryAfter = headers["retry-after"]?.trim();
  if (retryAfter) {
    if (/^\d+(\.\d+)?$/.test(retryAfter)) return Math.round(Number(retryAfter) * 1000);
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  const reset = headers["x-ratelimit-reset"]?.trim();
  if (reset && /^\d+$/.test(reset)) {
    const value = Number(reset);
    // Epoch seconds are > 10^9 today; anything smaller is a relative number of seconds.
    return value > 1e9 ? Math.max(0, value * 1000 - now) : value * 1000;
  }
  return undefined;
}

/**
 * Exponential backoff with full jitter (a random wait in [0, ceiling), ceiling = base * 2^retry capped at
 * max), or the server-requested delay when there is one. Scaled by `delayScale`.
 */
export function backoffDelayMs(retry: number, settings: RetrySettings, requestedMs?: number): number {
  if (requestedMs !== undefined) return requestedMs * settings.delayScale;
  const ceiling = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** retry);
  return Math.floor(settings.random() * ceiling) * settings.delayScale;
}
