/**
 * The `vmhost:maxRequestsPerSecond` cap: a token bucket (burst = one second's worth). It is one part of the
 * account's rate limiter (limiter.ts), which also learns the host's own limit from its answers; the cap only
 * ever lowers the rate. The default is no cap.
 */
import { createHash } from "node:crypto";
import type { Clock } from "./retry";

/** A token bucket shared by every client of one account. */
export class Pacer {
  private tokens: number;
  private lastRefill: number;

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

  /**
   * Changes the rate (the most recently created client's setting wins; undefined/0 = unlimited). Tokens earned
   * so far count at the old rate; the next refill (before every read of the tokens) caps them to the new burst.
   */
  setRate(ratePerSecond: number | undefined): void {
    this.refill();
    this.ratePerSecond = ratePerSecond;
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

  /** How long a request must wait now for a token (0 when one is there). */
  delayMs(): number {
    if (!this.ratePerSecond) return 0;
    this.refill();
    return this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) / this.ratePerSecond) * 1000);
  }

  /** Takes one token (after {@link delayMs} said 0). */
  take(): void {
    if (!this.ratePerSecond) return;
    this.refill();
    this.tokens = Math.max(0, this.tokens - 1);
  }
}

/** The map key of an account: base URL + a hash of the key (never the key itself). */
export function accountKey(baseUrl: string, apiKey: string): string {
  const digest = createHash("sha256").update(apiKey).digest("hex").slice(0, 16);
  return `${baseUrl.replace(/\/+$/, "")}#${digest}`;
}
