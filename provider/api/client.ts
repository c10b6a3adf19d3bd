/**
 * `createClient`: the typed client of the whole service, and the generic `call` every area method uses.
 *
 * One call = build the request from the (possibly overridden) routes table, then the steps of pipeline.ts:
 * wait for the account's rate limiter, send, log, map errors, retry per the operation's retry class, parse
 * the envelope with the operation's schema (normalizing values) and resolve to `data`.
 */
import type { Dispatcher } from "undici";
import { z } from "zod";
import { createBackupsApi, type BackupsApi } from "./areas/backups";
import { createBillingApi, type BillingApi } from "./areas/billing";
import { createCatalogApi, type CatalogApi } from "./areas/catalog";
import { createFirewallApi, type FirewallApi } from "./areas/firewall";
import { createInstancesApi, type InstancesApi } from "./areas/instances";
import { createNetworkApi, type NetworkApi } from "./areas/network";
import { createSnapshotsApi, type SnapshotsApi } from "./areas/snapshots";
import { createStorageApi, type StorageApi } from "./areas/storage";
import { debugLoggingEnabled, redactingLogger, stderrLogger, type RequestLogger } from "./log";
import { limiterFor, RateLimiter, type RateLimitView } from "./limiter";
import type { CallFunction, OperationData } from "./operations";
import { applyRouteOverrides, type EffectiveRoutes, type RouteOverrides } from "./overrides";
import { debugStep, errorStep, parseStep, rateLimitStep, retryStep, sendStep, type PreparedRequest } from "./pipeline";
import { encodeForm, encodeQuery, fillPath, type CallOptions } from "./request";
import { defaultRetrySettings, systemClock, type Clock, type RetrySettings } from "./retry";
import type { OperationId } from "./routes";
import { defaultTimeouts, poolFor, type TransportTimeouts } from "./transport";
import { userAgent } from "./version";
import { UnexpectedStatusError, ValidationError, type ApiError } from "./errors";
import { LIST_ALL_PAGE_SIZE } from "./areas/util";

/** Options of {@link createClient}. Only `baseUrl` and `apiKey` are required. */
export interface ClientOptions {
  /** Base URL ending with the version segment, e.g. `https://api.dewavps.com/v1`. */
  baseUrl: string;
  /** The API key (sent as `x-apikey`; never logged or put in an error). */
  apiKey: string;
  /** Route overrides, e.g. `{ updateRdns: "PATCH /network/ip/{ip_uuid}/rdns" }`; validated at creation. */
  routes?: RouteOverrides;
  /** undici dispatcher to send through (a `MockAgent` in tests). Default: a shared keep-alive pool per base URL. */
  dispatcher?: Dispatcher;
  /** Retries after the first attempt for retryable failures (default 4, i.e. at most 5 attempts). */
  maxRetries?: number;
  /** Total time budget of one call across retries, in ms (default 60 000). */
  maxRetryTimeMs?: number;
  /** Process-wide request rate for this base URL + key (default: unlimited; 429 answers still pause it). */
  maxRequestsPerSecond?: number;
  /** Connect / headers / body timeouts in ms (defaults 10 000 / 60 000 / 60 000). */
  timeouts?: Partial<TransportTimeouts>;
  /**
   * Receives one entry per HTTP attempt. Default: stderr lines when `VMHOST_LOG=debug`, else nothing.
   * `false` disables logging even with `VMHOST_LOG=debug`.
   */
  logger?: RequestLogger | false;
  /** Multiplies every retry wait, `Retry-After` included (default 1). For tests: e.g. 0.001. */
  retryDelayScale?: number;
  /**
   * Clock for retry waits and pacing (tests inject one that does not really sleep). A client with its own
   * clock gets its own pacer instead of the process-wide one.
   */
  clock?: Clock;
  /** Random source for backoff jitter, in [0, 1) (tests make it deterministic). */
  random?: () => number;
  /**
   * Runs as each attempt leaves the rate limiter, right before it is sent; an error it throws stops the attempt
   * (not sent, not retried). The provider refuses requests there once the Pulumi engine is gone (engine-liveness.ts).
   */
  beforeSend?: (request: { method: string; operation: string }) => Promise<void>;
}

/** The client of the whole service: a generic `call` and typed methods grouped by area. */
export interface VmHostClient {
  /** The base URL, without a trailing slash. */
  readonly baseUrl: string;
  /** How long one request waits for its answer's headers (`vmhost:requestTimeout`), in ms. */
  readonly requestTimeoutMs: number;
  /** The routes table this client uses (defaults with overrides applied). */
  readonly routes: EffectiveRoutes;
  /**
   * Runs any operation by id and resolves to its normalized `data`, e.g.
   * `client.call("getInstance", { path: { instance_uuid } })`. Throws an `ApiError` subclass on failure.
   */
  readonly call: CallFunction;
  /** Instances: list, get/find, create, clone, power, resize, tier, hostname, password, metrics, console, delete. */
  readonly instances: InstancesApi;
  /** Public addresses, reverse DNS and private networks. */
  readonly network: NetworkApi;
  /** Firewall rules and default policy. */
  readonly firewall: FirewallApi;
  /** Block storage. */
  readonly storage: StorageApi;
  /** Snapshots. */
  readonly snapshots: SnapshotsApi;
  /** Backups. */
  readonly backups: BackupsApi;
  /** Size templates, locations, tiers, OS systems. */
  readonly catalog: CatalogApi;
  /** Credit, payments, billing reports. */
  readonly billing: BillingApi;
  /** The account's rate limiter, as far as work that can wait for a quieter moment needs to know it. */
  readonly rateLimit: RateLimitView;
}

const clientOptionsSchema = z.object({
  baseUrl: z.url({ protocol: /^https?$/, error: "baseUrl must be an http(s) URL such as https://api.dewavps.com/v1" }),
  apiKey: z.string().trim().min(1, "apiKey is empty"),
  maxRetries: z.number().int().min(0).max(20).optional(),
  maxRetryTimeMs: z.number().min(0).optional(),
  maxRequestsPerSecond: z.number().min(0).optional(),
  retryDelayScale: z.number().min(0).optional(),
  timeouts: z
    .object({ connectMs: z.number().positive().optional(), headersMs: z.number().positive().optional(), bodyMs: z.number().positive().optional() })
    .optional(),
});

/** Invalid client options (e.g. a malformed base URL); the message names the option, never the key's value. */
export class ClientOptionsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ClientOptionsError";
  }
}

/** A 400/422 about the `limit` query (a page size the host does not take). */
function refusesPageSize(error: unknown): error is ApiError {
  if (!(error instanceof ValidationError || error instanceof UnexpectedStatusError) || (error.status !== 422 && error.status !== 400)) return false;
  const fields = Object.keys(error.fieldErrors);
  if (fields.length > 0) return fields.some((f) => /^(limit|per_page|perpage|page_size)$/i.test(f));
  return /\b(limit|per[_ ]?page|page[_ ]?size)\b/i.test(error.apiMessage ?? "");
}

/**
 * The largest page size a refusal names: Laravel's "The limit field must not be greater than 50." / "may not be
 * greater than 50", "must be less than or equal to 50", "maximum 50", Indonesian "tidak boleh lebih dari 50",
 * "maksimal 50". Undefined when none is named.
 */
function pageSizeMaximum(error: ApiError): number | undefined {
  const texts = [...Object.values(error.fieldErrors).flat(), error.apiMessage ?? ""];
  for (const text of texts) {
    const m =
      /(?:greater than|more than|exceed|lebih (?:besar )?dari|melebihi)\s+(\d+)/i.exec(text) ??
      /(?:less than or equal to|at most|maximum(?: of| is)?|max(?:imal|imum)?:?|maks(?:imal|imum)?:?|between \d+ and)\s+(\d+)/i.exec(text);
    if (m) {
      const n = Number(m[1]);
      if (Number.isInteger(n) && n >= 1) return n;
    }
  }
  return undefined;
}

/** Catalogue reads cached per client: what can be ordered does not change during a deployment. */
const CATALOGUE_OPERATIONS: ReadonlySet<OperationId> = new Set(["listSizeTemplates", "listLocations", "listTiers", "listSystems"]);

/**
 * Creates a client. Validates the options (base URL, key present, route overrides) and throws
 * `ClientOptionsError` / `RouteOverrideError` at once rather than on the first call.
 */
export function createClient(options: ClientOptions): VmHostClient {
  const checked = clientOptionsSchema.safeParse(options);
  if (!checked.success) {
    throw new ClientOptionsError(
      `invalid client options: ${checked.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  }
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const apiKey = options.apiKey.trim();
  const routes = applyRouteOverrides(options.routes as Record<string, unknown> | undefined);
  const timeouts: TransportTimeouts = { ...defaultTimeouts, ...options.timeouts };
  const dispatcher = options.dispatcher ?? poolFor(baseUrl, timeouts);
  const clock = options.clock ?? systemClock;
  const settings: RetrySettings = {
    ...defaultRetrySettings,
    maxRetries: options.maxRetries ?? defaultRetrySettings.maxRetries,
    maxRetryTimeMs: options.maxRetryTimeMs ?? defaultRetrySettings.maxRetryTimeMs,
    delayScale: options.retryDelayScale ?? defaultRetrySettings.delayScale,
    random: options.random ?? defaultRetrySettings.random,
  };
  // A client with its own clock (tests) gets its own limiter; every other client of the account shares one.
  const limiter = options.clock
    ? new RateLimiter(options.maxRequestsPerSecond, clock, settings.delayScale)
    : limiterFor(baseUrl, apiKey, options.maxRequestsPerSecond, clock);
  const chosenLogger = options.logger === false ? undefined : options.logger ?? (debugLoggingEnabled() ? stderrLogger : undefined);
  const logger = chosenLogger ? redactingLogger(chosenLogger, apiKey) : undefined;
  const baseHeaders: Record<string, string> = {
    "x-apikey": apiKey,
    accept: "application/json",
    "user-agent": userAgent(),
  };
  const send = retryStep(
    errorStep(rateLimitStep(debugStep(sendStep(dispatcher, timeouts, apiKey), logger), limiter, () => clock.now(), options.beforeSend), apiKey, clock, timeouts),
    { settings, clock, limiter },
  );

  function prepare<K extends OperationId>(id: K, callOptions: CallOptions): PreparedRequest & { operation: K } {
    const route = routes[id];
    if (!route) throw new ClientOptionsError(`unknown operation "${String(id)}"`);
    const path = `${fillPath(id, route.path, callOptions.path)}${encodeQuery(callOptions.query)}`;
    const headers = { ...baseHeaders };
    let body: string | undefined;
    if (callOptions.body !== undefined) {
      body = encodeForm(callOptions.body);
      headers["content-type"] = "application/x-www-form-urlencoded";
    }
    return {
      operation: id, method: route.method, pathTemplate: route.path, path, url: `${baseUrl}${path}`,
      headers, body, signal: callOptions.signal, onSend: callOptions.onSend, retryClass: route.retry, inputNames: callOptions.inputNames,
    };
  }

  async function callOnce<K extends OperationId>(id: K, callOptions: CallOptions): Promise<OperationData<K>> {
    const request = prepare(id, callOptions);
    return parseStep(request, await send(request), apiKey);
  }

  // The page size a host takes, learned per list operation (api-spec.md §8: "maximum page size: not shown"): a
  // `limit` of LIST_ALL_PAGE_SIZE (the every-page readers' "as many as the host gives") that the host refuses
  // (Laravel's `max:50` rule: 422 on `limit`) is lowered to the maximum its message names, or left out (the host's
  // default size) when it names none, and every later such call of that list uses it. Those readers follow
  // `total_pages`, so smaller pages change the number of requests, not the result. Any other `limit` is a caller's
  // page and is sent as asked.
  const pageSizes = new Map<OperationId, number | null>();
  async function call<K extends OperationId>(id: K, callOptions: CallOptions = {}): Promise<OperationData<K>> {
    const asked = callOptions.query?.limit;
    if (asked !== LIST_ALL_PAGE_SIZE || routes[id]?.method !== "GET") return callOnce(id, callOptions);
    for (let attempt = 0; ; attempt += 1) {
      const learned = pageSizes.get(id);
      const limit = learned === undefined ? asked : learned === null ? undefined : Math.min(asked, learned);
      try {
        return await callOnce(id, { ...callOptions, query: { ...callOptions.query, limit } });
      } catch (error) {
        if (attempt >= 2 || limit === undefined || !refusesPageSize(error)) throw error;
        const max = pageSizeMaximum(error);
        pageSizes.set(id, max !== undefined && max < limit ? max : null);
      }
    }
  }

  const typedCall = call as CallFunction;
  // The catalogue (OS templates, tiers, locations, sizes) does not change while a deployment runs, and every
  // create reads it: one read per client (i.e. per provider process and account) instead of one per VM. A
  // failed read is not kept, so the next caller tries again.
  const catalogueCache = new Map<string, Promise<unknown>>();
  const cachingCall = ((id: OperationId, callOptions?: CallOptions) => {
    if (!CATALOGUE_OPERATIONS.has(id) || callOptions?.query || callOptions?.body || callOptions?.path) return call(id, callOptions);
    let cached = catalogueCache.get(id);
    if (!cached) {
      cached = call(id, { signal: undefined });
      catalogueCache.set(id, cached);
      cached.catch(() => catalogueCache.delete(id));
    }
    return cached;
  }) as CallFunction;
  return {
    baseUrl,
    requestTimeoutMs: timeouts.headersMs,
    routes,
    call: typedCall,
    instances: createInstancesApi(typedCall),
    network: createNetworkApi(typedCall),
    firewall: createFirewallApi(typedCall),
    storage: createStorageApi(typedCall),
    snapshots: createSnapshotsApi(typedCall),
    backups: createBackupsApi(typedCall),
    catalog: createCatalogApi(cachingCall),
    billing: createBillingApi(typedCall),
    rateLimit: limiter,
  };
}
