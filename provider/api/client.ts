/**
 * `createClient`: the typed client of the whole service, and the generic `call` every area method uses.
 *
 * One call = build the request from the (possibly overridden) routes table, wait for the account's pacer,
 * send, classify the outcome, retry per the operation's retry class (retry.ts), parse the envelope with
 * the operation's schema (normalizing values) and resolve to `data`.
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
import {
  AmbiguousRequestError,
  ApiError,
  NetworkError,
  ResponseFormatError,
  TimeoutError,
  errorForStatus,
  redact,
  type FieldErrors,
} from "./errors";
import { debugLoggingEnabled, formatLogLine, redactingLogger, stderrLogger, type RequestLogger } from "./log";
import { responseSchemas, type CallFunction, type OperationData } from "./operations";
import { applyRouteOverrides, type EffectiveRoutes, type RouteOverrides } from "./overrides";
import { Pacer, pacerFor } from "./pacer";
import { encodeForm, encodeQuery, fillPath, type CallOptions } from "./request";
import {
  backoffDelayMs,
  decideRetry,
  defaultRetrySettings,
  serverRequestedDelayMs,
  systemClock,
  type AttemptFailure,
  type Clock,
  type RetrySettings,
} from "./retry";
import type { OperationId } from "./routes";
import { defaultTimeouts, poolFor, sendRequest, TransportError, type TransportTimeouts } from "./transport";
import { userAgent } from "./version";

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
}

/** The client of the whole service: a generic `call` and typed methods grouped by area. */
export interface VmHostClient {
  /** The base URL, without a trailing slash. */
  readonly baseUrl: string;
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

interface ErrorBody {
  apiMessage?: string;
  fieldErrors?: FieldErrors;
}

// Laravel error bodies: {"message": "...", "errors": {"field": ["text", ...]}}. Non-JSON bodies (an HTML
// error page from a proxy) contribute a short text excerpt at most.
function parseErrorBody(text: string, apiKey: string): ErrorBody {
  try {
    const body = JSON.parse(text) as unknown;
    if (body && typeof body === "object") {
      const record = body as Record<string, unknown>;
      const apiMessage = typeof record.message === "string" ? redact(record.message, apiKey) : undefined;
      let fieldErrors: FieldErrors | undefined;
      if (record.errors && typeof record.errors === "object" && !Array.isArray(record.errors)) {
        fieldErrors = {};
        for (const [field, messages] of Object.entries(record.errors as Record<string, unknown>)) {
          const list = Array.isArray(messages) ? messages : [messages];
          fieldErrors[field] = list.map((m) => redact(String(m), apiKey));
        }
      }
      return { apiMessage, fieldErrors };
    }
  } catch {
    // not JSON: fall through
  }
  const trimmed = text.trim();
  if (!trimmed || trimmed.startsWith("<")) return {};
  return { apiMessage: redact(trimmed.slice(0, 200), apiKey) };
}

function formatIssues(error: z.ZodError): string[] {
  return error.issues.slice(0, 10).map((issue) => `${issue.path.length ? issue.path.join(".") : "(body)"}: ${issue.message}`);
}

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
  const pacer = options.clock
    ? new Pacer(options.maxRequestsPerSecond, clock)
    : pacerFor(baseUrl, apiKey, options.maxRequestsPerSecond, clock);
  const chosenLogger = options.logger === false ? undefined : options.logger ?? (debugLoggingEnabled() ? stderrLogger : undefined);
  const logger = chosenLogger ? redactingLogger(chosenLogger, apiKey) : undefined;
  const baseHeaders: Record<string, string> = {
    "x-apikey": apiKey,
    accept: "application/json",
    "user-agent": userAgent(),
  };

  async function call<K extends OperationId>(id: K, callOptions: CallOptions = {}): Promise<OperationData<K>> {
    const route = routes[id];
    if (!route) throw new ClientOptionsError(`unknown operation "${String(id)}"`);
    const filledPath = fillPath(id, route.path, callOptions.path);
    const pathWithQuery = `${filledPath}${encodeQuery(callOptions.query)}`;
    const url = `${baseUrl}${pathWithQuery}`;
    const headers = { ...baseHeaders };
    let body: string | undefined;
    if (callOptions.body !== undefined) {
      body = encodeForm(callOptions.body);
      headers["content-type"] = "application/x-www-form-urlencoded";
    }
    const details = { operation: id, method: route.method, path: route.path };
    const started = clock.now();

    for (let retry = 0; ; retry += 1) {
      await pacer.acquire(callOptions.signal);
      const attemptStart = performance.now();
      let error: ApiError;
      let failure: AttemptFailure;
      try {
        const response = await sendRequest(
          dispatcher,
          { method: route.method, url, headers, body, signal: callOptions.signal },
          timeouts,
          apiKey,
        );
        logger?.(
          { operation: id, method: route.method, path: pathWithQuery, status: response.status, durationMs: performance.now() - attemptStart, retry },
          formatLogLine({ operation: id, method: route.method, path: pathWithQuery, status: response.status, durationMs: performance.now() - attemptStart, retry }),
        );
        if (response.status >= 200 && response.status < 300) {
          return parseSuccess(id, response.text, details, retry, route.retry === "once");
        }
        const errorBody = parseErrorBody(response.text, apiKey);
        const requestedMs = serverRequestedDelayMs(response.headers, clock.now());
        error = errorForStatus({ ...details, status: response.status, ...errorBody, retryAfterMs: requestedMs, retries: retry });
        failure = { kind: "status", status: response.status };
        if (response.status === 429 && requestedMs !== undefined) {
          // Everyone sharing this account waits, not just this call.
          pacer.pauseUntil(clock.now() + requestedMs * settings.delayScale);
        }
      } catch (thrown) {
        if (!(thrown instanceof TransportError)) throw thrown; // aborted by the caller, or a programming error
        const f = thrown.failure;
        const entry = { operation: id, method: route.method, path: pathWithQuery, status: undefined, durationMs: performance.now() - attemptStart, retry, error: f.code ?? f.kind };
        logger?.(entry, formatLogLine(entry));
        error =
          f.kind === "timeout"
            ? new TimeoutError({ ...details, phase: f.phase ?? "headers", retries: retry, cause: f.error })
            : new NetworkError({ ...details, code: f.code, retries: retry, cause: f.error });
        failure = { kind: f.kind, sent: f.sent };
      }

      const decision = decideRetry(route.retry, failure);
      if (decision === "ambiguous") {
        throw new AmbiguousRequestError({ ...details, status: error.status, apiMessage: error.apiMessage, retries: retry, cause: error });
      }
      if (decision === "fail" || retry >= settings.maxRetries) throw error;
      const delay = backoffDelayMs(retry, settings, error.retryAfterMs);
      // Give up now rather than sleep past the budget: the caller gets the real error sooner.
      if (clock.now() - started + delay > settings.maxRetryTimeMs) throw error;
      await clock.sleep(delay, callOptions.signal);
    }
  }

  function parseSuccess<K extends OperationId>(
    id: K,
    text: string,
    details: { operation: string; method: (typeof routes)[K]["method"]; path: string },
    retry: number,
    once: boolean,
  ): OperationData<K> {
    let json: unknown;
    let issues: string[] | undefined;
    if (text.trim() === "") {
      json = { message: "", data: null }; // 204-style empty answer
    } else {
      try {
        json = JSON.parse(text);
      } catch {
        issues = ["(body): not JSON"];
      }
    }
    if (!issues) {
      const parsed = (responseSchemas[id] as z.ZodType).safeParse(json);
      if (parsed.success) return (parsed.data as { data: OperationData<K> }).data;
      issues = formatIssues(parsed.error).map((i) => redact(i, apiKey));
    }
    const formatError = new ResponseFormatError({ ...details, status: 200, issues, retries: retry });
    // A create that succeeded but whose answer we cannot read is, for the caller, the same situation as
    // an ambiguous failure: it must look for the object before trying again.
    if (once) throw new AmbiguousRequestError({ ...details, status: 200, retries: retry, cause: formatError });
    throw formatError;
  }

  const typedCall = call as CallFunction;
  return {
    baseUrl,
    routes,
    call: typedCall,
    instances: createInstancesApi(typedCall),
    network: createNetworkApi(typedCall),
    firewall: createFirewallApi(typedCall),
    storage: createStorageApi(typedCall),
    snapshots: createSnapshotsApi(typedCall),
    backups: createBackupsApi(typedCall),
    catalog: createCatalogApi(typedCall),
    billing: createBillingApi(typedCall),
  };
}
