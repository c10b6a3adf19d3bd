/**
 * The request path as a chain of small steps, each testable alone (after hetznercloud/hcloud-go
 * `hcloud/client_handler*.go`: send, debug, rate limit, error, retry, parse):
 *
 *   parse( retry( error( rateLimit( debug( send ) ) ) ) )
 *
 * - send: one HTTP exchange over undici (transport.ts); a failure without an answer is a TransportError.
 * - debug: one log line per attempt (status and time of the exchange itself, not of queueing).
 * - rateLimit: waits for the account's limiter before sending (then calls the request's `onSend`) and tells it about
 *   the answer (its headers).
 * - error: a non-2xx answer or a TransportError becomes the ApiError subclass users see.
 * - retry: repeats per the operation's retry class; a 429 waits as long as the resource's deadline allows.
 * - parse: checks the 2xx body against the operation's schema and returns the normalized `data`.
 */
import type { z } from "zod";
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
import { currentOperationUnderway, currentQueuePlace, currentRequestDeadline, noteWriteSent } from "./deadline";
import { formatLogLine, type RequestLogEntry, type RequestLogger } from "./log";
import { QueuedPastDeadlineError, type RateLimiter } from "./limiter";
import { responseSchemas, type OperationData } from "./operations";
import { backoffDelayMs, decideRetry, serverRequestedDelayMs, type AttemptFailure, type Clock, type RetrySettings } from "./retry";
import type { HttpMethod, OperationId, RetryClass } from "./routes";
import { sendRequest, TransportError, type TransportResponse, type TransportTimeouts } from "./transport";
import type { Dispatcher } from "undici";

/** A request ready to send: built once per call, sent once per attempt. */
export interface PreparedRequest {
  operation: OperationId;
  method: HttpMethod;
  /** The path template (for errors: never ids, never the key). */
  pathTemplate: string;
  /** The filled path with its query (for the debug log). */
  path: string;
  /** Absolute URL. */
  url: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** Called when an attempt leaves the rate limiter for the host (RequestOptions.onSend). */
  onSend?: () => void;
  retryClass: RetryClass;
  /** The input each body field comes from (CallOptions.inputNames), for field errors. */
  inputNames?: Readonly<Record<string, string>>;
}

/** One attempt of a request: `retry` is 0 for the first. */
export interface Attempt {
  request: PreparedRequest;
  retry: number;
  /** When the attempt left the rate limiter for the host (set by the rate-limit step): how long it was in flight. */
  sentAtMs?: number;
}

/** A step of the chain: sends an attempt (possibly through the next step) and resolves to the answer. */
export type Step = (attempt: Attempt) => Promise<TransportResponse>;

/** The API error of a failed attempt, with what the retry step needs to classify it. */
export class AttemptError extends Error {
  constructor(
    readonly error: ApiError,
    readonly failure: AttemptFailure,
  ) {
    super(error.message);
    this.name = "AttemptError";
  }
}

// ------------------------------------------------------------------------------------------------- send

/** The innermost step: one HTTP exchange. */
export function sendStep(dispatcher: Dispatcher, timeouts: TransportTimeouts, secret: string): Step {
  return ({ request }) =>
    sendRequest(dispatcher, { method: request.method, url: request.url, headers: request.headers, body: request.body, signal: request.signal }, timeouts, secret);
}

// ------------------------------------------------------------------------------------------------- debug

/** Logs every attempt that got an answer or a transport failure (an abort by the caller is not an attempt). */
export function debugStep(next: Step, logger: RequestLogger | undefined, now: () => number = () => performance.now()): Step {
  if (!logger) return next;
  return async (attempt) => {
    const started = now();
    const entry = (status: number | undefined, error?: string): RequestLogEntry => ({
      operation: attempt.request.operation,
      method: attempt.request.method,
      path: attempt.request.path,
      status,
      durationMs: now() - started,
      retry: attempt.retry,
      ...(error === undefined ? {} : { error }),
    });
    try {
      const response = await next(attempt);
      const e = entry(response.status);
      logger(e, formatLogLine(e));
      return response;
    } catch (thrown) {
      if (thrown instanceof TransportError) {
        const e = entry(undefined, thrown.failure.code ?? thrown.failure.kind);
        logger(e, formatLogLine(e));
      }
      throw thrown;
    }
  };
}

// ------------------------------------------------------------------------------------------------- rate limit

/**
 * Waits for the account's limiter, sends, and lets the limiter learn from the answer's headers. `beforeSend` runs as
 * the attempt leaves the limiter (ClientOptions.beforeSend): an error it throws stops the attempt, unsent and not
 * retried.
 */
export function rateLimitStep(
  next: Step, limiter: RateLimiter, now: () => number = Date.now, beforeSend?: (request: PreparedRequest) => Promise<void>,
): Step {
  return async (attempt) => {
    const { request } = attempt;
    // An operation underway (it sent a write) goes ahead of those that changed nothing yet; the resource's deadline (or
    // a shared read's, deadline.ts withQueuePlace) orders the queue when near; a first attempt of a write fails unsent
    // when its deadline passes while queued (limiter.ts: a read may decide whether an ambiguous write took effect, and a
    // retry's earlier attempt may have reached the host, so those are sent as before).
    const deadlineAt = currentRequestDeadline();
    // (by the routes table's retry class, not the method: the console token is a POST that changes nothing)
    const isWrite = request.retryClass !== "read";
    const shared = currentQueuePlace();
    const deadline = {
      orderAt: shared ? shared.orderAt : deadlineAt,
      underway: shared ? shared.underway : currentOperationUnderway(),
      expiresAt: isWrite && attempt.retry === 0 ? deadlineAt : undefined,
    };
    let ticket: number;
    try {
      ticket = await limiter.acquire(request.signal, deadline);
    } catch (thrown) {
      if (!(thrown instanceof QueuedPastDeadlineError)) throw thrown;
      throw new QueuedPastDeadlineError(thrown.waitedMs, thrown.aheadWhenQueued, thrown.queuedNow, thrown.limit, `${request.method} ${request.pathTemplate} (${request.operation})`);
    }
    let response: TransportResponse | undefined;
    try {
      await beforeSend?.(attempt.request);
      attempt.sentAtMs = now();
      // (sent, so it may change something whatever the answer: the operation is underway from here on)
      if (isWrite) noteWriteSent();
      attempt.request.onSend?.();
      response = await next(attempt);
      return response;
    } finally {
      limiter.observe(ticket, response);
    }
  };
}

// ------------------------------------------------------------------------------------------------- error

interface ErrorBody {
  apiMessage?: string;
  fieldErrors?: FieldErrors;
  /** False for a body that is not JSON (HTML, plain text, empty). */
  bodyIsJson: boolean;
}

/**
 * Laravel error bodies: {"message": "...", "errors": {"field": ["text", ...]}}. Non-JSON bodies (an HTML
 * error page from a proxy) contribute a short text excerpt at most. Everything is redacted.
 */
export function parseErrorBody(text: string, apiKey: string): ErrorBody {
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
      return { apiMessage, fieldErrors, bodyIsJson: true };
    }
  } catch {
    // not JSON: fall through
  }
  const trimmed = text.trim();
  if (!trimmed || trimmed.startsWith("<")) return { bodyIsJson: false };
  return { apiMessage: redact(trimmed.slice(0, 200), apiKey), bodyIsJson: false };
}

/**
 * The names of the fields a request sent, in its form body and its query (`ssh_keys[]` as `ssh_keys`): a field error
 * about one of them is the request's fault, never a "busy" answer (errors.ts readsAsBusy).
 */
export function sentFieldNames(request: Pick<PreparedRequest, "body" | "url">): string[] {
  const names = new Set<string>();
  const add = (params: URLSearchParams) => {
    for (const name of params.keys()) names.add(name.replace(/\[[^\]]*\]$/, ""));
  };
  if (request.body) add(new URLSearchParams(request.body));
  const query = request.url.indexOf("?");
  if (query >= 0) add(new URLSearchParams(request.url.slice(query + 1)));
  names.delete("_method");
  return [...names];
}

/** Turns a non-2xx answer or a transport failure into an {@link AttemptError} carrying the user-facing ApiError. */
export function errorStep(next: Step, apiKey: string, clock: Clock, timeouts?: TransportTimeouts): Step {
  return async (attempt) => {
    const { request, retry } = attempt;
    const details = { operation: request.operation, method: request.method, path: request.pathTemplate };
    let response: TransportResponse;
    try {
      response = await next(attempt);
    } catch (thrown) {
      if (!(thrown instanceof TransportError)) throw thrown; // aborted by the caller, or a programming error
      const f = thrown.failure;
      const error =
        f.kind === "timeout"
          ? new TimeoutError({
              ...details, phase: f.phase ?? "headers", retries: retry, cause: f.error,
              // the URL without its query (search text), and the bound that fired
              url: request.url.split("?")[0],
              limitMs: timeouts && (f.phase === "connect" ? timeouts.connectMs : f.phase === "body" ? timeouts.bodyMs : timeouts.headersMs),
            })
          : new NetworkError({ ...details, code: f.code, retries: retry, cause: f.error });
      throw new AttemptError(error, { kind: f.kind, sent: f.sent });
    }
    if (response.status >= 200 && response.status < 300) return response;
    const error = errorForStatus(
      {
        ...details,
        status: response.status,
        ...parseErrorBody(response.text, apiKey),
        inputNames: request.inputNames,
        retryAfterMs: serverRequestedDelayMs(response.headers, clock.now()),
        retries: retry,
      },
      sentFieldNames(request),
    );
    throw new AttemptError(error, { kind: "status", status: response.status });
  };
}

// ------------------------------------------------------------------------------------------------- retry

/** What the retry step needs besides the settings. */
export interface RetryStepOptions {
  settings: RetrySettings;
  clock: Clock;
  /** The account's limiter: after a 429 it already holds every request until the window ends. */
  limiter: RateLimiter;
}

/**
 * A failed attempt that hung at least this long before failing makes a retried idempotent write wait as long after it
 * succeeded (see retryStep); one that failed at once (a reset right after sending, a 503 answered at once) does not.
 */
const MIN_HELD_MS = 1_000;

/** A successful answer and how many retries it took. */
export interface RetriedResponse {
  response: TransportResponse;
  retries: number;
}

/**
 * Repeats an attempt per the operation's retry class (retry.ts `decideRetry`). A 429 is "wait", not a failure:
 * it does not count against `maxRetries`; the call waits while the pause the limiter learned ends before the
 * deadline of the resource operation (deadline.ts), or before `maxRetryTimeMs` outside one. Other retryable
 * failures are bounded by `maxRetries` and `maxRetryTimeMs`; the caller gets the real error rather than a
 * sleep past the budget.
 */
export function retryStep(next: Step, options: RetryStepOptions): (request: PreparedRequest) => Promise<RetriedResponse> {
  const { settings, clock, limiter } = options;
  return async (request) => {
    const started = clock.now();
    let counted = 0;
    // How long a failed attempt of an idempotent write was in flight before it failed after it may have reached the
    // host (no answer in time, a connection lost after sending, a gateway's 502-504): a gateway or busy backend that
    // held it that long may still carry it out about as late. A retry that succeeded returns only that long after,
    // so a late first attempt lands before the caller's next write instead of undoing it (update audit: a detach held
    // past the bound and retried at once landed after the move's attach and detached the disk from its new VM; a
    // leave of a private network likewise). The same bound as a resize's or a create's look before resending.
    let heldMs = 0;
    for (let retry = 0; ; retry += 1) {
      let failed: AttemptError;
      const attempt: Attempt = { request, retry };
      try {
        const response = await next(attempt);
        if (heldMs >= MIN_HELD_MS && request.retryClass === "idempotent") {
          const deadline = currentRequestDeadline();
          const waitMs = deadline === undefined ? heldMs : Math.min(heldMs, deadline - clock.now());
          if (waitMs > 0) await clock.sleep(waitMs, request.signal);
        }
        return { response, retries: retry };
      } catch (thrown) {
        if (!(thrown instanceof AttemptError)) throw thrown;
        failed = thrown;
      }
      const { error, failure } = failed;
      const mayLandLate =
        failure.kind === "status" ? failure.status === 502 || failure.status === 503 || failure.status === 504 : failure.sent;
      // (in flight from when it left the rate limiter: a wait there is not time the host held it)
      if (mayLandLate) heldMs = Math.max(heldMs, clock.now() - (attempt.sentAtMs ?? clock.now()));
      const decision = decideRetry(request.retryClass, failure);
      if (decision === "ambiguous") {
        throw new AmbiguousRequestError({
          operation: request.operation, method: request.method, path: request.pathTemplate,
          status: error.status, apiMessage: error.apiMessage, retries: retry, cause: error,
        });
      }
      if (decision === "fail") throw error;
      const now = clock.now();
      if (failure.kind === "status" && failure.status === 429) {
        const deadline = currentRequestDeadline() ?? started + settings.maxRetryTimeMs;
        const pausedMs = limiter.pausedUntilMs - now;
        if (pausedMs > 0) {
          // The limiter holds every request until then; the next acquire waits for it.
          if (now + pausedMs > deadline) throw error;
          continue;
        }
        const delay = backoffDelayMs(Math.min(counted, 5), settings, error.retryAfterMs);
        if (now + delay > deadline) throw error;
        await clock.sleep(delay, request.signal);
        continue;
      }
      if (counted >= settings.maxRetries) throw error;
      counted += 1;
      const delay = backoffDelayMs(counted - 1, settings, error.retryAfterMs);
      if (now - started + delay > settings.maxRetryTimeMs) throw error;
      await clock.sleep(delay, request.signal);
    }
  };
}

// ------------------------------------------------------------------------------------------------- parse

function formatIssues(error: z.ZodError): string[] {
  return error.issues.slice(0, 10).map((issue) => `${issue.path.length ? issue.path.join(".") : "(body)"}: ${issue.message}`);
}

/**
 * Parses a 2xx body with the operation's envelope schema and returns its normalized `data`. A body that does
 * not match is a ResponseFormatError naming the field paths; for a `once` operation (a create) it is an
 * AmbiguousRequestError instead: the object may exist, so the caller must look before trying again.
 */
export function parseStep<K extends OperationId>(request: PreparedRequest & { operation: K }, answer: RetriedResponse, apiKey: string): OperationData<K> {
  const text = answer.response.text;
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
    const parsed = (responseSchemas[request.operation] as z.ZodType).safeParse(json);
    if (parsed.success) return (parsed.data as { data: OperationData<K> }).data;
    issues = formatIssues(parsed.error).map((i) => redact(i, apiKey));
  }
  // The envelope's own words, when it has some: a host that writes a refusal as a 200 ("Saldo tidak cukup.", data null)
  // is then understood from its message, not only from the field that did not parse (facts audit).
  const said = json && typeof json === "object" && typeof (json as { message?: unknown }).message === "string" ? (json as { message: string }).message.trim() : "";
  const details = {
    operation: request.operation, method: request.method, path: request.pathTemplate, status: answer.response.status, retries: answer.retries,
    ...(said ? { apiMessage: redact(said.slice(0, 300), apiKey) } : {}),
  };
  const formatError = new ResponseFormatError({ ...details, issues });
  if (request.retryClass === "once") throw new AmbiguousRequestError({ ...details, cause: formatError });
  throw formatError;
}
