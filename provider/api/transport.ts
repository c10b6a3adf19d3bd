/**
 * HTTP transport on undici: one keep-alive connection pool per base URL (shared by every client of the
 * process), connect/headers/body timeouts, and an injectable dispatcher (undici `MockAgent` in tests).
 * It sends one request and reports either the answer or a classified failure; retrying is retry.ts's job.
 */
import { Pool, type Dispatcher } from "undici";
import { redact } from "./errors";

/** Timeouts of one request, in milliseconds. */
export interface TransportTimeouts {
  /** Time to open the TCP/TLS connection (default 10 000). */
  connectMs: number;
  /** Time from sending to the response headers (default 60 000: the service answers writes slowly). */
  headersMs: number;
  /** Maximum idle time between body chunks (default 60 000). */
  bodyMs: number;
}

/** Default timeouts. */
export const defaultTimeouts: TransportTimeouts = { connectMs: 10_000, headersMs: 60_000, bodyMs: 60_000 };

/** One outgoing request. */
export interface TransportRequest {
  method: string;
  /** Absolute URL (base URL + filled path + query). */
  url: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

/** An answer (any status). */
export interface TransportResponse {
  status: number;
  headers: Record<string, string | undefined>;
  /** The body as text ("" when empty). */
  text: string;
}

/**
 * A failure without an answer. `sent` says whether the request may have reached the server: false only
 * when the connection never opened (refused, DNS failure, connect timeout), which makes even a create safe
 * to re-send.
 */
export interface TransportFailure {
  kind: "network" | "timeout";
  /** Error code (`ECONNREFUSED`, `ECONNRESET`, `UND_ERR_HEADERS_TIMEOUT`, ...). */
  code: string | undefined;
  /** For timeouts: which phase. */
  phase?: "connect" | "headers" | "body";
  sent: boolean;
  /** A sanitized error (name, code, message only): never the request options, which hold the key. */
  error: Error;
}

/** Thrown by {@link sendRequest} for failures without an answer. */
export class TransportError extends Error {
  constructor(readonly failure: TransportFailure) {
    super(failure.error.message);
    this.name = "TransportError";
  }
}

// Codes meaning the connection never opened: nothing reached the server.
const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_CONNECT",
]);

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === "object"; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Classifies an undici/system error thrown while sending or reading. */
export function classifyFailure(error: unknown, secret?: string): TransportFailure {
  const code = errorCode(error);
  const rawMessage = error instanceof Error ? error.message : String(error);
  const message = redact(rawMessage, secret);
  const sanitized = Object.assign(new Error(message), { code });
  sanitized.name = error instanceof Error ? error.name : "Error";
  if (code === "UND_ERR_CONNECT_TIMEOUT") return { kind: "timeout", phase: "connect", code, sent: false, error: sanitized };
  if (code === "UND_ERR_HEADERS_TIMEOUT") return { kind: "timeout", phase: "headers", code, sent: true, error: sanitized };
  if (code === "UND_ERR_BODY_TIMEOUT") return { kind: "timeout", phase: "body", code, sent: true, error: sanitized };
  return { kind: "network", code, sent: !(code !== undefined && NOT_SENT_CODES.has(code)), error: sanitized };
}

const pools = new Map<string, Pool>();

/**
 * The process-wide keep-alive pool for a base URL's origin (and timeouts). Clients of the same service
 * share connections instead of opening one pool each.
 */
export function poolFor(baseUrl: string, timeouts: TransportTimeouts): Dispatcher {
  const origin = new URL(baseUrl).origin;
  const key = `${origin}|${timeouts.connectMs}|${timeouts.headersMs}|${timeouts.bodyMs}`;
  let pool = pools.get(key);
  if (!pool) {
    pool = new Pool(origin, {
      connect: { timeout: timeouts.connectMs },
      headersTimeout: timeouts.headersMs,
      bodyTimeout: timeouts.bodyMs,
      keepAliveTimeout: 30_000,
    });
    pools.set(key, pool);
  }
  return pool;
}

/** Closes every shared pool (for tests and short-lived tools; long-lived processes need not call it). */
export async function closeAllPools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((p) => p.close().catch(() => undefined)));
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

/**
 * Sends one request and reads the whole body. Resolves with any HTTP status; rejects with a
 * {@link TransportError} for failures without an answer, or with the abort reason when `signal` aborts.
 */
export async function sendRequest(
  dispatcher: Dispatcher,
  request: TransportRequest,
  timeouts: TransportTimeouts,
  secret?: string,
): Promise<TransportResponse> {
  const url = new URL(request.url);
  try {
    const response = await dispatcher.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: request.method as Dispatcher.HttpMethod,
      headers: request.headers,
      body: request.body,
      signal: request.signal,
      headersTimeout: timeouts.headersMs,
      bodyTimeout: timeouts.bodyMs,
    });
    const text = await response.body.text();
    return { status: response.statusCode, headers: flattenHeaders(response.headers), text };
  } catch (error) {
    if (request.signal?.aborted) throw request.signal.reason ?? error;
    throw new TransportError(classifyFailure(error, secret));
  }
}
