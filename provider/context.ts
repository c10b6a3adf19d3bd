import { AsyncLocalStorage } from "node:async_hooks";
import { processEngineGuard } from "./engine-liveness";
import { createClient, parsePositiveDuration, resolveClientOptions, type StackConfigSource, type VmHostClient, ConfigurationError } from "./api";
import { configName } from "./api/config-keys";
import { systemClock } from "./clock";
import { parseDuration } from "./duration";
import { Deadline, type TimeoutPhase } from "./wait/poll";

/**
 * Process-wide provider context: the stack config the dynamic-provider host hands to `configure`, and the
 * client built from it. The serialized stub captures none of this (design.md §5): credentials reach us here,
 * from stack config (`vmhost:apiKey`, `vmhost:baseUrl`, ...; the host passes the whole stack config with its
 * namespaces) or, failing that, from the environment (`VMHOST_API_KEY`, `VMHOST_BASE_URL`).
 */
let stackConfig: StackConfigSource | undefined;
let cached: { fingerprint: string; client: VmHostClient } | undefined;

/**
 * Called by the dynamic-provider host with the stack's configuration. It only stores it: a missing key must not
 * fail resources that never call the API (and the error is clearer at first use). The host calls it once per
 * serialized provider, i.e. once per resource TYPE (@pulumi/pulumi cmd/dynamic-provider/index.js `getProvider`
 * caches by the provider string), with the same config: the client is kept (getClient makes a new one only
 * when the configuration differs), so every resource type shares one status poller, catalogue and listing.
 */
export async function configure(req: { config: { get(key: string): string | undefined } }): Promise<void> {
  stackConfig = req.config;
}

/** The API client for the configured account; one per distinct configuration, reused across resources. */
export function getClient(): VmHostClient {
  const options = { ...resolveClientOptions({ config: stackConfig, env: process.env, debugLogger: (_e, line) => progressLog(line) }), beforeSend: processEngineGuard() };
  // The fingerprint holds the key only inside this process's memory, never in a message or log.
  // Every setting the client is built from: configure keeps the client, so a changed setting must make a new one.
  const fingerprint = JSON.stringify([
    options.baseUrl, options.apiKey, options.routes ?? null, options.maxRequestsPerSecond ?? null, options.timeouts ?? null, options.logger === false,
  ]);
  if (!cached || cached.fingerprint !== fingerprint) cached = { fingerprint, client: createClient(options) };
  return cached.client;
}

/** Forgets the configuration and client (tests that switch simulators between cases). */
export function resetContext(): void {
  stackConfig = undefined;
  cached = undefined;
}

/** Resolved deadlines of one resource's waits, in ms. */
export interface ResolvedTimeouts {
  create: number;
  update: number;
  delete: number;
}

/** Defaults when neither the `timeouts` input nor config sets one: creates and resizes can take many minutes. */
export const defaultResourceTimeouts: ResolvedTimeouts = { create: 30 * 60_000, update: 30 * 60_000, delete: 20 * 60_000 };

/**
 * A resource's deadlines: its `timeouts` input wins, then stack config `vmhost:createTimeout`,
 * `vmhost:updateTimeout`, `vmhost:deleteTimeout` (or env `VMHOST_CREATE_TIMEOUT`, ...), then the defaults.
 * Durations are strings like "20m", "90s", "1h30m". (Dynamic providers ignore Pulumi's `customTimeouts`.)
 */
export function resourceTimeouts(input?: { create?: string; update?: string; delete?: string }): ResolvedTimeouts {
  const pick = (kind: keyof ResolvedTimeouts): number => {
    const fromInput = input?.[kind];
    if (fromInput !== undefined) {
      const ms = parseDuration(fromInput);
      if (ms === undefined) throw new ConfigurationError(`timeouts.${kind} must be a duration like "20m" or "90s", got ${JSON.stringify(fromInput)}`);
      return ms;
    }
    const key = configName(`${kind}Timeout`);
    const envKey = `VMHOST_${kind.toUpperCase()}_TIMEOUT`;
    const configured = readConfig(key) ?? process.env[envKey];
    if (configured !== undefined && configured.trim() !== "") {
      const ms = parsePositiveDuration(configured);
      if (ms === undefined) throw new ConfigurationError(`${key} / ${envKey} must be a positive duration like "20m", got ${JSON.stringify(configured)}`);
      return ms;
    }
    return defaultResourceTimeouts[kind];
  };
  return { create: pick("create"), update: pick("update"), delete: pick("delete") };
}

/**
 * The one deadline of a resource's create, update or delete, from its `timeouts` input (see
 * {@link resourceTimeouts}). Every wait of that call shares it, so `timeouts.create: "10m"` bounds the whole
 * create, and a timeout message names the key to raise.
 */
export function resourceDeadline(input: { create?: string; update?: string; delete?: string } | undefined, phase: TimeoutPhase): Deadline {
  const current = operationDeadline.getStore();
  if (current?.phase === phase) return current;
  return new Deadline(resourceTimeouts(input)[phase], systemClock.now, phase);
}

/**
 * The deadline of the provider call running (create, update or delete), set once where the call enters the
 * provider (wait/scope.ts): every wait of the call, from the wrappers' outermost (an adoption waiting for the rest
 * of the deployment) to the last status poll, counts against one `timeouts.<phase>`, as README promises. Without
 * it each layer started its own (audit: a create with timeouts.create 3s took 7 s, then failed "after 1ms").
 */
const operationDeadline = new AsyncLocalStorage<Deadline>();

/** Runs `fn` (one provider call) with `deadline` as what {@link resourceDeadline} answers for its phase. */
export function withOperationDeadline<T>(deadline: Deadline, fn: () => Promise<T>): Promise<T> {
  return operationDeadline.run(deadline, fn);
}

function readConfig(key: string): string | undefined {
  if (!stackConfig) return undefined;
  const get = (stackConfig as { get?: (k: string) => string | undefined }).get;
  return typeof get === "function" ? get.call(stackConfig, key) : (stackConfig as Record<string, string | undefined>)[key];
}

/** Where progress lines go; replaced in tests. */
let progressSink: (line: string) => void = (line) => process.stderr.write(`vmhost: ${line}\n`);

/**
 * Reports progress of long waits ("still waiting for instance … : status creating, 2m elapsed, 28m left") and
 * debug request lines. In the dynamic-provider host, stderr is what the Pulumi CLI shows as the resource's
 * diagnostics.
 */
export function progressLog(line: string): void {
  progressSink(line);
}

/** Redirects progress lines (tests). Returns the previous sink. */
export function setProgressSink(sink: (line: string) => void): (line: string) => void {
  const previous = progressSink;
  progressSink = sink;
  return previous;
}
