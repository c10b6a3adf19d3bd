/**
 * Functions for every read endpoint of the API, plus the rollbackSnapshot action.
 *
 * Dynamic providers have no invoke, so these run in the PROGRAM process: each builds an API client from
 * explicit options, else stack config (`vmhost:apiKey` secret, `vmhost:baseUrl`, `vmhost:routes`), else the
 * environment (`VMHOST_API_KEY`, `VMHOST_BASE_URL`), calls the API and returns the normalized result in
 * camelCase (sizes in GB, dates ISO 8601 UTC, money as numbers, absent values null), validated against the
 * documented shape. Arguments are validated before any call. Each `getX` takes plain values and returns a
 * Promise; `getXOutput` takes Pulumi inputs (e.g. `instance.id`) and returns an Output.
 *
 * They also work outside a Pulumi program (scripts, tests): pass `{ apiKey, baseUrl }` as the last argument.
 */
import * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import type * as Api from "../../../provider/api";
import type * as InstanceWait from "../../../provider/wait/instance";
import type * as InstanceModel from "../../../provider/resources/instance/model";
import type * as Preflight from "../../../provider/resources/common/preflight";
import type * as Check from "../../../provider/resources/common/check";
import type * as Registry from "./registry";
import type { ClientOptions, VmHostClient } from "../../../provider/api";
import type { FunctionName } from "./registry";
import { WAIT_LIMITS_TEXT, parseWaitDuration } from "../../../provider/duration";
import { Deadline } from "../../../provider/wait/poll";
import { systemClock } from "../../../provider/clock";
import { warnUnknownConfigKeys } from "../config-keys";

export type { FunctionName } from "./registry";

/**
 * A module loaded at its first use. The functions' machinery (the API client with undici, the instance waits, the
 * zod schemas) is needed only when a program calls a function: loaded with the package, it cost every program
 * about 0.17 s of CPU at each start (each `pulumi preview` and `up` runs the program), most of what importing
 * pulumi-vmhost costs; the resource classes need none of it (their provider runs in the provider host).
 */
function loadedOnFirstUse<M extends object>(load: () => M): M {
  let loaded: M | undefined;
  return new Proxy({} as M, { get: (_target, key) => Reflect.get((loaded ??= load()), key) });
}
const api = loadedOnFirstUse<typeof Api>(() => require("../../../provider/api"));
const instanceWait = loadedOnFirstUse<typeof InstanceWait>(() => require("../../../provider/wait/instance"));
const instanceModel = loadedOnFirstUse<typeof InstanceModel>(() => require("../../../provider/resources/instance/model"));
const preflight = loadedOnFirstUse<typeof Preflight>(() => require("../../../provider/resources/common/preflight"));
const check = loadedOnFirstUse<typeof Check>(() => require("../../../provider/resources/common/check"));
const registry = loadedOnFirstUse<typeof Registry>(() => require("./registry"));

/** The argument and result zod schemas of every function (`schema.json`'s functions are generated from them). */
export declare const functionSchemas: typeof Registry.functionSchemas;
// A getter, so the schemas load only when someone reads them (`export ... from "./registry"` would load them with the
// package), written in the form Node's CommonJS export detection reads, so ESM's `import { functionSchemas }` works.
Object.defineProperty(exports, "functionSchemas", { enumerable: true, get: function () { return registry.functionSchemas; } });

/** Where a function finds the API; each field overrides stack config and the environment. */
export interface FunctionOptions {
  /** The API key (default: config `vmhost:apiKey`, else `VMHOST_API_KEY`). */
  apiKey?: string;
  /** The base URL ending in /v1 (default: config `vmhost:baseUrl`, else `VMHOST_BASE_URL`). */
  baseUrl?: string;
}

/** Arguments a function was called with did not validate; the message names the argument and the fix. */
export class FunctionArgumentError extends Error {
  override readonly name = "FunctionArgumentError";
}

type Schemas = typeof Registry.functionSchemas;
type Args<N extends FunctionName> = z.input<Schemas[N]["args"]>;
type ParsedArgs<N extends FunctionName> = z.output<Schemas[N]["args"]>;
type Result<N extends FunctionName> = z.output<Schemas[N]["result"]>;

/** Stack config of the `vmhost` namespace, when running inside a Pulumi program. */
function stackConfig(): { get(key: string): string | undefined } | undefined {
  warnUnknownConfigKeys();
  try {
    const config = new pulumi.Config("vmhost");
    return { get: (key: string) => config.get(key.replace(/^vmhost:/, "")) };
  } catch {
    return undefined; // not inside a Pulumi program: explicit options and the environment remain
  }
}

/** The client options a function uses: explicit options > stack config > environment. */
function functionClientOptions(options: FunctionOptions = {}): ClientOptions {
  const config = stackConfig();
  const explicit: Record<string, string | undefined> = {
    "vmhost:apiKey": options.apiKey,
    "vmhost:baseUrl": options.baseUrl,
  };
  return api.resolveClientOptions({
    config: { get: (key: string) => explicit[key] ?? config?.get(key) },
  });
}

/** `ip_address` -> `ipAddress`; other characters than `_`-separated words are left alone. */
function camelKey(key: string): string {
  return key.replace(/[_ ]+([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/**
 * Deep snake_case -> camelCase of the client's normalized records. Free-form objects (`opaque` keys, e.g. a
 * graph node's `data` and `style`) are copied as the API sent them.
 */
function camelize(value: unknown, opaque: ReadonlySet<string> = new Set()): unknown {
  if (Array.isArray(value)) return value.map((v) => camelize(v, opaque));
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [camelKey(k), opaque.has(k) ? v : camelize(v, opaque)]),
    );
  }
  return value;
}

/**
 * Marks an error whose message is the whole story (a wrong argument, a lookup that found nothing, missing config, the
 * API's answer) the way Pulumi marks its own RunError: the language runtime then prints the message alone. Its stack
 * goes too: the runtime still formats every uncaught error with util.inspect in colour (for its tracing span), and a
 * failure inside an Output (every `get…Output` lookup) has a frame Pulumi's source map names
 * `node_modules/@pulumi/output.ts`, on which Node 20.20's inspect loops until the string overflows: the program's
 * one-line error took 100-150 s and gigabytes of memory to appear. The frames only pointed into this package.
 */
function reportAsMessage(error: unknown): unknown {
  // (RunError.isInstance is a type guard, and a RunError is an Error: its negation would narrow `error` to never)
  if (error instanceof Error && !pulumi.RunError.isInstance(error as unknown)) {
    const text = `${error.name}: ${error.message}`;
    // (kept for a debugger or a bug report: `error.originalStack`)
    Object.defineProperty(error, "originalStack", { value: error.stack, enumerable: false });
    Object.defineProperty(error, "__pulumiRunError", { value: true, enumerable: false });
    Object.defineProperty(error, "stack", { value: text, writable: true, configurable: true, enumerable: false });
  }
  return error;
}

async function invoke<N extends FunctionName>(
  name: N,
  args: unknown,
  options: FunctionOptions | undefined,
  run: (client: VmHostClient, args: ParsedArgs<N>) => Promise<unknown>,
): Promise<Result<N>> {
  try {
    return await invokeChecked(name, args, options, run);
  } catch (error) {
    // Every failure names the program's call (an API failure named only its route, "listSystems (GET /systems)", which a
    // program calling getOsTemplateOutput never wrote; new-user audit)
    if (error instanceof Error && !pulumi.RunError.isInstance(error as unknown) && !Object.hasOwn(registry.functionSchemas, error.message.split(": ")[0]!))
      error.message = `${name}: ${error.message}`;
    throw reportAsMessage(error);
  }
}

async function invokeChecked<N extends FunctionName>(
  name: N,
  args: unknown,
  options: FunctionOptions | undefined,
  run: (client: VmHostClient, args: ParsedArgs<N>) => Promise<unknown>,
): Promise<Result<N>> {
  const schema = registry.functionSchemas[name];
  const parsed = schema.args.safeParse(args ?? {}, { reportInput: true }); // (the value seen: a wrong type is not "required")
  if (!parsed.success) {
    // the same wording as resource checks: the argument's own name (nested path included) and the fix,
    // never zod's generic text
    const problems = check.issueFailures(parsed.error.issues, schema.args, name).map((f) =>
      f.reason.startsWith(f.property) || f.property === "(inputs)" ? f.reason : `${f.property}: ${f.reason}`,
    );
    throw new FunctionArgumentError(`${name}: ${problems.join("; ")}`);
  }
  const client = api.createClient(functionClientOptions(options));
  const raw = await run(client, parsed.data as ParsedArgs<N>);
  const result = schema.result.safeParse(raw);
  if (!result.success) {
    // The client already validated the wire format; a mismatch here is a bug in this mapping.
    throw new Error(`${name}: unexpected result shape (please report): ${result.error.message}`);
  }
  return result.data as Result<N>;
}

/** Turns a plain function into its Output form (arguments may be Pulumi inputs, e.g. `instance.id`). */
function outputForm<A extends object, R>(fn: (args: A, options?: FunctionOptions) => Promise<R>) {
  return (args: { [K in keyof A]: pulumi.Input<A[K]> }, options?: FunctionOptions): pulumi.Output<R> =>
    pulumi.output(args).apply((plain) => fn(plain as unknown as A, options)) as unknown as pulumi.Output<R>;
}

// ------------------------------------------------------------------------------------------------ catalog

/** Result of {@link getSizeTemplates}. */
export type GetSizeTemplatesResult = Result<"getSizeTemplates">;
/**
 * Lists the instance size templates (CPU count, memory and storage in GB).
 * @example
 * export = async () => {
 *   const { templates } = await vmhost.getSizeTemplates();
 *   const small = templates.find((t) => t.totalRam === 1);
 * };
 */
export function getSizeTemplates(args: Args<"getSizeTemplates"> = {}, options?: FunctionOptions): Promise<GetSizeTemplatesResult> {
  return invoke("getSizeTemplates", args, options, async (c) => ({ templates: camelize(await c.catalog.sizeTemplates()) }));
}

/** A lookup by name found nothing: the message lists what exists and the function that lists it. */
function notFound(fn: string, what: string, wanted: string, valid: string[], lister: string): FunctionArgumentError {
  return new FunctionArgumentError(
    `${fn}: no ${what} ${wanted} on this host; ${valid.length ? `valid: ${valid.join(", ")}` : "the host lists none"} (${lister} lists them)`,
  );
}

const sameName = (a: string | null | undefined, b: string | undefined) =>
  a !== null && a !== undefined && b !== undefined && a.trim().toLowerCase() === b.trim().toLowerCase();

const nullableText = (v: unknown): string | null => (typeof v === "string" && v.trim() !== "" ? v : null);
const nullableNumber = (v: unknown): number | null =>
  typeof v === "number" && Number.isFinite(v) ? v : typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v)) ? Number(v) : null;

async function readLocations(c: VmHostClient) {
  const records = await c.catalog.locations();
  return preflight.locationsOf(records).map((l, i) => {
    const r = records[i] as Record<string, unknown>;
    return { id: l.id, name: l.name, code: nullableText(r.code), country: nullableText(r.country) };
  });
}

async function readTiers(c: VmHostClient) {
  const records = await c.catalog.tiers();
  return preflight.tiersOf(records).map((t, i) => {
    const r = records[i] as Record<string, unknown>;
    const price = (r.price && typeof r.price === "object" ? r.price : {}) as Record<string, unknown>;
    return {
      id: t.id,
      name: t.name,
      description: nullableText(r.description),
      dedicatedCpuAvailable: t.dedicatedCpuAvailable ?? null,
      prices: {
        cpuPerHour: nullableNumber(price.cpu_per_hour),
        dedicatedCpuPerHour: nullableNumber(price.dedicated_cpu_per_hour),
        memoryPerGbHour: nullableNumber(price.memory_per_gb_hour),
        storagePerGbHour: nullableNumber(price.storage_per_gb_hour),
        snapshotPerGbHour: nullableNumber(price.snapshot_per_gb_hour),
        backupPerGbHour: nullableNumber(price.backup_per_gb_hour),
      },
    };
  });
}

async function readTemplates(c: VmHostClient) {
  return preflight.templatesOf(await c.catalog.systems()).map((t) => ({
    id: t.id, name: t.name, version: t.version ?? null, minCpu: t.minCpu ?? null, minMemory: t.minMemory ?? null, minStorage: t.minStorage ?? null,
  }));
}

async function readBlockStorages(c: VmHostClient, filter: { locationId?: number; name?: string }) {
  const [disks, locations] = await Promise.all([c.storage.list(), readLocations(c)]);
  const rows = disks.map((d) => {
    const locationName = d.location?.name ?? null;
    const locationId = d.location?.id ?? locations.find((l) => sameName(l.name, locationName ?? undefined))?.id ?? null;
    return {
      id: String(d.id), name: d.name, size: d.size, status: d.status, locationId, location: locationName,
      attachedInstanceId: d.attached_instance_uuid === null ? null : String(d.attached_instance_uuid),
      attachedInstanceHostname: d.attached_instance_hostname,
    };
  });
  return rows.filter((r) => (filter.locationId === undefined || r.locationId === filter.locationId) && (filter.name === undefined || sameName(r.name, filter.name)));
}

/** Result of {@link getLocations}. */
export type GetLocationsResult = Result<"getLocations">;
/**
 * Lists the host's data-centre locations (the valid Instance `locationId` values).
 * @example
 * export = async () => {
 *   const { locations } = await vmhost.getLocations();
 * };
 */
export function getLocations(args: Args<"getLocations"> = {}, options?: FunctionOptions): Promise<GetLocationsResult> {
  return invoke("getLocations", args, options, async (c) => ({ locations: await readLocations(c) }));
}

/** Arguments of {@link getLocation}. */
export type GetLocationArgs = Args<"getLocation">;
/** Result of {@link getLocation}. */
export type GetLocationResult = Result<"getLocation">;
/**
 * Finds one location by name (case-insensitive) or id; fails listing the valid names when none matches.
 * @example
 * const jakarta = vmhost.getLocationOutput({ name: "Jakarta" });
 * export const locationId = jakarta.id; // an Instance's locationId
 */
export function getLocation(args: GetLocationArgs, options?: FunctionOptions): Promise<GetLocationResult> {
  return invoke("getLocation", args, options, async (c, a) => {
    const all = await readLocations(c);
    const hit = all.find((l) => (a.id === undefined || l.id === a.id) && (a.name === undefined || sameName(l.name, a.name)));
    if (!hit) throw notFound("getLocation", "location", a.name !== undefined ? JSON.stringify(a.name) : String(a.id), all.map((l) => `${l.name} (${l.id})`), "getLocations");
    return hit;
  });
}
/** {@link getLocation} taking Pulumi inputs; its result's properties are Outputs (`jakarta.id`). */
export const getLocationOutput = outputForm(getLocation);

/** Result of {@link getTiers}. */
export type GetTiersResult = Result<"getTiers">;
/**
 * Lists the price tiers with what each offers (dedicated CPUs, prices per hour).
 * @example
 * export = async () => {
 *   const { tiers } = await vmhost.getTiers();
 *   const dedicated = tiers.filter((t) => t.dedicatedCpuAvailable);
 * };
 */
export function getTiers(args: Args<"getTiers"> = {}, options?: FunctionOptions): Promise<GetTiersResult> {
  return invoke("getTiers", args, options, async (c) => ({ tiers: await readTiers(c) }));
}

/** Arguments of {@link getTier}. */
export type GetTierArgs = Args<"getTier">;
/** Result of {@link getTier}. */
export type GetTierResult = Result<"getTier">;
/**
 * Finds one tier by name (case-insensitive) or id; fails listing the valid names when none matches.
 * @example
 * export = async () => {
 *   const premium = await vmhost.getTier({ name: "Premium" });
 * };
 */
export function getTier(args: GetTierArgs, options?: FunctionOptions): Promise<GetTierResult> {
  return invoke("getTier", args, options, async (c, a) => {
    const all = await readTiers(c);
    const hit = all.find((t) => (a.id === undefined || t.id === a.id) && (a.name === undefined || sameName(t.name, a.name)));
    if (!hit) throw notFound("getTier", "tier", a.name !== undefined ? JSON.stringify(a.name) : String(a.id), all.map((t) => `${t.name} (${t.id})`), "getTiers");
    return hit;
  });
}
/** {@link getTier} taking Pulumi inputs. */
export const getTierOutput = outputForm(getTier);

/** Result of {@link getOsTemplates}. */
export type GetOsTemplatesResult = Result<"getOsTemplates">;
/**
 * Lists the OS templates with their minimum cpu, memory and storage.
 * @example
 * export = async () => {
 *   const { templates } = await vmhost.getOsTemplates();
 * };
 */
export function getOsTemplates(args: Args<"getOsTemplates"> = {}, options?: FunctionOptions): Promise<GetOsTemplatesResult> {
  return invoke("getOsTemplates", args, options, async (c) => ({ templates: await readTemplates(c) }));
}

/** Arguments of {@link getOsTemplate}. */
export type GetOsTemplateArgs = Args<"getOsTemplate">;
/** Result of {@link getOsTemplate}. */
export type GetOsTemplateResult = Result<"getOsTemplate">;
/**
 * Finds one OS template by name and version (or id). Without a version the name must have one template.
 * @example
 * const ubuntu = vmhost.getOsTemplateOutput({ name: "Ubuntu", version: "22.04" });
 */
export function getOsTemplate(args: GetOsTemplateArgs, options?: FunctionOptions): Promise<GetOsTemplateResult> {
  return invoke("getOsTemplate", args, options, async (c, a) => {
    const all = await readTemplates(c);
    const label = (t: { name: string; version: string | null; id: number }) => `${t.name}${t.version ? ` ${t.version}` : ""} (${t.id})`;
    const hits = all.filter(
      (t) => (a.id === undefined || t.id === a.id) && (a.name === undefined || sameName(t.name, a.name)) && (a.version === undefined || sameName(t.version, a.version)),
    );
    const wanted = a.name !== undefined ? `${JSON.stringify(a.name)}${a.version ? ` version ${JSON.stringify(a.version)}` : ""}` : String(a.id);
    if (hits.length === 0) throw notFound("getOsTemplate", "OS template", wanted, all.map(label), "getOsTemplates");
    if (hits.length > 1)
      throw new FunctionArgumentError(`getOsTemplate: ${wanted} names ${hits.length} templates (${hits.map(label).join(", ")}): give version too`);
    return hits[0]!;
  });
}
/** {@link getOsTemplate} taking Pulumi inputs. */
export const getOsTemplateOutput = outputForm(getOsTemplate);

// ---------------------------------------------------------------------------------------------- instances

/** Arguments of {@link getInstances}. */
export type GetInstancesArgs = Args<"getInstances">;
/** Result of {@link getInstances}. */
export type GetInstancesResult = Result<"getInstances">;
/**
 * Lists the account's instances, every page, optionally filtered by hostname text or statuses.
 * @example
 * export = async () => {
 *   const { instances } = await vmhost.getInstances({ statuses: ["Running"] });
 *   return { running: instances.map((i) => i.hostname) };
 * };
 */
export function getInstances(args: GetInstancesArgs = {}, options?: FunctionOptions): Promise<GetInstancesResult> {
  return invoke("getInstances", args, options, async (c, a) => ({
    instances: camelize(await c.instances.listAll({ search: a.search, statuses: a.statuses, sort: a.sort })),
  }));
}
/** {@link getInstances} taking Pulumi inputs. */
export const getInstancesOutput = outputForm(getInstances);

/** Arguments of {@link getInstance}. */
export type GetInstanceArgs = Args<"getInstance">;
/** Result of {@link getInstance}. */
export type GetInstanceResult = Result<"getInstance">;
/**
 * Reads one instance's details (sizes in GB, dates ISO 8601 UTC, no public address = `publicIp: null`).
 * @example
 * export = async () => {
 *   const web = await vmhost.getInstance({ instanceId: "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab" });
 *   console.log(web.status, web.publicIp?.ipAddress);
 * };
 */
export function getInstance(args: GetInstanceArgs, options?: FunctionOptions): Promise<GetInstanceResult> {
  return invoke("getInstance", args, options, async (c, a) => camelize(await c.instances.get(a.instanceId)));
}
/** {@link getInstance} taking Pulumi inputs. @example const detail = vmhost.getInstanceOutput({ instanceId: web.id }); */
export const getInstanceOutput = outputForm(getInstance);

/** Arguments of {@link getInstanceMetrics}. */
export type GetInstanceMetricsArgs = Args<"getInstanceMetrics">;
/** Result of {@link getInstanceMetrics}. */
export type GetInstanceMetricsResult = Result<"getInstanceMetrics">;
/**
 * Reads an instance's CPU (percent), memory (GB), network and disk series for a period. The last point
 * of each series is an in-progress bucket.
 * @example
 * export = async () => {
 *   const m = await vmhost.getInstanceMetrics({ instanceId: "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab", period: "hour" });
 *   const peakCpu = Math.max(...m.cpu.map((p) => p.cpu));
 * };
 */
export function getInstanceMetrics(args: GetInstanceMetricsArgs, options?: FunctionOptions): Promise<GetInstanceMetricsResult> {
  return invoke("getInstanceMetrics", args, options, async (c, a) => camelize(await c.instances.metrics(a.instanceId, { period: a.period })));
}
/** {@link getInstanceMetrics} taking Pulumi inputs. */
export const getInstanceMetricsOutput = outputForm(getInstanceMetrics);

/** Arguments of {@link getChangeTierCost}. */
export type GetChangeTierCostArgs = Args<"getChangeTierCost">;
/** Result of {@link getChangeTierCost}. */
export type GetChangeTierCostResult = Result<"getChangeTierCost">;
/**
 * Estimates the monthly cost of moving an instance to another tier.
 * @example
 * export = async () => {
 *   const cost = await vmhost.getChangeTierCost({ instanceId: "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab", tierId: 3 });
 *   const extra = cost.estimatedNewMonthlyCost - cost.currentMonthlyCost;
 * };
 */
export function getChangeTierCost(args: GetChangeTierCostArgs, options?: FunctionOptions): Promise<GetChangeTierCostResult> {
  return invoke("getChangeTierCost", args, options, async (c, a) => camelize(await c.instances.changeTierCost(a.instanceId, { tierId: a.tierId })));
}
/** {@link getChangeTierCost} taking Pulumi inputs. */
export const getChangeTierCostOutput = outputForm(getChangeTierCost);

/** Arguments of {@link getInstancesWithoutPublicIp}. */
export type GetInstancesWithoutPublicIpArgs = Args<"getInstancesWithoutPublicIp">;
/** Result of {@link getInstancesWithoutPublicIp}. */
export type GetInstancesWithoutPublicIpResult = Result<"getInstancesWithoutPublicIp">;
/**
 * Lists the instances of a location without a public address.
 * @example
 * export = async () => {
 *   const { instances } = await vmhost.getInstancesWithoutPublicIp({ locationId: 1 });
 * };
 */
export function getInstancesWithoutPublicIp(
  args: GetInstancesWithoutPublicIpArgs,
  options?: FunctionOptions,
): Promise<GetInstancesWithoutPublicIpResult> {
  return invoke("getInstancesWithoutPublicIp", args, options, async (c, a) => ({
    instances: camelize(await c.network.listInstancesWithoutPublicIp({ locationId: a.locationId })),
  }));
}
/** {@link getInstancesWithoutPublicIp} taking Pulumi inputs. */
export const getInstancesWithoutPublicIpOutput = outputForm(getInstancesWithoutPublicIp);

// ----------------------------------------------------------------------------------------------- network

/** Result of {@link getVswitches}. */
export type GetVswitchesResult = Result<"getVswitches">;
/**
 * Lists the account's private networks (vswitches).
 * @example
 * export = async () => {
 *   const { vswitches } = await vmhost.getVswitches();
 *   const backend = vswitches.find((v) => v.name === "backend");
 * };
 */
export function getVswitches(args: Args<"getVswitches"> = {}, options?: FunctionOptions): Promise<GetVswitchesResult> {
  return invoke("getVswitches", args, options, async (c) => ({ vswitches: camelize(await c.network.listVswitches()) }));
}

/** Arguments of {@link getVswitchOptions}. */
export type GetVswitchOptionsArgs = Args<"getVswitchOptions">;
/** Result of {@link getVswitchOptions}. */
export type GetVswitchOptionsResult = Result<"getVswitchOptions">;
/**
 * Lists the private networks an instance in a location can join.
 * @example
 * export = async () => {
 *   const { vswitches } = await vmhost.getVswitchOptions({ locationId: 1 });
 * };
 */
export function getVswitchOptions(args: GetVswitchOptionsArgs, options?: FunctionOptions): Promise<GetVswitchOptionsResult> {
  return invoke("getVswitchOptions", args, options, async (c, a) => ({
    vswitches: camelize(await c.network.listVswitchOptions({ locationId: a.locationId })),
  }));
}
/** {@link getVswitchOptions} taking Pulumi inputs. */
export const getVswitchOptionsOutput = outputForm(getVswitchOptions);

/** Arguments of {@link getVswitch}. */
export type GetVswitchArgs = Args<"getVswitch">;
/** Result of {@link getVswitch}. */
export type GetVswitchResult = Result<"getVswitch">;
/**
 * Reads one private network's details.
 * @example
 * export = async () => {
 *   const net = await vmhost.getVswitch({ vswitchId: "0b7e9c1d-2f3a-4b5c-8d6e-7f8091a2b3c4" });
 *   return { activeInstances: net.totalActiveInstance };
 * };
 */
export function getVswitch(args: GetVswitchArgs, options?: FunctionOptions): Promise<GetVswitchResult> {
  return invoke("getVswitch", args, options, async (c, a) => camelize(await c.network.getVswitch(a.vswitchId)));
}
/** {@link getVswitch} taking Pulumi inputs. */
export const getVswitchOutput = outputForm(getVswitch);

/** Arguments of {@link getVswitchGraph}. */
export type GetVswitchGraphArgs = Args<"getVswitchGraph">;
/** Result of {@link getVswitchGraph}. */
export type GetVswitchGraphResult = Result<"getVswitchGraph">;
/**
 * Reads a private network's topology graph (nodes and edges as the panel draws them). The route takes the network's
 * integer id (api-spec.md §4.4), not its uuid: pass its `tag`.
 * @example
 * export = async () => {
 *   const net = await vmhost.getVswitch({ vswitchId: "0b7e9c1d-2f3a-4b5c-8d6e-7f8091a2b3c4" });
 *   const graph = await vmhost.getVswitchGraph({ vswitchId: net.tag });
 *   const members = graph.nodes.length;
 * };
 */
export function getVswitchGraph(args: GetVswitchGraphArgs, options?: FunctionOptions): Promise<GetVswitchGraphResult> {
  return invoke("getVswitchGraph", args, options, async (c, a) => {
    try {
      // node `data` and `style` are free-form panel objects: passed through as sent
      return camelize(await c.network.getVswitchGraph(a.vswitchId), new Set(["data", "style"]));
    } catch (error) {
      // A uuid where the spec types an integer: the host's refusal alone ("not found") does not say why.
      if (typeof a.vswitchId === "string" && !/^\d+$/.test(a.vswitchId.trim()) && error instanceof api.ApiError && [400, 404, 422].includes(error.status ?? 0))
        throw new Error(
          `${error.message} vswitchId: this route takes the private network's integer id (api-spec.md §4.4), not its uuid: ` +
            "pass its `tag` (getVswitches or getVswitch list it).",
          { cause: error },
        );
      throw error;
    }
  });
}
/** {@link getVswitchGraph} taking Pulumi inputs. */
export const getVswitchGraphOutput = outputForm(getVswitchGraph);

// ----------------------------------------------------------------------------------------------- storage

/** Arguments of {@link getBlockStorageOptions}. */
export type GetBlockStorageOptionsArgs = Args<"getBlockStorageOptions">;
/** Result of {@link getBlockStorageOptions}. */
export type GetBlockStorageOptionsResult = Result<"getBlockStorageOptions">;
/**
 * Lists the block storages of a location not attached to any instance (sizes in GB).
 * @example
 * export = async () => {
 *   const { blockStorages } = await vmhost.getBlockStorageOptions({ locationId: 1 });
 * };
 */
export function getBlockStorageOptions(args: GetBlockStorageOptionsArgs, options?: FunctionOptions): Promise<GetBlockStorageOptionsResult> {
  return invoke("getBlockStorageOptions", args, options, async (c, a) => ({
    blockStorages: camelize(await c.storage.listOptions({ locationId: a.locationId })),
  }));
}
/** {@link getBlockStorageOptions} taking Pulumi inputs. */
export const getBlockStorageOptionsOutput = outputForm(getBlockStorageOptions);

/** Arguments of {@link getBlockStorages}. */
export type GetBlockStoragesArgs = Args<"getBlockStorages">;
/** Result of {@link getBlockStorages}. */
export type GetBlockStoragesResult = Result<"getBlockStorages">;
/**
 * Lists the account's block storages, attached or not, with their location and instance; optionally only
 * those of a location or with a name.
 * @example
 * export = async () => {
 *   const { blockStorages } = await vmhost.getBlockStorages({ locationId: 1 });
 * };
 */
export function getBlockStorages(args: GetBlockStoragesArgs = {}, options?: FunctionOptions): Promise<GetBlockStoragesResult> {
  return invoke("getBlockStorages", args, options, async (c, a) => ({ blockStorages: await readBlockStorages(c, a) }));
}
/** {@link getBlockStorages} taking Pulumi inputs. */
export const getBlockStoragesOutput = outputForm(getBlockStorages);

/** Arguments of {@link getBlockStorage}. */
export type GetBlockStorageArgs = Args<"getBlockStorage">;
/** Result of {@link getBlockStorage}. */
export type GetBlockStorageResult = Result<"getBlockStorage">;
/**
 * Finds one block storage by name, attached or not (the same disk on every run, also once attached).
 * @example
 * const data = vmhost.getBlockStorageOutput({ name: "jkt-data-50" });
 * new vmhost.BlockStorageAttachment("data", { blockStorageId: data.id, instanceId: vm.id });
 */
export function getBlockStorage(args: GetBlockStorageArgs, options?: FunctionOptions): Promise<GetBlockStorageResult> {
  return invoke("getBlockStorage", args, options, async (c, a) => {
    const hits = await readBlockStorages(c, a);
    if (hits.length === 1) return hits[0]!;
    if (hits.length > 1)
      throw new FunctionArgumentError(
        `getBlockStorage: ${hits.length} block storages are named ${JSON.stringify(a.name)} (${hits.map((h) => `${h.id} in ${h.location ?? "?"}`).join(", ")}): give locationId too, or use the id`,
      );
    const all = await readBlockStorages(c, { locationId: a.locationId });
    throw notFound("getBlockStorage", "block storage", JSON.stringify(a.name), all.map((d) => d.name), "getBlockStorages");
  });
}
/** {@link getBlockStorage} taking Pulumi inputs. */
export const getBlockStorageOutput = outputForm(getBlockStorage);

/** Arguments of {@link getFirewallRules}. */
export type GetFirewallRulesArgs = Args<"getFirewallRules">;
/** Result of {@link getFirewallRules}. */
export type GetFirewallRulesResult = Result<"getFirewallRules">;
/**
 * Lists the rules of an instance's firewall (every page), e.g. to find the id to adopt.
 * @example
 * export = async () => {
 *   const { rules } = await vmhost.getFirewallRules({ instanceId: "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab" });
 * };
 */
export function getFirewallRules(args: GetFirewallRulesArgs, options?: FunctionOptions): Promise<GetFirewallRulesResult> {
  return invoke("getFirewallRules", args, options, async (c, a) => ({
    rules: (await c.firewall.listAllRules(a.instanceId)).map((r) => ({
      id: r.id,
      protocol: r.protocol,
      port: r.destination_port,
      sourceIp: r.source_ip,
      action: r.action === "A" ? "accept" : r.action === "D" ? "drop" : r.action,
      description: r.description,
    })),
  }));
}
/** {@link getFirewallRules} taking Pulumi inputs. */
export const getFirewallRulesOutput = outputForm(getFirewallRules);

// ------------------------------------------------------------------------------------ snapshots, backups

/** Arguments of {@link getSnapshots}. */
export type GetSnapshotsArgs = Args<"getSnapshots">;
/** Result of {@link getSnapshots}. */
export type GetSnapshotsResult = Result<"getSnapshots">;
/**
 * Lists an instance's snapshots.
 * @example
 * export = async () => {
 *   const { snapshots } = await vmhost.getSnapshots({ instanceId: "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab" });
 *   const ready = snapshots.filter((s) => s.status === "Ready");
 * };
 */
export function getSnapshots(args: GetSnapshotsArgs, options?: FunctionOptions): Promise<GetSnapshotsResult> {
  return invoke("getSnapshots", args, options, async (c, a) => ({ snapshots: camelize(await c.snapshots.list(a.instanceId)) }));
}
/** {@link getSnapshots} taking Pulumi inputs. @example const snaps = vmhost.getSnapshotsOutput({ instanceId: web.id }); */
export const getSnapshotsOutput = outputForm(getSnapshots);

/** Arguments of {@link getSnapshotPrice}. */
export type GetSnapshotPriceArgs = Args<"getSnapshotPrice">;
/** Result of {@link getSnapshotPrice}. */
export type GetSnapshotPriceResult = Result<"getSnapshotPrice">;
/**
 * Estimates the monthly price of a snapshot of an instance at a tier.
 * @example
 * export = async () => {
 *   const { pricePerMonth } = await vmhost.getSnapshotPrice({ instanceId: "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab", tierId: 2 });
 * };
 */
export function getSnapshotPrice(args: GetSnapshotPriceArgs, options?: FunctionOptions): Promise<GetSnapshotPriceResult> {
  return invoke("getSnapshotPrice", args, options, async (c, a) => camelize(await c.snapshots.price(a.instanceId, { tierId: a.tierId })));
}
/** {@link getSnapshotPrice} taking Pulumi inputs. */
export const getSnapshotPriceOutput = outputForm(getSnapshotPrice);

/** Arguments of {@link getBackupPrice}. */
export type GetBackupPriceArgs = Args<"getBackupPrice">;
/** Result of {@link getBackupPrice}. */
export type GetBackupPriceResult = Result<"getBackupPrice">;
/**
 * Estimates the price of backups of an instance at a tier.
 * @example
 * export = async () => {
 *   const price = await vmhost.getBackupPrice({ instanceId: "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab", tierId: 2 });
 * };
 */
export function getBackupPrice(args: GetBackupPriceArgs, options?: FunctionOptions): Promise<GetBackupPriceResult> {
  return invoke("getBackupPrice", args, options, async (c, a) => camelize(await c.backups.price(a.instanceId, { tierId: a.tierId })));
}
/** {@link getBackupPrice} taking Pulumi inputs. */
export const getBackupPriceOutput = outputForm(getBackupPrice);

/** Arguments of {@link getBackups}. */
export type GetBackupsArgs = Args<"getBackups">;
/** Result of {@link getBackups}. */
export type GetBackupsResult = Result<"getBackups">;
/**
 * Lists an instance's backups (every page).
 * @example
 * export = async () => {
 *   const { backups } = await vmhost.getBackups({ instanceId: "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab" });
 * };
 */
export function getBackups(args: GetBackupsArgs, options?: FunctionOptions): Promise<GetBackupsResult> {
  return invoke("getBackups", args, options, async (c, a) => ({ backups: camelize(await c.backups.listAll(a.instanceId)) }));
}
/** {@link getBackups} taking Pulumi inputs. */
export const getBackupsOutput = outputForm(getBackups);

/** Arguments of {@link rollbackSnapshot}. */
export type RollbackSnapshotArgs = Args<"rollbackSnapshot">;
/** Result of {@link rollbackSnapshot}. */
export type RollbackSnapshotResult = Result<"rollbackSnapshot">;
/**
 * An ACTION: rolls an instance back to one of its snapshots and waits until the instance is idle again.
 *
 * The rollback leaves the instance STOPPED. An `Instance` declared with `powerState: "running"` starts it
 * on the next `pulumi up --refresh` (a plain up compares with the state, which learns of the stop only from a
 * refresh), or start it yourself. A Pulumi program runs on every preview and up, so guard
 * the call so it runs once (e.g. behind a config value you set for one run); during a preview it does
 * nothing and returns `performed: false`. The call waits for the instance to be idle first and retries a
 * "busy" answer, like every operation of this package on an instance.
 *
 * @example
 * export = async () => {
 *   const rollbackTo = new pulumi.Config().get("rollbackTo"); // a snapshot uuid, set for one run
 *   if (rollbackTo) {
 *     await vmhost.rollbackSnapshot({ instanceId: "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab", snapshotId: rollbackTo });
 *   }
 * };
 */
export function rollbackSnapshot(args: RollbackSnapshotArgs, options?: FunctionOptions): Promise<RollbackSnapshotResult> {
  return invoke("rollbackSnapshot", args, options, async (c, a) => {
    // (checked before the preview's early answer: a bad timeout shows at preview, not first at up)
    const timeoutMs = a.timeout === undefined ? 20 * 60_000 : parseWaitDuration(a.timeout);
    if (!timeoutMs) throw new FunctionArgumentError(`rollbackSnapshot: timeout must be a duration like "20m", ${WAIT_LIMITS_TEXT}, got ${JSON.stringify(a.timeout)}`);
    if (pulumi.runtime.isDryRun()) {
      return { performed: false, instanceId: a.instanceId, snapshotId: a.snapshotId, status: null };
    }
    const what = `rollback of instance ${a.instanceId} to snapshot ${a.snapshotId}`;
    const deadline = new Deadline(timeoutMs);
    const isCurrent = async () =>
      (await c.snapshots.list(a.instanceId)).some((s) => s.id.toLowerCase() === a.snapshotId.toLowerCase() && s.is_current_state);
    let before: { status: string; current: boolean } | undefined;
    let sentAt = 0;
    const rollback = () =>
      instanceWait.runInstanceOperation(c, a.instanceId, { what, deadline }, async (idle) => {
        before = { status: idle.status, current: await isCurrent() };
        sentAt = systemClock.now();
        return c.snapshots.rollback(a.instanceId, a.snapshotId);
      });
    try {
      const { detail } = await rollback();
      return { performed: true, instanceId: a.instanceId, snapshotId: a.snapshotId, status: detail.status };
    } catch (e) {
      if (!(e instanceof api.AmbiguousRequestError) || !before) throw e;
      // Sent once (routes.ts: a repeated rollback runs again, the VM down a second time). Whether it ran, once the
      // instance is idle: the snapshot became the current state, or a running VM was left stopped on it (a
      // rollback ends stopped). Otherwise it is sent again; where it cannot be told (a stopped VM already on that
      // snapshot) a second rollback costs no downtime.
      const { status: was, current: wasCurrent } = before;
      const ran = async (): Promise<string | undefined> => {
        const settled = await instanceWait.waitForInstanceSettled(c, a.instanceId, { what, deadline });
        const nowCurrent = await isCurrent();
        return nowCurrent && (!wasCurrent || (instanceModel.powerStateOf(was) === "running" && instanceModel.powerStateOf(settled.status) === "stopped")) ? settled.status : undefined;
      };
      let status = await ran();
      if (status !== undefined) return { performed: true, instanceId: a.instanceId, snapshotId: a.snapshotId, status };
      // No trace yet: a request that hung before failing may still be held by a gateway or the backend and be carried out
      // later (update audit: sent again at once, the held one ran after the resend, two rollbacks). Looked at again as
      // long after the failure as it hung (up to vmhost:requestTimeout, at least a second), as a create or a resize is.
      const inFlightMs = Math.min(systemClock.now() - sentAt, c.requestTimeoutMs);
      await systemClock.sleep(Math.min(Math.max(1_000, inFlightMs), deadline.remainingMs()));
      status = await ran();
      if (status !== undefined) return { performed: true, instanceId: a.instanceId, snapshotId: a.snapshotId, status };
      const { detail } = await rollback();
      return { performed: true, instanceId: a.instanceId, snapshotId: a.snapshotId, status: detail.status };
    }
  });
}

// ----------------------------------------------------------------------------------------------- billing

/** Arguments of {@link getPaymentMethods}. */
export type GetPaymentMethodsArgs = Args<"getPaymentMethods">;
/** Result of {@link getPaymentMethods}. */
export type GetPaymentMethodsResult = Result<"getPaymentMethods">;
/**
 * Lists the top-up payment methods with their fees, flattened across categories (bank, card, ritel, ewallet, qris).
 * @example
 * export = async () => {
 *   const { methods } = await vmhost.getPaymentMethods({ amount: 100000 });
 *   const qris = methods.filter((m) => m.category === "qris");
 * };
 */
export function getPaymentMethods(args: GetPaymentMethodsArgs = {}, options?: FunctionOptions): Promise<GetPaymentMethodsResult> {
  return invoke("getPaymentMethods", args, options, async (c, a) => {
    const byCategory = await c.billing.paymentMethods({ amount: a.amount });
    return {
      methods: Object.entries(byCategory).flatMap(([category, methods]) => methods.map((m) => ({ category, ...(camelize(m) as object) }))),
    };
  });
}
/** {@link getPaymentMethods} taking Pulumi inputs. */
export const getPaymentMethodsOutput = outputForm(getPaymentMethods);

/** Arguments of {@link getCreditHistory}. */
export type GetCreditHistoryArgs = Args<"getCreditHistory">;
/** Result of {@link getCreditHistory}. */
export type GetCreditHistoryResult = Result<"getCreditHistory">;
/**
 * Lists credit transactions (every page), optionally between two dates (YYYY-MM-DD) and of one kind.
 * Amounts are numbers of rupiah.
 * @example
 * export = async () => {
 *   const { entries } = await vmhost.getCreditHistory({ start: "2024-08-01", end: "2024-08-31", type: "deduction" });
 * };
 */
export function getCreditHistory(args: GetCreditHistoryArgs = {}, options?: FunctionOptions): Promise<GetCreditHistoryResult> {
  return invoke("getCreditHistory", args, options, async (c, a) => ({
    entries: camelize(
      await c.billing.creditHistoryAll({
        start: a.start,
        end: a.end,
        type: a.type === undefined ? undefined : a.type === "addition" ? "A" : "D",
      }),
    ),
  }));
}
/** {@link getCreditHistory} taking Pulumi inputs. */
export const getCreditHistoryOutput = outputForm(getCreditHistory);

/** Arguments of {@link getBillingReport}. */
export type GetBillingReportArgs = Args<"getBillingReport">;
/** Result of {@link getBillingReport}. */
export type GetBillingReportResult = Result<"getBillingReport">;
/**
 * Reads the billing report of one billing date (YYYY-MM-DD).
 * @example
 * export = async () => {
 *   const report = await vmhost.getBillingReport({ date: "2024-08-01" });
 *   return { total: report.total };
 * };
 */
export function getBillingReport(args: GetBillingReportArgs, options?: FunctionOptions): Promise<GetBillingReportResult> {
  return invoke("getBillingReport", args, options, async (c, a) => camelize(await c.billing.report(a.date)));
}
/** {@link getBillingReport} taking Pulumi inputs. */
export const getBillingReportOutput = outputForm(getBillingReport);
