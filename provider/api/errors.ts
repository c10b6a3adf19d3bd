/**
 * Errors of the API client. Every error names the operation, the HTTP method and the path TEMPLATE (never the
 * filled path with ids, never the API key), the status, the API's own message and the field errors, so a
 * user reading a failed `pulumi up` knows what was called and what the service said.
 *
 * Which errors are retried is the client's business (see retry.ts); callers branch on the class:
 * `NotFoundError` = gone, `BusyError` = wait and retry, `AmbiguousRequestError` = reconcile before retrying.
 */
import { routes, type HttpMethod } from "./routes";

/** Field errors of a 422 answer: field name -> messages (Laravel's `errors` object). */
export type FieldErrors = Record<string, string[]>;

/** What every API error carries. */
export interface ApiErrorDetails {
  /** Operation id (routes table key), e.g. `createInstance`. */
  operation: string;
  method: HttpMethod;
  /** Path template of the operation, e.g. `/instance/{instance_uuid}/detail` (no ids, no query, no key). */
  path: string;
  /** HTTP status, when an answer arrived. */
  status?: number;
  /** The `message` the service sent, when there was one. */
  apiMessage?: string;
  /** Field errors of a validation answer (empty otherwise). */
  fieldErrors?: FieldErrors;
  /** The input each field of the request body comes from (`public_network` -> `publicNetworkId`). */
  inputNames?: Readonly<Record<string, string>>;
  /** Delay the service asked for (`Retry-After` / `X-RateLimit-Reset`), in ms. */
  retryAfterMs?: number;
  /** False when an error answer's body was not JSON (an HTML page or nothing: a proxy's, not the API's). */
  bodyIsJson?: boolean;
  /** How many times the request was retried before this error. */
  retries?: number;
  /** The underlying failure (a sanitized copy: it never holds request headers). */
  cause?: unknown;
}

/** A sentence ends with one full stop (the API's messages usually bring theirs: "... is invalid."). */
function sentence(text: string): string {
  const t = text.trim();
  return /[.!?]$/.test(t) ? t : `${t}.`;
}

/**
 * "Field errors: publicNetworkId (API field public_network): The selected public network is invalid." The
 * input the user wrote comes first, the API's own field name and text are kept (a field the request did not
 * take from an input keeps its wire name only).
 */
function describeFieldErrors(fieldErrors: FieldErrors, inputNames: Readonly<Record<string, string>> = {}): string {
  const parts = Object.entries(fieldErrors).map(([field, messages]) => {
    const input = Object.hasOwn(inputNames, field) ? inputNames[field] : undefined;
    const name = input && input !== field ? `${input} (API field ${field})` : field;
    const text = messages.map(sentence).filter((m) => m !== ".").join(" ");
    return `${name}: ${text || "invalid."}`;
  });
  return parts.length ? ` Field errors: ${parts.join(" ")}` : "";
}

/** Base class of every error the client throws for a call that reached (or tried to reach) the service. */
export class ApiError extends Error {
  /** Operation id, e.g. `getInstance`. */
  readonly operation: string;
  /** HTTP method of the operation. */
  readonly method: HttpMethod;
  /** Path template of the operation (never filled, never with the key). */
  readonly path: string;
  /** HTTP status, or undefined when no answer arrived (network, timeout). */
  readonly status: number | undefined;
  /** The service's own message, if any. */
  readonly apiMessage: string | undefined;
  /** Field errors (422); empty object otherwise. */
  readonly fieldErrors: FieldErrors;
  /** Delay the service asked for before a retry, in ms (429/503 with `Retry-After`). */
  readonly retryAfterMs: number | undefined;
  /** Retries made before giving up. */
  readonly retries: number;

  constructor(details: ApiErrorDetails, summary?: string, hint?: string) {
    const status = details.status === undefined ? "" : ` HTTP ${details.status}`;
    const apiMessage = details.apiMessage ? ` The API said: "${details.apiMessage}".` : "";
    const fieldErrors = describeFieldErrors(details.fieldErrors ?? {}, details.inputNames);
    const retries = details.retries ? ` (after ${details.retries} ${details.retries === 1 ? "retry" : "retries"})` : "";
    const head = `${details.operation} (${details.method} ${details.path}) failed:${status}${summary ? ` ${summary}.` : ""}`;
    super(`${head}${apiMessage}${fieldErrors}${retries}${hint ? ` ${hint}` : ""}`, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.operation = details.operation;
    this.method = details.method;
    this.path = details.path;
    this.status = details.status;
    this.apiMessage = details.apiMessage;
    this.fieldErrors = details.fieldErrors ?? {};
    this.retryAfterMs = details.retryAfterMs;
    this.retries = details.retries ?? 0;
  }
}

/** 401: the key is missing, wrong or expired. */
export class UnauthorizedError extends ApiError {
  constructor(details: ApiErrorDetails) {
    super(
      details,
      "the API key was rejected",
      "Set a valid key with `pulumi config set --secret vmhost:apiKey <key>` or the VMHOST_API_KEY environment variable; keys expire, so an old key may need renewing.",
    );
  }
}

/**
 * The operations that make an object that bills (or counts against a quota): a 402 or 403 on them is the account's
 * billing or quota refusing it (real-api-facts.md: "402/403 on create mean billing or quota refusal").
 */
export const CREATE_OPERATIONS: ReadonlySet<string> = new Set(["createInstance", "cloneInstance", "createSnapshot", "addPublicIp", "createFirewallRule"]);

/**
 * 403: the key is valid but lacks the scope for this operation, or, on a create, the account's billing or quota
 * refuses it (real-api-facts.md). Never retried.
 */
export class ForbiddenError extends ApiError {
  constructor(details: ApiErrorDetails) {
    super(
      details,
      CREATE_OPERATIONS.has(details.operation) ? "refused: billing, quota or the key's scopes" : "the API key is not allowed to do this",
      CREATE_OPERATIONS.has(details.operation)
        ? "On a create the host answers 403 when the account's credit or quota does not allow another one (top up, raise the quota or remove " +
            "what is no longer needed), or when the key lacks the write scope (write_instance, write_network: create a key with it). Retrying will not help."
        : "The key lacks a scope this operation needs (read_instance, write_instance, read_network, write_network or billing); create a key with that scope. Retrying will not help.",
    );
  }
}

/** 402: the account's credit or quota refuses the operation (e.g. a create). Never retried. */
export class PaymentRequiredError extends ApiError {
  constructor(details: ApiErrorDetails) {
    super(details, "refused by billing or quota", "Top up the account's credit or raise its quota; retrying will not help.");
  }
}

/** 404/410: the object does not exist (or no longer does). */
export class NotFoundError extends ApiError {
  constructor(details: ApiErrorDetails) {
    super(details, "not found");
  }
}

/**
 * 404 for the route itself, not for an object: Laravel's "The route ... could not be found.", or a 404 page that is
 * not the API's JSON (a proxy, a CDN, a wrong host). NOT a {@link NotFoundError}: read as "gone", a wrong
 * `vmhost:baseUrl` (missing `/v1`) or a bad `vmhost:routes` override made a refresh drop every resource from the
 * state and a destroy forget objects that still exist (audit). Never retried.
 */
export class RouteNotFoundError extends ApiError {
  constructor(details: ApiErrorDetails) {
    super(
      details,
      "the API has no such route",
      "Check vmhost:baseUrl (VMHOST_BASE_URL: every host of this API ends it in a version, e.g. https://api.dewavps.com/v1) and any " +
        `vmhost:routes override. Nothing was taken as deleted.${routeOverrideHint(details, details.method, "<path>")}`,
    );
  }
}

/**
 * "If your host serves updateRdns elsewhere: set vmhost:routes to {"updateRdns": "PATCH <path>"}" for a route no host
 * documents (real-api-facts.md "code" or "assumed": a wrong guess is one override away).
 */
function routeOverrideHint(details: ApiErrorDetails, method: string, path: string): string {
  const route = (routes as Record<string, { confidence?: string }>)[details.operation];
  if (!route || route.confidence === "spec" || route.confidence === "docs") return "";
  const source = route.confidence === "assumed" ? "assumed (no host documents it)" : "taken from a client of the live API, not from the spec";
  return ` The route of ${details.operation} is ${source}: if your host serves it otherwise, set vmhost:routes to {"${details.operation}": "${method} ${path}"}.`;
}

/**
 * 405: the host has the path but not with this method (Laravel: "The PATCH method is not supported for route …
 * Supported methods: POST."): a route this client guessed wrongly for this host. Never retried; nothing was done.
 */
export class MethodNotAllowedError extends ApiError {
  constructor(details: ApiErrorDetails) {
    const supported = /supported methods:\s*([A-Z, ]+)/i.exec(details.apiMessage ?? "")?.[1]?.split(/[\s,]+/).filter((m) => m && m !== "HEAD") ?? [];
    const write = supported.find((m) => m !== "GET") ?? supported[0];
    super(
      details,
      `the host does not serve this route with ${details.method}`,
      `Nothing was done.${routeOverrideHint(details, write ?? "<METHOD>", details.path) || " Set vmhost:routes to the method and path your host serves this operation at."}`,
    );
  }
}

/** Laravel's answer for a path no route matches. */
const ROUTE_NOT_FOUND = /^The route .* could not be found\.?$/i;

/** 422: the service rejected the request's fields; `fieldErrors` lists them. */
export class ValidationError extends ApiError {
  constructor(details: ApiErrorDetails) {
    super(details, "the request was rejected as invalid");
  }
}

/**
 * 409/423, or a 400/422 worded as busy ({@link readsAsBusy}): an operation is already running on the instance. The
 * client does not retry it (the wait can be minutes); the resource layer waits for the instance to settle and tries
 * again, within the resource's deadline. A refusal is an answer given before anything was done, so sending the
 * request again never repeats it.
 */
export class BusyError extends ApiError {
  constructor(details: ApiErrorDetails) {
    super(
      details,
      details.status === 409 || details.status === 423 || details.status === undefined
        ? "another operation is running on this object"
        : "another operation is running on this object (the host's wording of its refusal)",
      "Wait until it finishes, then retry.",
    );
  }
}

/**
 * Wording of a refusal because an operation is running, in English and Indonesian (the hosts are Indonesian:
 * "Vm berhasil dibuat"). Only phrases about an operation or process under way: "running" or "try again" alone
 * are not enough ("The instance must be running to be restarted." is a real refusal).
 */
const BUSY_WORDING: readonly RegExp[] = [
  /\b(in|on)\s+(\w+\s+)?progress\b/i, // "VM is still in progress.", "Instance is on cloning progress"
  /\banother\s+(operation|process|task|action|job|request)\b/i,
  // (the state word about the operation itself: "An operation is still running", "the job is not finished yet"; not
  // "This action requires the instance to be running", which speaks of the VM's power state, a refusal no wait ends)
  /\b(operation|process|task|action|job)s?\s+(is\s+|are\s+)?(still\s+|currently\s+|already\s+)?(running|pending|ongoing|under\s+way|underway|not\s+(yet\s+)?(finished|completed?|done))\b/i,
  /\b(is|are)\s+(currently\s+|still\s+)?busy\b/i,
  /\bstill\s+being\s+\w+/i, // "still being created", "still being processed"
  // "Instance is still creating", "VM is currently resizing"
  /\b(still|currently)\s+(creating|cloning|provisioning|building|installing|reinstalling|rebuilding|starting|booting|stopping|restarting|rebooting|resizing|upgrading|migrating|deleting|restoring|processing|snapshotting)\b/i,
  /\bcurrently\s+being\s+\w+/i,
  // ("berjalan" alone is "running" as a VM runs: "VM sedang berjalan" is its power state, not an operation)
  /\bsedang\s+(dalam\s+)?(proses|diproses|berlangsung|sibuk)\b/i, // "sedang diproses", "sedang berlangsung"
  /\bmasih\s+(dalam\s+|ada\s+)?(proses|diproses|berlangsung|operasi)\b/i, // "masih dalam proses"
  /\b(proses|operasi|tugas)\s+(\w+\s+)?(sedang|masih)\s+(berjalan|berlangsung)\b/i, // "proses sedang berjalan"
  /\b(proses|operasi)\s+lain\b/i, // "ada proses lain"
  /\bsibuk\b/i, // "busy"
  /\bbelum\s+selesai\b/i, // "not finished yet"
];

/** True when `text` is worded as "an operation is running" (see {@link BUSY_WORDING}). */
export function busyWording(text: string | undefined): boolean {
  return text !== undefined && BUSY_WORDING.some((pattern) => pattern.test(text));
}

/**
 * Whether a 400 or 422 answer is a "busy" refusal as another host may word it (api-spec.md §7 shows no error status;
 * the simulator and real-api-facts.md's Laravel shapes use 409, but a Laravel controller refusing on a running
 * operation may as well `abort(400|422, "...")` or fail a rule on a field the request did not send, `{"vm": ["VM is
 * still in progress."]}`). Read as busy only when the words say so (the message, or every field error) and no field
 * error is about a field the request sent: "The hostname is invalid" is the request's fault, whatever else it says.
 * A misread validation error is waited on only until the resource's deadline, and its final error quotes it.
 */
export function readsAsBusy(status: number, apiMessage: string | undefined, fieldErrors: FieldErrors | undefined, sentFields: readonly string[] = []): boolean {
  if (status !== 400 && status !== 422) return false;
  const entries = Object.entries(fieldErrors ?? {});
  const sent = new Set(sentFields.map((f) => f.toLowerCase()));
  if (entries.some(([field]) => sent.has(field.toLowerCase().replace(/(\[\d*\]|\.\d+)$/, "")))) return false;
  if (entries.length === 0) return busyWording(apiMessage);
  return entries.every(([, messages]) => messages.some((m) => busyWording(m)));
}

/** 429 after all retries: the service kept asking us to slow down. */
export class RateLimitedError extends ApiError {
  constructor(details: ApiErrorDetails) {
    super(details, "rate limited by the service", "Lower vmhost:maxRequestsPerSecond or retry later.");
  }
}

/** 5xx (after retries where the operation allows them). */
export class ServerError extends ApiError {
  constructor(details: ApiErrorDetails) {
    super(details, "the service had an internal error");
  }
}

/** Any other unexpected HTTP status (e.g. 400, 405). */
export class UnexpectedStatusError extends ApiError {
  constructor(details: ApiErrorDetails) {
    super(details, "unexpected HTTP status");
  }
}

/** The service could not be reached, or the connection failed (after retries where allowed). */
export class NetworkError extends ApiError {
  /** The system/undici error code, e.g. `ECONNREFUSED`, `ECONNRESET`. */
  readonly code: string | undefined;
  constructor(details: ApiErrorDetails & { code?: string }) {
    super(details, `network error${details.code ? ` (${details.code})` : ""}`, "Check vmhost:baseUrl / VMHOST_BASE_URL and the network.");
    this.code = details.code;
  }
}

/** The config key and environment variable that bound how long one request waits for an answer. */
export const REQUEST_TIMEOUT_KEYS = "vmhost:requestTimeout (VMHOST_REQUEST_TIMEOUT)";

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

/**
 * The service did not answer in time (connect, headers or body timeout). With the URL and the bound, the
 * message says which request hung, for how long, and the config key that sets the bound (a host that
 * accepts a request and never answers must fail within a known time, not after "about two minutes").
 */
export class TimeoutError extends ApiError {
  /** Which timeout fired: `connect`, `headers` or `body`. */
  readonly phase: "connect" | "headers" | "body";
  constructor(details: ApiErrorDetails & { phase: "connect" | "headers" | "body"; url?: string; limitMs?: number }) {
    const what = details.phase === "connect" ? "connection" : details.phase === "headers" ? "answer" : "complete answer";
    const where = details.url ? ` ${details.method} ${details.url} got no ${what}` : "";
    const within = details.limitMs !== undefined ? ` within ${seconds(details.limitMs)}` : "";
    const hint =
      details.phase === "connect"
        ? `${where ? `${where.trim()}${within}.` : ""} Check vmhost:baseUrl / VMHOST_BASE_URL and the network.`
        : `${where ? `${where.trim()}${within}.` : ""} The bound of one request is ${REQUEST_TIMEOUT_KEYS}, e.g. "2m" for a slow host.`;
    super(details, `no ${what} in time`, hint.trim());
    this.phase = details.phase;
  }
}

/**
 * A `once` operation (create instance, clone, snapshot, top-up, ...) failed AFTER the request may have
 * reached the service: a connection reset, a timeout or a 5xx. It may or may not have happened, so the
 * client does not re-send it; the caller must look (e.g. list instances by hostname) before trying again.
 * `cause` holds the underlying error (a `ServerError`, `NetworkError` or `TimeoutError`).
 */
export class AmbiguousRequestError extends ApiError {
  constructor(details: ApiErrorDetails & { cause: ApiError }) {
    super(
      details,
      "the request may or may not have taken effect",
      "It was not re-sent automatically because repeating it could do it twice; check whether it happened before retrying.",
    );
  }
}

/** A 2xx answer whose body does not match the operation's schema; names the field path that failed. */
export class ResponseFormatError extends ApiError {
  /** The issues, as `path: message` strings (e.g. `data.memory: not a size: "lots"`). */
  readonly issues: string[];
  constructor(details: ApiErrorDetails & { issues: string[] }) {
    super(details, `unexpected response format: ${details.issues.join("; ")}`, "Please report this with the API's host; a route or schema may need updating.");
    this.issues = details.issues;
  }
}

/**
 * A 409 that is not "busy" but a conflict with what the request asks: a field error about a field it sent, or words of
 * a duplicate ("The hostname has already been taken."), not of an operation running. Waiting does not change it, so
 * it is reported at once as the refusal it is instead of waited on until the deadline.
 */
function conflictIsRefusal(details: ApiErrorDetails, sentFields: readonly string[] = []): boolean {
  const sent = new Set(sentFields.map((f) => f.toLowerCase()));
  if (Object.keys(details.fieldErrors ?? {}).some((field) => sent.has(field.toLowerCase().replace(/(\[\d*\]|\.\d+)$/, "")))) return true;
  const text = details.apiMessage ?? "";
  return !busyWording(text) && /\balready\s+(been\s+taken|exists?|in\s+use)\b|\bduplicate\b|\bsudah\s+(ada|digunakan|dipakai|terpakai)\b/i.test(text);
}

/**
 * Chooses the error class for an HTTP error status. `sentFields`: the names of the request's body and query fields
 * (a 400/422 worded as busy is a {@link BusyError} unless a field error names one of them: {@link readsAsBusy}).
 */
export function errorForStatus(details: ApiErrorDetails & { status: number }, sentFields?: readonly string[]): ApiError {
  const { status } = details;
  if (readsAsBusy(status, details.apiMessage, details.fieldErrors, sentFields)) return new BusyError(details);
  if (status === 401) return new UnauthorizedError(details);
  if (status === 402) return new PaymentRequiredError(details);
  if (status === 403) return new ForbiddenError(details);
  if (status === 404 && (details.bodyIsJson === false || ROUTE_NOT_FOUND.test(details.apiMessage ?? ""))) return new RouteNotFoundError(details);
  if (status === 404 || status === 410) return new NotFoundError(details);
  if (status === 409 || status === 423) return conflictIsRefusal(details, sentFields) ? new ValidationError(details) : new BusyError(details);
  if (status === 422) return new ValidationError(details);
  if (status === 429) return new RateLimitedError(details);
  if (status === 405) return new MethodNotAllowedError(details);
  if (status >= 500) return new ServerError(details);
  return new UnexpectedStatusError(details);
}

/** Keys shorter than this are looked for as whole words only (see {@link redact}). */
const SHORT_KEY_LENGTH = 4;

/**
 * Replaces the API key in `text`: the one rule of every message, log line and error the client makes (api errors,
 * network errors, VMHOST_LOG=debug lines). A key of four characters or more is replaced wherever it occurs. A
 * shorter one (a test host's `dev`) is replaced where it stands as a word of its own (not between letters or
 * digits): searched for inside words it blanked out ordinary text ("[REDACTED]ice" for "device"), and skipped it
 * leaked when the API echoed it ("Invalid key dev").
 */
export function redact(text: string, secret: string | undefined): string {
  if (!secret) return text;
  if (secret.length >= SHORT_KEY_LENGTH) return text.split(secret).join("[REDACTED]");
  const escaped = secret.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return text.replace(new RegExp(`(?<![A-Za-z0-9])${escaped}(?![A-Za-z0-9])`, "g"), "[REDACTED]");
}
