/**
 * The HTTP front of the simulator (node:http, no framework): body parsing, `_method` spoofing, routing,
 * auth, faults, the request log, and the admin API under `/__sim`.
 */
import * as http from "node:http";
import { handleAdmin } from "./admin";
import { systemClock, type Clock } from "./clock";
import { HttpError } from "./errors";
import { FaultState, type FaultsInput } from "./faults";
import { SeededRandom } from "./ids";
import { advance } from "./operations";
import { matchRoute } from "./routes";
import { createSeedState, DEFAULT_SEED } from "./seed";
import type { SimContext, SimState } from "./state";
import type { Input } from "./validation";

/** Options of a simulator (all optional). */
export interface SimulatorOptions {
  /** TCP port (default 0: any free port). */
  port?: number;
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** The API key clients must send in `x-apikey` (default: one generated from the seed). */
  apiKey?: string;
  /** Duration of asynchronous operations in seconds (default 2; fractions allowed). */
  opSeconds?: number;
  /** Latency added to every /v1 answer, ms (default 0). Same as `faults.latencyMs`. */
  latencyMs?: number;
  /** Seed of the catalogue uuids and of every generated id (default "vmhost-sim"). */
  seed?: string | number;
  /** Time source (default: the system clock). Inject a `ManualClock` for deterministic tests. */
  clock?: Clock;
  /** Faults active from the start and restored by `POST /__sim/reset`. */
  faults?: FaultsInput;
}

/** One entry of the request log (`GET /__sim/requests`). */
export interface RequestLogEntry {
  /** Sequence number, from 1; `?since=N` returns entries after N. */
  seq: number;
  /** ISO time of the simulator clock when the request arrived. */
  time: string;
  /** Effective method (after `_method` spoofing). */
  method: string;
  /** Path as requested, without the query. */
  path: string;
  /** The query string without `?` ("" when none). */
  query: string;
  /** Operation id of the matched route, or null. */
  operation: string | null;
  /** HTTP status answered, or null when the connection was reset instead. */
  status: number | null;
  /** True when the connection was destroyed by a `resetNext` fault. */
  reset: boolean;
  /** Parsed request body (form fields or JSON). */
  body: Input;
}

const MAX_BODY_BYTES = 1024 * 1024;
/** Request log entries kept (older ones are dropped; `seq` keeps counting). */
export const MAX_LOG_ENTRIES = 10_000;

/** Parses a form body: repeated `k[]` (or `k[n]`) keys become arrays, other keys keep the last value. */
export function parseForm(text: string): Input {
  const out: Input = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const arrayKey = /^(.+?)\[[^\]]*\]$/.exec(key);
    if (arrayKey) {
      const name = arrayKey[1]!;
      const current = out[name];
      out[name] = Array.isArray(current) ? [...current, value] : [value];
    } else {
      out[key] = value;
    }
  }
  return out;
}

/**
 * Parses the text fields of a `multipart/form-data` body (Laravel accepts forms either way). File parts
 * are read as text too; the service takes no uploads.
 */
export function parseMultipart(raw: string, contentType: string): Input {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  if (!boundary) throw new HttpError(400, { message: "The multipart body has no boundary." });
  const delimiter = `--${boundary[1] ?? boundary[2]}`;
  const fields = new URLSearchParams();
  for (const part of raw.split(delimiter).slice(1)) {
    if (part.startsWith("--")) break;
    const split = part.indexOf("\r\n\r\n");
    if (split < 0) continue;
    const name = /name="([^"]*)"/i.exec(part.slice(0, split));
    if (name) fields.append(name[1]!, part.slice(split + 4).replace(/\r\n$/, ""));
  }
  return parseForm(fields.toString());
}

function parseBody(raw: string, contentType: string | undefined): Input {
  if (raw.trim() === "") return {};
  if (contentType?.toLowerCase().includes("multipart/form-data")) return parseMultipart(raw, contentType);
  if (contentType?.includes("application/json")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new HttpError(400, { message: "The request body is not valid JSON." });
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
      throw new HttpError(400, { message: "The request body must be a JSON object." });
    }
    return parsed as Input;
  }
  return parseForm(raw);
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new HttpError(413, { message: "The request body is too large." }));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** One simulated service: its state, faults, log and HTTP handler. */
export class Simulator {
  readonly seed: string;
  readonly apiKey: string;
  readonly opSeconds: number;
  readonly clock: Clock;
  readonly faults = new FaultState();
  state!: SimState;
  /** Generator of ids; reset with the state so a replay after reset gives the same ids. */
  ids!: SeededRandom;
  /** Generator of fault decisions (kept apart so faults do not shift the ids). */
  private faultRandom!: SeededRandom;
  /** Shift added to the clock by `POST /__sim/clock` (lets a real-time simulator skip ahead). */
  clockOffsetMs = 0;
  log: RequestLogEntry[] = [];
  private logSeq = 0;
  private readonly initialFaults: FaultsInput;

  constructor(options: SimulatorOptions = {}) {
    this.seed = String(options.seed ?? DEFAULT_SEED);
    this.apiKey = options.apiKey ?? `sim-${new SeededRandom(`${this.seed}/api-key`).token(32)}`;
    const opSeconds = options.opSeconds ?? 2;
    if (!(opSeconds >= 0) || !Number.isFinite(opSeconds)) throw new RangeError(`opSeconds must be a non-negative number, got ${opSeconds}`);
    this.opSeconds = opSeconds;
    this.clock = options.clock ?? systemClock;
    this.initialFaults = { ...(options.faults ?? {}), ...(options.latencyMs !== undefined ? { latencyMs: options.latencyMs } : {}) };
    this.reset();
  }

  /** Current simulator time, epoch ms. */
  now(): number {
    return this.clock.now() + this.clockOffsetMs;
  }

  /** Back to the seeded state: state, id generator, faults (to the start-up ones) and request log. */
  reset(): void {
    this.state = createSeedState(this.seed);
    this.ids = new SeededRandom(`${this.seed}/ids`);
    this.faultRandom = new SeededRandom(`${this.seed}/faults`);
    this.faults.clear();
    this.faults.apply(this.initialFaults);
    this.log = [];
  }

  /** A handler context at the current time, with operations advanced to it. */
  context(): SimContext {
    const ctx: SimContext = { state: this.state, ids: this.ids, now: this.now(), opSeconds: this.opSeconds, opFaults: this.faults.operations, wire: this.faults.wire };
    advance(ctx);
    return ctx;
  }

  /** The node:http request listener. */
  readonly listener = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    this.handle(req, res).catch((err: unknown) => {
      // Last resort: an unexpected bug answers 500 rather than hanging the client.
      process.stderr.write(`vmhost-sim: internal error: ${err instanceof Error ? err.stack : String(err)}\n`);
      if (!res.headersSent) send(res, 500, { message: "Server Error" });
    });
  };

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://simulator.local");
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, "") : url.pathname;
    let rawBody: string;
    try {
      rawBody = await readBody(req);
    } catch (err) {
      if (err instanceof HttpError) send(res, err.status, err.body);
      return;
    }

    if (path === "/__sim" || path.startsWith("/__sim/")) {
      let body: unknown = {};
      try {
        body = rawBody.trim() === "" ? {} : JSON.parse(rawBody);
      } catch {
        send(res, 400, { message: "Admin requests take JSON bodies." });
        return;
      }
      const answer = handleAdmin(this, req.method ?? "GET", path.slice("/__sim".length) || "/", url.searchParams, body);
      send(res, answer.status, answer.body);
      return;
    }

    const arrivedAt = this.now();
    const entry: RequestLogEntry = {
      seq: ++this.logSeq, time: new Date(arrivedAt).toISOString(), method: req.method ?? "GET", path,
      query: url.search.replace(/^\?/, ""), operation: null, status: null, reset: false, body: {},
    };
    this.log.push(entry);
    // A long-running `vmhost-sim` must not grow without bound: keep the most recent entries.
    if (this.log.length > MAX_LOG_ENTRIES) this.log.splice(0, this.log.length - MAX_LOG_ENTRIES);
    const reply = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
      entry.status = status;
      send(res, status, body, headers);
    };

    if (path !== "/v1" && !path.startsWith("/v1/")) {
      reply(404, { message: `The route ${path.replace(/^\//, "")} could not be found.` });
      return;
    }
    let body: Input;
    try {
      body = parseBody(rawBody, req.headers["content-type"]);
    } catch (err) {
      if (err instanceof HttpError) reply(err.status, err.body);
      return;
    }
    entry.body = body;
    // Laravel method spoofing: a POST carrying `_method` is handled as that method.
    let method = (req.method ?? "GET").toUpperCase();
    if (method === "POST" && typeof body["_method"] === "string") method = body["_method"].toUpperCase();
    entry.method = method;

    const apiPath = path.slice("/v1".length) || "/";
    const match = matchRoute(method, apiPath);
    if (match.kind === "not-found") {
      reply(404, { message: `The route ${path.replace(/^\//, "")} could not be found.` });
      return;
    }
    if (match.kind === "method-not-allowed") {
      reply(405, { message: `The ${method} method is not supported for route ${path.replace(/^\//, "")}. Supported methods: ${match.allowed.join(", ")}.` });
      return;
    }
    entry.operation = match.route.id;

    // Laravel runs authentication before throttling (middleware priority).
    if (req.headers["x-apikey"] !== this.apiKey) {
      reply(401, { message: "Unauthenticated." });
      return;
    }
    const budget = this.faults.takeBudget(arrivedAt);
    if (!budget.allowed) {
      reply(429, { message: "Too Many Attempts." }, budget.headers);
      return;
    }
    if (this.faults.latencyMs > 0) await delay(this.faults.latencyMs);

    const routeKey = `${match.route.method} ${match.route.path}`;
    // A slow request (delayNext): the handler runs when the delay is over, even if the client has given up.
    const slow = this.faults.takeDelay(match.route.id, routeKey);
    if (slow) await delay(slow.ms);
    // A canned error answer (respondNext): given before anything happens, like a refusal by the service.
    const canned = this.faults.takeResponse(match.route.id, routeKey);
    if (canned) {
      reply(canned.status, canned.body, budget.headers);
      if (canned.effectAfterMs !== undefined) {
        // A queued effect (respondNext.effectAfterMs): the work lands later, whatever the handler would have answered.
        setTimeout(() => {
          try {
            match.route.handler(this.context(), { params: match.params, query: url.searchParams, body });
          } catch (err) {
            if (!(err instanceof HttpError)) process.stderr.write(`vmhost-sim: internal error in queued ${match.route.id}: ${err instanceof Error ? err.stack : String(err)}\n`);
          }
        }, canned.effectAfterMs).unref();
      }
      return;
    }
    // Random draws happen only when a rate is set, so runs without these faults keep their 5xx sequence.
    const afterProcessing = (): boolean => this.faults.afterProcessingShare > 0 && this.faultRandom.next() < this.faults.afterProcessingShare;
    let resetFault: { afterProcessing: boolean } | undefined = this.faults.takeReset(match.route.id, routeKey);
    if (!resetFault && this.faults.resetRate > 0 && this.faultRandom.next() < this.faults.resetRate) resetFault = { afterProcessing: afterProcessing() };
    if (resetFault && !resetFault.afterProcessing) {
      entry.reset = true;
      req.socket.destroy();
      return;
    }
    const errorBody = { message: this.faults.errorStatus === 503 ? "Service Unavailable" : "Server Error" };
    let errorAfterProcessing = false;
    if (!resetFault && this.faults.errorRate > 0 && this.faultRandom.next() < this.faults.errorRate) {
      if (!afterProcessing()) {
        reply(this.faults.errorStatus, errorBody, budget.headers);
        return;
      }
      errorAfterProcessing = true;
    }

    let status: number;
    let responseBody: unknown;
    let headers: Record<string, string> = budget.headers;
    try {
      const ctx = this.context();
      const result = match.route.handler(ctx, { params: match.params, query: url.searchParams, body });
      status = result.status ?? 200;
      const nullFields = this.faults.wire.nullFields;
      responseBody = { message: result.message, data: nullFields?.length && method === "GET" ? withNulls(result.data, new Set(nullFields)) : result.data };
    } catch (err) {
      if (err instanceof HttpError) {
        status = err.status;
        responseBody = err.body;
        headers = { ...headers, ...err.headers };
      } else {
        // A simulator bug: answer like Laravel's production error page and say why on stderr.
        process.stderr.write(`vmhost-sim: internal error in ${match.route.id}: ${err instanceof Error ? err.stack : String(err)}\n`);
        status = 500;
        responseBody = { message: "Server Error" };
      }
    }
    // A canned answer after processing (respondNext.afterProcessing): the effect has happened, the client gets this
    // answer instead of the handler's (a 2xx with `data: null` or without the uuid). A refusal by the handler stands.
    const cannedAfter = status < 300 && !resetFault && !errorAfterProcessing ? this.faults.takeResponse(match.route.id, routeKey, true) : undefined;
    if (cannedAfter) {
      // (no `data` given: the handler's own data under the canned status and message, e.g. a create answered 201 or 202)
      const body = "data" in cannedAfter.body ? cannedAfter.body : { ...cannedAfter.body, data: (responseBody as { data?: unknown }).data };
      reply(cannedAfter.status, body, headers);
      return;
    }
    if (resetFault) {
      // The effect has happened; the client never learns it.
      entry.reset = true;
      entry.status = null;
      req.socket.destroy();
      return;
    }
    if (errorAfterProcessing) {
      // The effect has happened; the client sees a 5xx (a gateway that gave up on a backend that did the work).
      reply(this.faults.errorStatus, errorBody, budget.headers);
      return;
    }
    reply(status, responseBody, headers);
  }
}

/** A copy of `value` with every key of `keys` (at any depth) set to null: a host's empty columns (wire.nullFields). */
function withNulls(value: unknown, keys: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((v) => withNulls(v, keys));
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, keys.has(k) ? null : withNulls(v, keys)]));
}

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-cache, private",
    ...headers,
  });
  res.end(text);
}
