/**
 * Preview-time checks: what can be known before any write, found during `pulumi preview` instead of
 * half-way through `pulumi up`.
 *
 * Pulumi calls a provider's `check` during preview and during up, before any create or update (the engine's
 * step generator checks every registered resource first: pulumi/pulumi
 * `pkg/resource/deploy/step_generator.go`, `generateSteps` -> `prov.Check`). `check` may read, never write.
 * So, after the schema check passed, {@link withPreviewChecks} adds:
 * - the account: the API key and the base URL, by one documented read (`listSizeTemplates`): a 401/403
 *   means the key is rejected; a 404 or an answer that is not the API means the base URL is wrong (with
 *   "did you mean …/v1" when it lacks the version segment). This one fails the check with an error, since
 *   it is no input's fault;
 * - the catalogue: unknown location, tier and OS template ids (listing the valid ones and the function that
 *   lists them), every template minimum at once, dedicated CPUs on a tier without them, a private network
 *   of another location;
 * - for the attachments, a block storage or private network of another location than its instance;
 * - for a new resource with `adoptId`, what its create would refuse to adopt: an object that is not there or not as
 *   declared (each resource's own rule: {@link AdoptionCheck}), a VM with dedicated CPUs onto a tier without them.
 * What an update would refuse before any write (a smaller disk, a tier without the VM's dedicated CPUs, a snapshot
 * renamed in the panel) is refused by the resource's Diff, which preview calls too (common/refresh-diffs.ts); two
 * attachments that cannot both hold, at their Check (common/attachment-owners.ts); two new Instances of one hostname in
 * one location, here (what each check noted, per deployment: forgetPreviewNotes).
 *
 * Cost: the account read and the catalogue (locations, tiers, systems, private networks) are read ONCE per
 * provider process and client (cached promise), shared by every resource of the run; attachments read
 * their instance's detail once each; an adopting resource reads what it adopts once (none without adoptId). A value still unknown at preview (an id of a resource not yet created)
 * is skipped: it is checked again at up. A catalogue list the host does not serve (the routes come from
 * client code, real-api-facts.md) skips that check with a progress line, leaving it to the API.
 */
import type * as pulumi from "@pulumi/pulumi";
import {
  ApiError,
  ConfigurationError,
  ForbiddenError,
  NetworkError,
  NotFoundError,
  RouteNotFoundError,
  ResponseFormatError,
  TimeoutError,
  UnauthorizedError,
  UnexpectedStatusError,
  type VmHostClient,
} from "../../api";
import type { LocationRecord, SystemRecord, TierRecord } from "../../api/schemas/catalog";
import { getClient, progressLog } from "../../context";
import type { ResourceName } from "../../../sdk/nodejs/stub";
import { isUnknown, withoutPropertyPrefix, type CheckFailure } from "./check";
import { sameUuid } from "./fields";
import { ConfigurationProblem, errorText } from "./errors";
import { claimedByStack, instanceIdentity } from "./replacements";
import type { InstanceDetail } from "../../api/schemas/instances";
import { adoptionMismatches, toOutputs } from "../instance/model";
import { diskAdoptionRefusal, diskStateFromList } from "../block-storage-attachment/model";
import { membershipAdoptionRefusal, resolveAttachment } from "../vswitch-attachment/model";
import { describeStep, planInstanceUpdate } from "../instance/diff";
import type { InstanceInputs } from "../instance/inputs";


/** A location of the catalogue. */
export interface CatalogueLocation {
  id: number;
  name: string;
}

/** A tier of the catalogue; `dedicatedCpuAvailable` undefined when the host does not say. */
export interface CatalogueTier {
  id: number;
  name: string;
  dedicatedCpuAvailable: boolean | undefined;
}

/** An OS template with its minimums (undefined when the host does not list one). */
export interface CatalogueTemplate {
  id: number;
  name: string;
  version: string | undefined;
  minCpu: number | undefined;
  minMemory: number | undefined;
  minStorage: number | undefined;
}

/** A private network of the account and the name of its location. */
export interface CatalogueVswitch {
  uuid: string;
  name: string;
  location: string | undefined;
}

/** What preview checks against; a list is undefined when the host did not serve it. */
export interface Catalogue {
  locations?: CatalogueLocation[];
  tiers?: CatalogueTier[];
  templates?: CatalogueTemplate[];
  vswitches?: CatalogueVswitch[];
}

// ---------------------------------------------------------------------------------------------- parsing

const num = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isFinite(v) ? v : typeof v === "string" && /^\d+$/.test(v.trim()) ? Number(v) : undefined;
const text = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v : undefined);
const bool = (v: unknown): boolean | undefined =>
  typeof v === "boolean" ? v : v === 1 || v === "1" ? true : v === 0 || v === "0" ? false : undefined;

/** Tiers as the host lists them (`is_dedicated_cpu_available` where it says). */
export function tiersOf(records: readonly TierRecord[]): CatalogueTier[] {
  return records.map((t) => {
    const r = t as Record<string, unknown>;
    return {
      id: t.id,
      name: t.name ?? `tier ${t.id}`,
      dedicatedCpuAvailable: bool(r.is_dedicated_cpu_available ?? r.dedicated_cpu_available ?? r.isDedicatedCpuAvailable),
    };
  });
}

/** Locations as the host lists them. */
export function locationsOf(records: readonly LocationRecord[]): CatalogueLocation[] {
  return records.map((l) => ({ id: l.id, name: l.name ?? `location ${l.id}` }));
}

/**
 * OS templates from the systems list. Hosts list either templates (`template_id` or a bare `id`) or
 * operating systems with their templates nested (`templates` / `versions`); on the latter, the top-level id
 * is the OS id, not a template id, so a bare `id` counts only on records without nested templates.
 */
export function templatesOf(records: readonly SystemRecord[]): CatalogueTemplate[] {
  const out: CatalogueTemplate[] = [];
  const visit = (r: Record<string, unknown>, parent?: Record<string, unknown>) => {
    const nested = [r.templates, r.versions].filter(Array.isArray).flat() as unknown[];
    const explicit = num(r.template_id ?? r.templateId);
    const id = explicit ?? (nested.length === 0 ? num(r.id) : undefined);
    if (id !== undefined) {
      out.push({
        id,
        // a nested template is named by its operating system; its own name, if any, is the version
        name: (parent ? text(parent.name) : undefined) ?? text(r.name) ?? `template ${id}`,
        version: text(r.version) ?? (parent && text(r.name) !== text(parent.name) ? text(r.name) : undefined),
        minCpu: num(r.min_cpu ?? r.minCpu),
        minMemory: num(r.min_memory ?? r.minMemory ?? r.min_ram),
        minStorage: num(r.min_storage ?? r.minStorage ?? r.min_disk),
      });
    }
    for (const n of nested) if (n && typeof n === "object") visit(n as Record<string, unknown>, r);
  };
  for (const r of records) visit(r as Record<string, unknown>);
  return out;
}

/** Minimum cpu / memory (GB) / storage (GB) of an OS template, from the catalogue when the host lists them. */
export async function templateMinimums(
  client: VmHostClient, templateId: number,
): Promise<{ cpu?: number; memory?: number; storage?: number } | undefined> {
  let systems: SystemRecord[];
  try {
    systems = await client.catalog.systems();
  } catch (e) {
    // the systems route is only seen in client code: without it the API's own validation still applies
    progressLog(`could not read the OS catalogue to check template minimums (${errorText(e)}); the API will check them`);
    return undefined;
  }
  const hit = templatesOf(systems).find((t) => t.id === templateId);
  if (!hit) return undefined;
  return { cpu: hit.minCpu, memory: hit.minMemory, storage: hit.minStorage };
}

// ---------------------------------------------------------------------------------------------- account

/** "did you mean …/v1" when the base URL lacks the version segment every host of this API uses. */
function baseUrlHint(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, "");
  if (!/\/v\d+$/.test(trimmed)) return `: did you mean ${trimmed}/v1? Set it with \`pulumi config set vmhost:baseUrl ${trimmed}/v1\``;
  return ": check vmhost:baseUrl (VMHOST_BASE_URL) against your host's API documentation (e.g. https://api.dewavps.com/v1)";
}

/**
 * The account check: one documented read with the configured key and base URL. Throws a
 * {@link ConfigurationProblem} that names the config key to fix; a failure that says nothing about the
 * configuration (a 5xx, a 429) is only reported as a progress line.
 */
export async function checkAccount(client: VmHostClient): Promise<void> {
  const where = `the API at ${client.baseUrl}`;
  try {
    await client.catalog.sizeTemplates();
  } catch (e) {
    if (e instanceof UnauthorizedError)
      throw new ConfigurationProblem(
        `vmhost:apiKey: ${where} rejected the API key (HTTP 401${e.apiMessage ? ` ${e.apiMessage}` : ""}): set a valid key with ` +
          "`pulumi config set --secret vmhost:apiKey <key>` (or VMHOST_API_KEY); keys expire and are made in the panel",
        { cause: e },
      );
    if (e instanceof ForbiddenError)
      throw new ConfigurationProblem(
        `vmhost:apiKey: ${where} refused the API key (HTTP 403${e.apiMessage ? ` ${e.apiMessage}` : ""}): the key may not read ` +
          "instances; use a key with the read_instance and write_instance scopes (or super), set with `pulumi config set --secret vmhost:apiKey <key>`",
        { cause: e },
      );
    if (e instanceof NotFoundError || e instanceof RouteNotFoundError || e instanceof ResponseFormatError || (e instanceof UnexpectedStatusError && e.status !== undefined && e.status < 500))
      throw new ConfigurationProblem(
        `vmhost:baseUrl: ${where} does not answer as this API (GET ${e.path} gave ` +
          `${e instanceof ResponseFormatError ? "an answer that is not the API's" : `HTTP ${e.status}`})${baseUrlHint(client.baseUrl)}`,
        { cause: e },
      );
    // A connection that never opened says "where is it"; an answer that did not come in time says "slow host":
    // the timeout's own text names vmhost:requestTimeout then, and the base URL is not the suspect.
    if (e instanceof TimeoutError && e.phase !== "connect")
      throw new ConfigurationProblem(`vmhost:requestTimeout: ${where} did not answer in time (${errorText(e)})`, { cause: e });
    if (e instanceof NetworkError || e instanceof TimeoutError)
      throw new ConfigurationProblem(`vmhost:baseUrl: could not reach ${where} (${errorText(e)})`, { cause: e });
    // a 5xx or 429 says nothing about the configuration: up will meet it (and retry) if it lasts
    progressLog(`could not check the API key at preview (${errorText(e)}); continuing`);
  }
}

async function optionalList<T>(what: string, read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (e) {
    if (e instanceof ApiError) {
      progressLog(`could not read the ${what} at preview (${errorText(e)}); the API will check these values at up`);
      return undefined;
    }
    throw e;
  }
}

/** Reads the account check and the catalogue (without the private networks: see {@link catalogueFor}), once. */
async function loadCatalogue(client: VmHostClient): Promise<Catalogue> {
  await checkAccount(client);
  const [locations, tiers, systems] = await Promise.all([
    optionalList("locations", () => client.catalog.locations()),
    optionalList("tiers", () => client.catalog.tiers()),
    optionalList("OS templates", () => client.catalog.systems()),
  ]);
  return { locations: locations && locationsOf(locations), tiers: tiers && tiersOf(tiers), templates: systems && templatesOf(systems) };
}

async function loadVswitches(client: VmHostClient): Promise<CatalogueVswitch[] | undefined> {
  const vswitches = await optionalList("private networks", () => client.network.listVswitches());
  return vswitches?.map((v) => ({ uuid: v.uuid.toLowerCase(), name: v.name, location: v.location?.name ?? undefined }));
}

/**
 * One read per client (one client per configuration per process, see `getClient`), shared by concurrent checks.
 * A failure is not remembered: the next check asks again (a long-lived process must not keep failing every
 * check after one unreachable moment).
 */
function oncePerClient<T>(load: (client: VmHostClient) => Promise<T>): (client: VmHostClient) => Promise<T> {
  const loaded = new WeakMap<VmHostClient, Promise<T>>();
  return (client) => {
    let pending = loaded.get(client);
    if (!pending) {
      const started = load(client);
      pending = started;
      loaded.set(client, started);
      started.catch(() => {
        if (loaded.get(client) === started) loaded.delete(client);
      });
    }
    return pending;
  };
}

const baseCatalogueFor = oncePerClient(loadCatalogue);
const vswitchesFor = oncePerClient(loadVswitches);

/**
 * The account check and catalogue of a client, each read once per client. The private networks are read only
 * when `withVswitches` (a resource names a vswitchId): a fleet of VMs without one sends one request less before
 * its first create, which on a rate-limited host delays every create behind it.
 */
export async function catalogueFor(client: VmHostClient, withVswitches = false): Promise<Catalogue> {
  const [cat, vswitches] = await Promise.all([baseCatalogueFor(client), withVswitches ? vswitchesFor(client) : undefined]);
  return withVswitches ? { ...cat, vswitches } : cat;
}

// ---------------------------------------------------------------------------------------------- rules

const known = (v: unknown): boolean => v !== undefined && v !== null && !isUnknown(v);

function listIds(items: readonly { id: number; name: string }[], max = 12): string {
  const shown = items.slice(0, max).map((i) => `${i.id} (${i.name})`).join(", ");
  return items.length > max ? `${shown}, ...` : shown;
}

/** Instance rules against the catalogue; `inputs` are the checked inputs. */
export function instanceCatalogueFailures(inputs: Record<string, unknown>, cat: Catalogue): CheckFailure[] {
  const failures: CheckFailure[] = [];
  const mode = known(inputs.adoptId) ? "adopt" : known(inputs.cloneFrom) ? "clone" : "create";

  const location = known(inputs.locationId) && cat.locations ? cat.locations.find((l) => l.id === inputs.locationId) : undefined;
  if (known(inputs.locationId) && cat.locations && !location)
    failures.push({
      property: "locationId",
      reason: `locationId ${String(inputs.locationId)} is not a location of this host; valid: ${listIds(cat.locations)} (list them with getLocations, or use getLocation({ name: "..." }))`,
    });

  const tier = known(inputs.tierId) && cat.tiers ? cat.tiers.find((t) => t.id === inputs.tierId) : undefined;
  if (known(inputs.tierId) && cat.tiers && !tier)
    failures.push({
      property: "tierId",
      reason: `tierId ${String(inputs.tierId)} is not a tier of this host; valid: ${listIds(cat.tiers)} (list them with getTiers)`,
    });
  if (tier && inputs.dedicatedCpu === true && tier.dedicatedCpuAvailable === false) {
    const offering = cat.tiers!.filter((t) => t.dedicatedCpuAvailable === true);
    failures.push({
      property: "dedicatedCpu",
      reason:
        `the ${tier.name} tier (${tier.id}) has no dedicated CPUs; set dedicatedCpu: false, or choose a tier that offers them` +
        (offering.length ? `: ${listIds(offering)}` : "") + " (getTiers shows dedicatedCpuAvailable)",
    });
  }

  if (mode === "create" && known(inputs.templateId) && cat.templates && cat.templates.length > 0) {
    const template = cat.templates.find((t) => t.id === inputs.templateId);
    if (!template) {
      failures.push({
        property: "templateId",
        reason:
          `templateId ${String(inputs.templateId)} is not an OS template of this host; valid: ` +
          `${listIds(cat.templates.map((t) => ({ id: t.id, name: t.version ? `${t.name} ${t.version}` : t.name })))} (list them with getOsTemplates)`,
      });
    } else {
      // every minimum at once, so one run tells all the sizes to raise
      const label = `${template.name}${template.version ? ` ${template.version}` : ""} (template ${template.id})`;
      for (const [key, least, unit] of [["cpu", template.minCpu, " CPUs"], ["memory", template.minMemory, " GB"], ["storage", template.minStorage, " GB"]] as const) {
        const value = inputs[key];
        if (least !== undefined && typeof value === "number" && value < least)
          failures.push({ property: key, reason: `${label} needs at least ${least}${unit}; raise ${key} to ${least} or more (getOsTemplates lists the minimums)` });
      }
    }
  }

  if (typeof inputs.vswitchId === "string" && inputs.vswitchId !== "" && known(inputs.vswitchId) && cat.vswitches) {
    const vswitch = cat.vswitches.find((v) => sameUuid(v.uuid, inputs.vswitchId as string));
    if (!vswitch)
      failures.push({ property: "vswitchId", reason: `there is no private network ${inputs.vswitchId} in this account (list them with getVswitches)` });
    else if (location && vswitch.location && vswitch.location.toLowerCase() !== location.name.toLowerCase())
      failures.push({
        property: "vswitchId",
        reason:
          `vswitchId: the private network ${vswitch.name} is in ${vswitch.location}, not in the VM's location ${location.name}; ` +
          `use a network of ${location.name} (getVswitchOptions({ locationId: ${location.id} }) lists them)`,
      });
  }
  return failures;
}

/**
 * A tier change that would leave the VM with dedicated CPUs on a tier that has none: the API refuses it ("resize
 * to shared CPU first") after the steps before it ran. Where the program declares `dedicatedCpu: false`, the plan
 * resizes first; where it leaves dedicatedCpu unmanaged (an adopted or cloned VM: only a new VM defaults it to
 * false), it is refused before any write, naming the input (soak with other seeds: refused at the API, and the
 * message promised that a re-run would finish it): by the Instance's update and adopting create, and at preview by
 * its Diff and by the check of a new adopting Instance. `olds`: the VM's tier and dedicated CPUs (the state's, or the
 * adopted VM's); `client`: asked for only when the catalogue is needed.
 */
export async function dedicatedTierRefusal(
  client: () => VmHostClient, id: string, olds: { tierId?: unknown; dedicatedCpu?: unknown }, news: { tierId?: unknown; dedicatedCpu?: unknown },
): Promise<string | undefined> {
  if (news.tierId === undefined || news.tierId === olds.tierId || olds.dedicatedCpu !== true || news.dedicatedCpu === false) return undefined;
  if (isUnknown(news.dedicatedCpu)) return undefined; // (preview: it may turn out false)
  // (the catalogue unreadable: the API's own refusal still applies)
  const tier = (await catalogueFor(client()).catch(() => undefined))?.tiers?.find((t) => t.id === news.tierId);
  if (tier?.dedicatedCpuAvailable !== false) return undefined;
  return (
    `tierId: the ${tier.name} tier (${tier.id}) has no dedicated CPUs, and instance ${id} has them: set dedicatedCpu: false on this ` +
    "Instance (the VM is then resized to shared CPUs before the tier change), or choose a tier that offers them (getTiers: dedicatedCpuAvailable). Nothing was changed."
  );
}

/**
 * The instance a resource's `instanceId` names, read once per check: its detail; null when the API says there is
 * none (404); undefined when the id is not known yet (an Instance made in the same up) or could not be read.
 */
async function namedInstance(client: VmHostClient, instanceId: unknown): Promise<InstanceDetail | null | undefined> {
  if (typeof instanceId !== "string" || !known(instanceId)) return undefined;
  try {
    return (await client.instances.find(instanceId)) ?? null;
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    progressLog(`could not read instance ${instanceId} at preview (${errorText(e)}); the API will check instanceId at up`);
    return undefined;
  }
}

/** The location of an instance that exists, for the attachments (undefined when unknown or not found, or unnamed). */
function instanceLocation(detail: InstanceDetail | null | undefined): { id: number; name: string } | undefined {
  return detail && detail.location !== null ? { id: detail.location_id, name: detail.location } : undefined;
}

/**
 * For a NEW resource of an instance (nothing in the state yet), an `instanceId` known now (a literal, not the id
 * of an Instance made in the same up) must name an instance, as adoptId/cloneFrom must for an Instance: else
 * the up would fail at its first call, and say the instance "no longer exists" when it never did. A resource
 * already in the state whose VM went away out of band is not refused here (its read and delete handle that).
 */
function missingInstanceFailures(inputs: Record<string, unknown>, instance: InstanceDetail | null | undefined): CheckFailure[] {
  if (instance !== null) return [];
  return [{ property: "instanceId", reason: `there is no instance ${String(inputs.instanceId)} in this account (getInstances lists them)` }];
}

/** True when a new resource adopts (adoptId known now) an object of an instance whose id is known now. */
const adoptsKnown = (inputs: Record<string, unknown>, isNew: boolean): boolean =>
  isNew && typeof inputs.adoptId === "string" && known(inputs.adoptId) && typeof inputs.instanceId === "string" && known(inputs.instanceId);

async function vswitchAttachmentFailures(
  client: VmHostClient, inputs: Record<string, unknown>, cat: Catalogue, instance: () => Promise<InstanceDetail | null | undefined>, isNew: boolean,
): Promise<CheckFailure[]> {
  if (typeof inputs.vswitchId !== "string" || !known(inputs.vswitchId) || !cat.vswitches) return [];
  const vswitch = cat.vswitches.find((v) => sameUuid(v.uuid, inputs.vswitchId as string));
  if (!vswitch)
    return [{ property: "vswitchId", reason: `there is no private network ${inputs.vswitchId} in this account (list them with getVswitches)` }];
  const detail = await instance();
  const location = instanceLocation(detail);
  if (location && vswitch.location && vswitch.location.toLowerCase() !== location.name.toLowerCase())
    return [{
      property: "vswitchId",
      reason:
        `vswitchId: the private network ${vswitch.name} is in ${vswitch.location}, but instance ${String(inputs.instanceId)} is in ${location.name}; ` +
        `use a network of ${location.name} (getVswitchOptions({ locationId: ${location.id} }) lists them)`,
    }];
  if (adoptsKnown(inputs, isNew) && detail) {
    // What create refuses: the membership to adopt must be there (the network list's records, as create resolves them:
    // read only for an adopting attachment)
    const records = await optionalList("private networks", () => client.network.listVswitches());
    const refusal = records && membershipAdoptionRefusal(String(inputs.instanceId), inputs.vswitchId, resolveAttachment(detail.private_network, inputs.vswitchId, records));
    if (refusal) return [{ property: "adoptId", reason: refusal }];
  }
  return [];
}

async function blockStorageAttachmentFailures(
  client: VmHostClient, inputs: Record<string, unknown>, instance: () => Promise<InstanceDetail | null | undefined>, isNew: boolean,
): Promise<CheckFailure[]> {
  if (typeof inputs.blockStorageId !== "string" || !known(inputs.blockStorageId)) return [];
  const disks = await optionalList("block storages", () => client.storage.list());
  if (!disks) return [];
  const disk = disks.find((d) => sameUuid(String(d.id), inputs.blockStorageId as string));
  if (!disk)
    return [{ property: "blockStorageId", reason: `blockStorageId: there is no block storage ${inputs.blockStorageId} in this account (list them with getBlockStorages)` }];
  const detail = await instance();
  const location = instanceLocation(detail);
  const diskLocation = disk.location?.name;
  if (location && diskLocation && diskLocation.toLowerCase() !== location.name.toLowerCase())
    return [{
      property: "blockStorageId",
      reason:
        `blockStorageId: the block storage ${disk.name} is in ${diskLocation}, but instance ${String(inputs.instanceId)} is in ${location.name}; ` +
        `a disk attaches only to an instance of its location (getBlockStorages({ locationId: ${location.id} }) lists those)`,
    }];
  // What create refuses: the disk to adopt must be attached to the instance already
  const refusal = adoptsKnown(inputs, isNew) && detail
    ? diskAdoptionRefusal(inputs.blockStorageId, String(inputs.instanceId), diskStateFromList(inputs.blockStorageId, String(inputs.instanceId), disks))
    : undefined;
  return refusal ? [{ property: "adoptId", reason: refusal }] : [];
}

/**
 * For a NEW Instance only (nothing in the state yet): the VM to adopt or to clone exists. Once the resource
 * exists these are history (the clone's source may be gone since), so they are not checked again.
 */
async function instanceSourceFailures(client: VmHostClient, inputs: Record<string, unknown>): Promise<CheckFailure[]> {
  const failures: CheckFailure[] = [];
  for (const key of ["adoptId", "cloneFrom"] as const) {
    const id = inputs[key];
    if (typeof id !== "string" || !known(id)) continue;
    let found: InstanceDetail | undefined;
    try {
      found = await client.instances.find(id); // undefined only on a 404
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      progressLog(`could not read instance ${id} at preview (${errorText(e)}); the API will check ${key} at up`);
      continue;
    }
    if (found === undefined) {
      failures.push({
        property: key,
        reason: `there is no instance ${id} in this account to ${key === "adoptId" ? "adopt" : "clone"} (getInstances lists them)`,
      });
      continue;
    }
    // A clone or an adopted VM keeps its OS: its template's minimums hold for the sizes declared, as for a create
    // (audit: a clone with memory below them was made, then its resize was refused, leaving a new VM at every up).
    for (const [size, least, unit] of [["cpu", found.os.min_cpu, " CPUs"], ["memory", found.os.min_memory, " GB"], ["storage", found.os.min_storage, " GB"]] as const) {
      const value = inputs[size];
      if (typeof value === "number" && least !== null && value < least)
        failures.push({
          property: size,
          reason: `instance ${id}'s OS (${found.os_name ?? found.os.name ?? `template ${found.os.template_id}`}) needs at least ${least}${unit}, and ${key === "adoptId" ? "an adopted VM" : "a clone"} keeps its OS; raise ${size} to ${least} or more`,
        });
    }
    if (key === "cloneFrom") {
      // What create would refuse before any write, said at preview (a clone starts with its source's disk).
      if (typeof inputs.storage === "number" && inputs.storage < found.storage)
        failures.push({
          property: "storage",
          reason: `a clone starts with its source's ${found.storage} GB disk and disks only grow; set storage to ${found.storage} or more`,
        });
    } else if (key === "adoptId") {
      // What create would refuse (an adopted VM is never replaced), said at preview: only values known now.
      const declared = Object.fromEntries((["locationId", "templateId", "username", "storage"] as const).filter((k) => known(inputs[k])).map((k) => [k, inputs[k]]));
      const mismatches = adoptionMismatches(found, declared);
      const dedicated = await dedicatedTierRefusal(() => client, id, { tierId: found.tier_id, dedicatedCpu: found.is_cpu_dedicated }, inputs);
      if (dedicated) failures.push({ property: "tierId", reason: dedicated });
      if (mismatches.length > 0)
        failures.push({
          property: key,
          reason:
            `instance ${id} cannot be adopted as declared (${mismatches.join("; ")}): an adopted VM is never replaced and disks ` +
            "only grow, so these cannot change. Declare the VM's values (or leave them unset)",
        });
      else if (!dedicated) {
        // The engine shows an adoption as a create only: what the adopting up will also change is said here. (A
        // declared password is always set; the private network is left out: naming it takes the vswitch list.)
        const { vswitchId: _network, password: _password, ...comparable } = Object.fromEntries(
          Object.entries(inputs).filter(([, v]) => v !== undefined && known(v)),
        ) as Partial<InstanceInputs>;
        const steps = planInstanceUpdate(toOutputs(found, comparable), comparable);
        if (steps.length > 0) progressLog(`adopting instance ${id} also makes it as declared: ${steps.map((s) => describeStep(s, id)).join("; ")}`);
      }
    }
  }
  return failures;
}

/**
 * The hostnames (identities: hostname in location) that Instances checked without olds declare in this deployment: a
 * new Instance, or one the engine replaces and checks again without olds (pulumi/pulumi
 * pkg/resource/deploy/step_generator.go, continueStepsFromImport and continueStepsFromDiff). Each resource is checked
 * so at most once per deployment, so a second such check of one identity is a second Instance declaring it, whose
 * create would be refused as a clash inside the stack. (Not an Instance of the state keeping the hostname: whether it
 * keeps it, renames it away or is replaced is known only from its update's Diff, which may come after this check.)
 */
const newInstanceIdentities = new Set<string>();

/** Forgets what the checks noted (see forgetDeployment in provider/registry.ts). */
export function forgetPreviewNotes(): void {
  newInstanceIdentities.clear();
}

/** The clash of a new Instance's hostname with another new Instance's of this deployment, noting its own. */
function hostnameClashFailures(inputs: Record<string, unknown>): CheckFailure[] {
  if (typeof inputs.hostname !== "string" || typeof inputs.locationId !== "number" || !known(inputs.hostname)) return [];
  const key = instanceIdentity(inputs.hostname, inputs.locationId);
  if (!newInstanceIdentities.has(key)) {
    newInstanceIdentities.add(key);
    return [];
  }
  return [{
    property: "hostname",
    reason:
      `hostname: another Instance of this program declares hostname ${inputs.hostname} in location ${inputs.locationId}, so the second ` +
      "create would be refused: two Instances cannot share a hostname in one location. Give this Instance another hostname. Nothing was changed.",
  }];
}

/**
 * The Instance catalogue rules an existing VM no longer has to meet, by failing property: the inputs that must be
 * unchanged since the last up for the rule to be history. A VM's location, tier, template and the template's
 * minimums were checked when it was made; a host that later retires a template or tier, or raises a minimum,
 * must not fail every preview and up of a stack whose VM still runs on it (the way out, a new templateId, would
 * replace the VM and lose its data). Each rule applies again when one of its inputs changes.
 */
const HISTORY_ONCE_MADE: Readonly<Record<string, readonly string[]>> = {
  locationId: ["locationId"], tierId: ["tierId"], dedicatedCpu: ["tierId", "dedicatedCpu"], templateId: ["templateId"],
  cpu: ["templateId", "cpu"], memory: ["templateId", "memory"], storage: ["templateId", "storage"],
};

/** `failures` without those about values unchanged since the last up that are history once the VM exists. */
export function withoutHistoricFailures(failures: CheckFailure[], olds: Record<string, unknown>, inputs: Record<string, unknown>): CheckFailure[] {
  const unchanged = (key: string): boolean => JSON.stringify(olds[key]) === JSON.stringify(inputs[key]);
  return failures.filter((f) => !(HISTORY_ONCE_MADE[f.property]?.every(unchanged) ?? false));
}

/**
 * A resource's own check of the object a new resource adopts (`adoptId`): why its create would refuse to adopt it, or
 * undefined. `instance`: the detail of the resource's instance, read at most once per check (null: there is none).
 */
export type AdoptionCheck = (
  client: VmHostClient, inputs: Record<string, unknown>, instance: () => Promise<InstanceDetail | null | undefined>,
) => Promise<string | undefined>;

/**
 * The preview-time failures of one resource's checked inputs (reads only); `olds`: the state's inputs of a
 * resource that exists (undefined or empty: nothing in the state yet); `adoption`: the resource's own check of what
 * a new resource adopts (the attachments' is below).
 */
export async function previewFailures(
  name: ResourceName, inputs: Record<string, unknown>, client: VmHostClient, olds?: Record<string, unknown>, adoption?: AdoptionCheck,
): Promise<CheckFailure[]> {
  const namesVswitch = typeof inputs.vswitchId === "string" && inputs.vswitchId !== "" && known(inputs.vswitchId);
  const cat = await catalogueFor(client, namesVswitch && (name === "Instance" || name === "VswitchAttachment"));
  const isNew = !olds || Object.keys(olds).filter((k) => k !== "__provider").length === 0;
  if (name === "Instance") {
    if (!isNew) return withoutHistoricFailures(instanceCatalogueFailures(inputs, cat), olds!, inputs);
    return [...instanceCatalogueFailures(inputs, cat), ...hostnameClashFailures(inputs), ...(await instanceSourceFailures(client, inputs))];
  }
  // Every other resource belongs to an instance: read it at most once (a new resource's, and an attachment's
  // location rules), and only when a rule needs it.
  let read: Promise<InstanceDetail | null | undefined> | undefined;
  const instance = () => (read ??= namedInstance(client, inputs.instanceId));
  // An instance this deployment made or diffed (the usual `instanceId: vm.id`, known by the up's check) exists: not read
  // for that (a fleet's PublicIps would each cost a request at up, on a rate-limited host).
  const seenHere = typeof inputs.instanceId === "string" && claimedByStack.has(inputs.instanceId.toLowerCase());
  const missing = isNew && !seenHere ? missingInstanceFailures(inputs, await instance()) : [];
  switch (name) {
    case "VswitchAttachment": return [...missing, ...(await vswitchAttachmentFailures(client, inputs, cat, instance, isNew))];
    case "BlockStorageAttachment": return [...missing, ...(await blockStorageAttachmentFailures(client, inputs, instance, isNew))];
  }
  // What adopting would find, for a new resource whose adoptId and instanceId are known (read only then: a fleet
  // without adoptId sends nothing more). A read that fails leaves it to create, which refuses before any write.
  if (missing.length > 0 || !adoption || !adoptsKnown(inputs, isNew)) return missing;
  try {
    const refusal = await adoption(client, inputs, instance);
    return refusal ? [{ property: "adoptId", reason: refusal }] : [];
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    progressLog(`could not read what adoptId ${String(inputs.adoptId)} names at preview (${errorText(e)}); it is checked at up`);
    return [];
  }
}

/**
 * Wraps a resource provider's `check` with the preview-time checks: they run only when the schema check
 * passed (their rules need valid values), read only, and add failures named by property. A configuration
 * problem (missing, rejected key; wrong base URL) is a failure without a property whose reason names the config key.
 */
export function withPreviewChecks(name: ResourceName, provider: pulumi.dynamic.ResourceProvider, adoption?: AdoptionCheck): pulumi.dynamic.ResourceProvider {
  const check = provider.check;
  if (!check) return provider;
  return {
    ...provider,
    check: async (olds, news) => {
      const result = await check.call(provider, olds, news);
      if (result.failures && result.failures.length > 0) return result;
      // A configuration problem is this resource's check failure, without a property: the dynamic-provider host
      // prints an error thrown here with its stack (`${e}: ${e.stack}`), so every config mistake came with a trace
      // and its message twice (audit); the engine prints a failure as "<type> resource '<name>' has a problem: ...".
      try {
        const client = getClient();
        const failures = (await previewFailures(name, (result.inputs ?? {}) as Record<string, unknown>, client, olds as Record<string, unknown> | undefined, adoption))
          .map(withoutPropertyPrefix);
        return failures.length > 0 ? { failures } : result;
      } catch (e) {
        if (e instanceof ConfigurationError || e instanceof ConfigurationProblem) return { failures: [{ property: "", reason: e.message }] };
        throw e;
      }
    },
  };
}
