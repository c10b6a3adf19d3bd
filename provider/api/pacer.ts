/**
 * Process-wide request pacing per service account. Pulumi runs many resource operations in parallel in one
 * provider process; without a shared limit they would burst into the service's (unpublished) rate limit.
 *
 * One pacer exists per base URL + API key. The key is hashed (SHA-256, truncated) for the map key: the raw
 * key is never stored outside the client's header. A pacer is a token bucket at `maxRequestsPerSecond`
 * (burst = one second's worth); the default is unlimited, because the service publishes no limit and
 * 429 answers are handled by Retry-After. A 429 also pauses the whole pacer until the requested time, so
 * parallel calls stop hammering instead of each discovering the limit on its own.
 */
import { createHash } from "node:crypto";
import type { Clock } from "./retry";

/** A token bucket shared by every client of one account. */
export class Pacer {
  private tokens: number;
  private lastRefill: number;
  private pausedUntil = 0;

  constructor(
    private ratePerSecond: number | undefined,
    private readonly clock: Clock,
  ) {
    this.tokens = this.capacity();
    this.lastRefill = clock.now();
  }

  private capacity(): number {
    return this.ratePerSecond ? Math.max(1, this.ratePerSecond) : Infinity;
  }

  /** Changes the rate (the most recently created client's setting wins; undefined/0 = unlimited). */
  setRate(ratePerSecond: number | undefined): void {
    this.refill();
    this.ratePerSecond = ratePerSecond;
    this.tokens = Math.min(this.tokens, this.capacity());
    if (!Number.isFinite(this.tokens)) this.tokens = this.capacity();
  }

  /** The configured rate (undefined = unlimited). */
  get rate(): number | undefined {
    return this.ratePerSecond;
  }

  private refill(): void {
    const now = this.clock.now();
    if (this.ratePerSecond) {
      const elapsed = Math.max(0, now - this.lastRefill) / 1000;
      this.tokens = Math.min(this.capacity(), this.tokens + elapsed * this.ratePerSecond);
    }
    this.lastRefill = now;
  }

  /** Holds every request of this account until `untilMs` (epoch ms): used on a 429 with Retry-After. */
  pauseUntil(untilMs: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, untilMs);
  }

  /** Waits for permission to send one request. */
  async acquire(signal?: AbortSignal): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      if (this.pausedUntil > now) {
        await this.clock.sleep(this.pausedUntil - now, signal);
        continue;
      }
      if (!this.ratePerSecond) return;
      this.refill();
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      await this.clock.sleep(Math.ceil(((1 - this.tokens) / this.ratePerSecond) * 1000), signal);
    }
  }
}

const pacers = new Map<string, Pacer>();

/** The map key of an account: base URL + a hash of the key (never the key itself). */
export function accountKey(baseUrl: string, apiKey: string): string {
  const digest = createHash("sha256").update(apiKey).digest("hex").slice(0, 16);
  return `${baseUrl.replace(/\/+$/, "")}#${digest}`;
}

/** The process-wide pacer of an account, created on first use. */
export function pacerFor(baseUrl: string, apiKey: string, ratePerSecond: number | undefined, clock: Clock): Pacer {
  const key = accountKey(baseUrl, apiKey);
  let pacer = pacers.get(key);
  if (!pacer) {
    pacer = new Pacer(ratePerSecond, clock);
    pacers.set(key, pacer);
  } else if (pacer.rate !== ratePerSecond) {
    pacer.setRate(ratePerSecond);
  }
  return pacer;
}

/** The keys of the pacers that exist (for tests proving no raw key is stored). */
export function pacerKeys(): string[] {
  return [...pacers.keys()];
}
