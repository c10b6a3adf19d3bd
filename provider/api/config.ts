/**
 * Client options from Pulumi stack configuration and the environment.
 *
 * | stack config                 | environment       | meaning                                   |
 * |------------------------------|-------------------|-------------------------------------------|
 * | `vmhost:apiKey` (secret)     | `VMHOST_API_KEY`  | API key (required)                        |
 * | `vmhost:baseUrl`             | `VMHOST_BASE_URL` | base URL ending in `/v1` (required)       |
 * | `vmhost:routes` (JSON)       | -                 | route overrides                           |
 * | `vmhost:maxRequestsPerSecond`| -                 | process-wide request rate (default: none) |
 * | `vmhost:requestTimeout`      | `VMHOST_REQUEST_TIMEOUT` | how long one request waits for an answer (default 60s) |
 * | `vmhost:createTimeout`, `updateTimeout`, `deleteTimeout` | `VMHOST_CREATE_TIMEOUT`, ... | a resource's deadlines (read by context.ts; checked here, so preview refuses a bad one) |
 * | -                            | `VMHOST_LOG`      | `debug` logs every request to stderr      |
 *
 * Stack config wins over the environment. These keys are config-keys.ts CONFIG_KEYS; a `vmhost:` key outside
 * that list is ignored here and draws a did-you-mean warning from the program (sdk/nodejs/config-keys.ts).
 */
import { z } from "zod";
import { WAIT_LIMITS_TEXT, parseWaitDuration } from "../duration";
import type { ClientOptions } from "./client";
import { debugLoggingEnabled, stderrLogger, type RequestLogger } from "./log";
import { applyRouteOverrides, type RouteOverrides } from "./overrides";
import { configName } from "./config-keys";

/** Stack configuration as Pulumi gives it to a dynamic provider (`req.config`), or a plain record. */
export type StackConfigSource =
  | { get(key: string): string | undefined }
  | Readonly<Record<string, string | undefined>>;

/** Inputs of {@link resolveClientOptions}. */
export interface ResolveClientOptionsInput {
  /** Stack config, keys with the `vmhost:` prefix. */
  config?: StackConfigSource;
  /** Environment (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Logger to use when `VMHOST_LOG=debug` (default: stderr). The provider passes one that writes to Pulumi's log. */
  debugLogger?: RequestLogger;
}

/** Missing or invalid configuration; the message says exactly what to set. */
export class ConfigurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigurationError";
  }
}

function read(config: StackConfigSource | undefined, key: string): string | undefined {
  if (!config) return undefined;
  const value =
    typeof (config as { get?: unknown }).get === "function"
      ? (config as { get(key: string): string | undefined }).get(key)
      : (config as Readonly<Record<string, string | undefined>>)[key];
  if (value === undefined || value === null) return undefined;
  const text = String(value).trim();
  return text === "" ? undefined : text;
}

const baseUrlSchema = z.url({ protocol: /^https?$/ });
// A decimal number of requests per second, at least one per minute (below that every up waits minutes between
// requests and looks hung: audit, 0.001 was accepted); no hex or exponent forms ("0x10" read as 16).
const rateSchema = z
  .string()
  .regex(/^\s*\d+(\.\d+)?\s*$/)
  .transform(Number)
  .pipe(z.number().min(0.02).max(1000));
const routesJsonSchema = z.record(z.string(), z.unknown());

/**
 * Resolves client options from stack config and environment (config wins). Throws
 * {@link ConfigurationError} naming the exact config key or variable to set when the key or base URL is
 * missing or invalid. The key's value never appears in an error.
 */
export function resolveClientOptions(input: ResolveClientOptionsInput = {}): ClientOptions {
  const env = input.env ?? process.env;
  const apiKey = read(input.config, configName("apiKey")) ?? read(env, "VMHOST_API_KEY");
  const baseUrl = read(input.config, configName("baseUrl")) ?? read(env, "VMHOST_BASE_URL");
  const problems: string[] = [];
  if (!apiKey) {
    problems.push("no API key: run `pulumi config set --secret vmhost:apiKey <key>` or set the VMHOST_API_KEY environment variable");
  } else if (!/^[\x21-\x7e]+$/.test(apiKey)) {
    // A header value must be printable ASCII: undici refused it before any request, and five attempts later the
    // error blamed vmhost:baseUrl ("could not reach the API"; audit). The key itself is never shown.
    problems.push(
      "vmhost:apiKey / VMHOST_API_KEY holds a character an API key cannot have (a space, a line break, a non-ASCII letter: a paste " +
        "error?): set it again with `pulumi config set --secret vmhost:apiKey <key>`",
    );
  }
  if (!baseUrl) {
    problems.push(
      "no base URL: run `pulumi config set vmhost:baseUrl https://api.<host>/v1` (e.g. https://api.dewavps.com/v1) or set VMHOST_BASE_URL",
    );
  } else if (!baseUrlSchema.safeParse(baseUrl).success) {
    // Echoed only when it looks like a URL: a key pasted into the wrong setting (baseUrl and apiKey swapped) must not
    // be printed (new-user audit: the key was shown in the error, redaction covering only the configured key).
    const shown = /^[a-z][a-z0-9+.-]*:\/\//i.test(baseUrl.trim()) ? `, got ${JSON.stringify(baseUrl)}` : " (the value set is not a URL; not shown, in case it is the API key)";
    problems.push(`vmhost:baseUrl / VMHOST_BASE_URL must be an http(s) URL ending in /v1${shown}`);
  }

  let routes: RouteOverrides | undefined;
  const routesText = read(input.config, configName("routes"));
  if (routesText) {
    try {
      const parsed = routesJsonSchema.parse(JSON.parse(routesText));
      applyRouteOverrides(parsed); // validate now: a bad override fails configuration, not a later call
      routes = parsed as RouteOverrides;
    } catch (error) {
      problems.push(
        `vmhost:routes must be a JSON object such as {"updateRdns": "PATCH /network/ip/{ip_uuid}/rdns"}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  // A host that accepts a request and never answers: each attempt fails after this bound, naming the
  // request and this key (errors.ts TimeoutError); reads are retried within maxRetryTimeMs (60 s) in all.
  let requestTimeoutMs: number | undefined;
  const timeoutText = read(input.config, configName("requestTimeout")) ?? read(env, "VMHOST_REQUEST_TIMEOUT");
  if (timeoutText) {
    requestTimeoutMs = parsePositiveDuration(timeoutText);
    if (requestTimeoutMs === undefined)
      problems.push(`vmhost:requestTimeout / VMHOST_REQUEST_TIMEOUT must be a duration such as "90s" or "2m" (or seconds), ${WAIT_LIMITS_TEXT}, got ${JSON.stringify(timeoutText)}`);
  }

  // Resource deadlines are resolved per call (context.ts resourceTimeouts), but checked here with the rest: a
  // preview then refuses a value that would fail the up after its first write, and 0 (a create that times out
  // right after the VM was made).
  for (const kind of ["create", "update", "delete"] as const) {
    const key = configName(`${kind}Timeout`);
    const envKey = `VMHOST_${kind.toUpperCase()}_TIMEOUT`;
    const text = read(input.config, key) ?? read(env, envKey);
    if (text && parsePositiveDuration(text) === undefined)
      problems.push(`${key} / ${envKey} must be a positive duration such as "20m" or "90s" (or seconds), ${WAIT_LIMITS_TEXT}, got ${JSON.stringify(text)}`);
  }

  let maxRequestsPerSecond: number | undefined;
  const rateText = read(input.config, configName("maxRequestsPerSecond"));
  if (rateText) {
    const rate = rateSchema.safeParse(rateText);
    if (rate.success) maxRequestsPerSecond = rate.data;
    else problems.push(`vmhost:maxRequestsPerSecond must be a decimal number of requests per second from 0.02 (about one a minute) to 1000, e.g. 10, got ${JSON.stringify(rateText)}`);
  }

  if (problems.length) throw new ConfigurationError(`vmhost configuration: ${problems.join("; ")}`);
  return {
    baseUrl: baseUrl!,
    apiKey: apiKey!,
    routes,
    maxRequestsPerSecond,
    ...(requestTimeoutMs !== undefined ? { timeouts: { headersMs: requestTimeoutMs, bodyMs: requestTimeoutMs } } : {}),
    logger: debugLoggingEnabled(env) ? input.debugLogger ?? stderrLogger : false,
  };
}

/**
 * "90s", "2m", "500ms", "1m30s" or a bare number of seconds, in ms; undefined when not a duration of at least
 * 1 ms and at most 7 days (duration.ts parseWaitDuration).
 */
export function parsePositiveDuration(text: string): number | undefined {
  return parseWaitDuration(text);
}
