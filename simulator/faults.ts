/**
 * Injected faults: a 5xx rate, a per-second request budget (429), added latency, connection resets, and
 * failing or never-ending operations. Set with `POST /__sim/faults`, CLI flags, or `startSimulator({faults})`.
 */
import { z } from "zod";
import { kindByOperationId } from "./operations";
import { operationKinds, type OperationKind, type OperationFaults, type WireVariants } from "./state";

const kindSchema = z.string().transform((s, ctx): OperationKind => {
  if ((operationKinds as readonly string[]).includes(s)) return s as OperationKind;
  const mapped = kindByOperationId[s];
  if (mapped) return mapped;
  ctx.addIssue({ code: "custom", message: `unknown operation kind "${s}" (one of ${operationKinds.join(", ")} or a client operation id)` });
  return z.NEVER;
});

/** The JSON body of `POST /__sim/faults` (every field optional; given fields replace the current ones). */
export const faultsInputSchema = z.object({
  /** Share (0..1) of /v1 requests answered with `errorStatus` before doing anything. */
  errorRate: z.number().min(0).max(1).optional(),
  /** Status of injected server errors (default 500). */
  errorStatus: z.union([z.literal(500), z.literal(502), z.literal(503), z.literal(504)]).optional(),
  /** Requests allowed per second (per clock second); beyond it 429 with Retry-After. null or 0 = unlimited. */
  rateLimitPerSecond: z.number().int().min(0).nullable().optional(),
  /**
   * Requests allowed per clock minute, Laravel's own unit (`throttle:60,1`, the stock API limit): beyond it 429
   * with a Retry-After of up to 60 s. null or 0 = unlimited. Replaces `rateLimitPerSecond` (and vice versa).
   */
  rateLimitPerMinute: z.number().int().min(0).nullable().optional(),
  /** Delay added before each /v1 answer, ms (real time). */
  latencyMs: z.number().min(0).max(60000).optional(),
  /**
   * Share (0..1) of /v1 requests whose connection is destroyed without an answer, decided per request by the
   * seeded fault generator (unlike `resetNext`, which takes the next N). A soak sets a rate for a whole phase.
   */
  resetRate: z.number().min(0).max(1).optional(),
  /**
   * Share (0..1) of the random resets (`resetRate`) and injected 5xx (`errorRate`) that happen AFTER the
   * request took effect: the create ran, the client got a reset or a 502/504 (a gateway that gave up on a
   * backend that did the work). 0 (default): before anything happens.
   */
  afterProcessingShare: z.number().min(0).max(1).optional(),
  /**
   * Destroy the connection of the next `count` requests (of `operation`, a client operation id or a route
   * key like "POST /instance/create"; any /v1 request when absent) without answering. `afterProcessing`
   * true: the request takes effect first (the client cannot know it did). `skip`: let that many matching
   * requests through first (e.g. a listing before a create passes, the ones after it fail).
   */
  resetNext: z.object({
    operation: z.string().optional(),
    count: z.number().int().min(1).default(1),
    skip: z.number().int().min(0).default(0),
    afterProcessing: z.boolean().default(false),
    /**
     * The canned answer is given at once and the request takes effect this many ms later (real time): a host that
     * queues the work and answers 2xx before the object exists or is listed (Laravel's queued job). Implies
     * `afterProcessing`; the handler's own answer, refusal or not, is never seen.
     */
    effectAfterMs: z.number().int().min(1).max(600_000).optional(),
  }).nullable().optional(),
  /**
   * Answer the next `count` requests (of `operation`, as in `resetNext`; any /v1 request when absent) with this
   * error status and a Laravel-shaped body (`{message}`, plus `errors` when given), before anything happens. For
   * the answers real-api-facts.md expects but the model never gives on its own: 403 (a key without the scope),
   * 402 (a create refused by billing or quota), or a "busy" sent as 400/422/423 instead of the simulator's 409.
   * `skip`: let that many matching requests through first.
   */
  respondNext: z.object({
    operation: z.string().optional(),
    count: z.number().int().min(1).default(1),
    skip: z.number().int().min(0).default(0),
    status: z.number().int().min(200).max(599),
    message: z.string().optional(),
    /** The envelope's `data` (any JSON; `null` too): with a 2xx status, a host's refusal written as a success. */
    data: z.unknown().optional(),
    errors: z.record(z.string(), z.array(z.string())).optional(),
    /**
     * true: the request takes effect first (the handler runs), then this answer replaces the handler's own: a create
     * answered 2xx with `data: null` or without a uuid while the object is being made. A request the handler refuses
     * (422, 404, 409) gets the handler's own answer, and the fault is not used up.
     */
    afterProcessing: z.boolean().default(false),
    /**
     * The canned answer is given at once and the request takes effect this many ms later (real time): a host that
     * queues the work and answers 2xx before the object exists or is listed (Laravel's queued job). Implies
     * `afterProcessing`; the handler's own answer, refusal or not, is never seen.
     */
    effectAfterMs: z.number().int().min(1).max(600_000).optional(),
  }).nullable().optional(),
  /**
   * Hold the next `count` requests (of `operation`, as in `resetNext`; any /v1 request when absent) for `ms`
   * (real time) BEFORE the handler runs, whatever the client does meanwhile: a client whose request timeout is
   * shorter gives up, and the effect still lands `ms` after arrival (a backend that kept working after the
   * client or a gateway gave up). Unlike `latencyMs`, the requests that look for the effect are not slowed.
   */
  delayNext: z.object({
    operation: z.string().optional(),
    count: z.number().int().min(1).default(1),
    skip: z.number().int().min(0).default(0),
    ms: z.number().int().min(1).max(600_000),
  }).nullable().optional(),
  /**
   * Wire variants (merged into the current ones; null clears them): how fields the spec leaves open are written,
   * so a client's tolerance of each is exercised. `privateNetwork`: what the detail's `private_network` shows
   * ("name", "uuid", "ip"); `consoleUrlKey`: "url" or "webview"; `listOs`: false leaves `os` off list rows;
   * `snapshotReady`: the status word of a finished snapshot (default "Ready"); `maxPageSize` / `overPageSize`: the
   * largest `limit` of paged lists (default 100) and whether a larger one is refused (422) or clamped.
   */
  wire: z.object({
    privateNetwork: z.enum(["name", "uuid", "ip"]).optional(),
    consoleUrlKey: z.enum(["url", "webview"]).optional(),
    listOs: z.boolean().optional(),
    snapshotReady: z.string().min(1).optional(),
    maxPageSize: z.number().int().min(1).max(100).optional(),
    overPageSize: z.enum(["refuse", "clamp"]).optional(),
    operationFlag: z.boolean().optional(),
    textTimeZone: z.enum(["WIB", "+07:00", "GMT+7", "UTC"]).optional(),
    nullFields: z.array(z.string().min(1)).optional(),
    statusWords: z.record(z.string(), z.string().min(1)).optional(),
  }).strict().nullable().optional(),
  /** The next `count` operations of `kind` end in status Error. */
  failNext: z.object({ kind: kindSchema, count: z.number().int().min(1).default(1) }).nullable().optional(),
  /** The next `count` operations of `kind` never finish (status stays transitional, operation_flag 1). */
  stickNext: z.object({ kind: kindSchema, count: z.number().int().min(1).default(1) }).nullable().optional(),
}).strict();

/** Input accepted by {@link FaultState.apply}. */
export type FaultsInput = z.input<typeof faultsInputSchema>;

/** A pending connection-reset fault. */
export interface ResetFault {
  operation: string | undefined;
  remaining: number;
  /** Matching requests still let through before this fault starts. */
  skip: number;
  afterProcessing: boolean;
}

/** A pending canned error answer. */
export interface RespondFault {
  operation: string | undefined;
  remaining: number;
  skip: number;
  status: number;
  body: Record<string, unknown>;
  /** Given after the handler ran (the effect happened), in place of its answer. */
  afterProcessing: boolean;
  /** Given at once; the handler runs this many ms later. */
  effectAfterMs: number | undefined;
}

/** A pending slow request (the effect lands `ms` after the request arrived). */
export interface DelayFault {
  operation: string | undefined;
  remaining: number;
  skip: number;
  ms: number;
}

/** A pending fault of the `…Next` kind: for requests of `operation` (any when absent), `skip` let through first. */
interface CountedFault {
  operation: string | undefined;
  remaining: number;
  skip: number;
}

/**
 * Takes the first pending fault matching the request (its operation id or `METHOD /path`), counting it down; `left`
 * is the list without the faults used up. A matching fault still skipping lets this request through.
 */
function takeMatching<F extends CountedFault>(pending: F[], operationId: string, routeKey: string): { fault: F | undefined; left: F[] } {
  const fault = pending.find((f) => f.remaining > 0 && (f.operation === undefined || f.operation === operationId || f.operation === routeKey));
  if (!fault) return { fault: undefined, left: pending };
  if (fault.skip > 0) {
    fault.skip--;
    return { fault: undefined, left: pending };
  }
  fault.remaining--;
  return { fault, left: pending.filter((f) => f.remaining > 0) };
}

/** Default `message` of a canned error answer, as Laravel words them. */
const DEFAULT_MESSAGES: Record<number, string> = {
  400: "Bad Request.", 402: "Payment Required.", 403: "This action is unauthorized.", 404: "Not Found.",
  409: "Conflict.", 410: "Gone.", 422: "The given data was invalid.", 423: "Locked.", 429: "Too Many Attempts.",
  500: "Server Error", 503: "Service Unavailable",
};

/** The live fault configuration of one simulator. */
export class FaultState {
  errorRate = 0;
  errorStatus = 500;
  rateLimitPerSecond: number | null = null;
  rateLimitPerMinute: number | null = null;
  latencyMs = 0;
  resetRate = 0;
  afterProcessingShare = 0;
  resets: ResetFault[] = [];
  responses: RespondFault[] = [];
  delays: DelayFault[] = [];
  wire: WireVariants = {};
  readonly operations: OperationFaults = { fail: {}, stick: {} };
  /** Requests counted in the current one-second window. */
  private windowStart = -1;
  private windowCount = 0;

  /** Applies a validated input (throws a ZodError on a bad one). */
  apply(raw: unknown): void {
    const input = faultsInputSchema.parse(raw);
    if (input.errorRate !== undefined) this.errorRate = input.errorRate;
    if (input.errorStatus !== undefined) this.errorStatus = input.errorStatus;
    if (input.rateLimitPerSecond !== undefined) {
      this.rateLimitPerSecond = input.rateLimitPerSecond || null;
      if (this.rateLimitPerSecond !== null) this.rateLimitPerMinute = null;
    }
    if (input.rateLimitPerMinute !== undefined) {
      this.rateLimitPerMinute = input.rateLimitPerMinute || null;
      if (this.rateLimitPerMinute !== null) this.rateLimitPerSecond = null;
    }
    if (input.latencyMs !== undefined) this.latencyMs = input.latencyMs;
    if (input.resetRate !== undefined) this.resetRate = input.resetRate;
    if (input.afterProcessingShare !== undefined) this.afterProcessingShare = input.afterProcessingShare;
    if (input.resetNext) {
      this.resets.push({
        operation: input.resetNext.operation, remaining: input.resetNext.count, skip: input.resetNext.skip, afterProcessing: input.resetNext.afterProcessing,
      });
    }
    if (input.respondNext) {
      const r = input.respondNext;
      const body: Record<string, unknown> = { message: r.message ?? DEFAULT_MESSAGES[r.status] ?? `HTTP ${r.status}` };
      if (r.errors) body["errors"] = r.errors;
      if ("data" in r) body["data"] = r.data ?? null;
      this.responses.push({ operation: r.operation, remaining: r.count, skip: r.skip, status: r.status, body, afterProcessing: r.afterProcessing && r.effectAfterMs === undefined, effectAfterMs: r.effectAfterMs });
    }
    if (input.delayNext) {
      const d = input.delayNext;
      this.delays.push({ operation: d.operation, remaining: d.count, skip: d.skip, ms: d.ms });
    }
    if (input.wire !== undefined) this.wire = input.wire === null ? {} : { ...this.wire, ...input.wire };
    if (input.failNext) this.operations.fail[input.failNext.kind] = (this.operations.fail[input.failNext.kind] ?? 0) + input.failNext.count;
    if (input.stickNext) this.operations.stick[input.stickNext.kind] = (this.operations.stick[input.stickNext.kind] ?? 0) + input.stickNext.count;
  }

  /** Back to no faults. */
  clear(): void {
    this.errorRate = 0;
    this.errorStatus = 500;
    this.rateLimitPerSecond = null;
    this.rateLimitPerMinute = null;
    this.latencyMs = 0;
    this.resetRate = 0;
    this.afterProcessingShare = 0;
    this.resets = [];
    this.responses = [];
    this.delays = [];
    this.wire = {};
    this.operations.fail = {};
    this.operations.stick = {};
    this.windowStart = -1;
    this.windowCount = 0;
  }

  /**
   * Counts a request against the per-second or per-minute budget: whether it is allowed, and the X-RateLimit-*
   * headers (with Retry-After on a 429). Windows are whole seconds (or minutes) of the simulator clock, so an
   * injected clock makes them deterministic.
   */
  takeBudget(now: number): { allowed: boolean; headers: Record<string, string> } {
    const perMinute = this.rateLimitPerMinute !== null;
    const limit = perMinute ? this.rateLimitPerMinute : this.rateLimitPerSecond;
    if (limit === null) return { allowed: true, headers: {} };
    const windowSeconds = perMinute ? 60 : 1;
    const window = Math.floor(now / (windowSeconds * 1000));
    if (window !== this.windowStart) {
      this.windowStart = window;
      this.windowCount = 0;
    }
    const endsAtMs = (window + 1) * windowSeconds * 1000;
    const reset = String(endsAtMs / 1000);
    if (this.windowCount >= limit) {
      const retryAfter = Math.max(1, Math.ceil((endsAtMs - now) / 1000));
      return {
        allowed: false,
        headers: {
          "retry-after": String(retryAfter), "x-ratelimit-limit": String(limit), "x-ratelimit-remaining": "0",
          "x-ratelimit-reset": reset,
        },
      };
    }
    this.windowCount++;
    return { allowed: true, headers: { "x-ratelimit-limit": String(limit), "x-ratelimit-remaining": String(limit - this.windowCount) } };
  }

  /** Takes a pending reset matching this request, if any. */
  takeReset(operationId: string, routeKey: string): ResetFault | undefined {
    const { fault, left } = takeMatching(this.resets, operationId, routeKey);
    this.resets = left;
    return fault;
  }

  /** Takes a pending canned answer matching this request, if any (`afterProcessing`: only those given after the handler, or only the others). */
  takeResponse(operationId: string, routeKey: string, afterProcessing = false): RespondFault | undefined {
    const { fault } = takeMatching(this.responses.filter((f) => f.afterProcessing === afterProcessing), operationId, routeKey);
    if (fault) this.responses = this.responses.filter((f) => f.remaining > 0);
    return fault;
  }


  /** Takes a pending delay matching this request, if any. */
  takeDelay(operationId: string, routeKey: string): DelayFault | undefined {
    const { fault, left } = takeMatching(this.delays, operationId, routeKey);
    this.delays = left;
    return fault;
  }

  /** The current configuration, for `GET /__sim/faults`. */
  snapshot(): Record<string, unknown> {
    return {
      errorRate: this.errorRate, errorStatus: this.errorStatus, rateLimitPerSecond: this.rateLimitPerSecond,
      rateLimitPerMinute: this.rateLimitPerMinute,
      latencyMs: this.latencyMs, resetRate: this.resetRate, afterProcessingShare: this.afterProcessingShare, resetNext: this.resets.map((r) => ({ ...r })),
      respondNext: this.responses.map((r) => ({ ...r })),
      delayNext: this.delays.map((d) => ({ ...d })),
      wire: { ...this.wire },
      failNext: { ...this.operations.fail }, stickNext: { ...this.operations.stick },
    };
  }
}
