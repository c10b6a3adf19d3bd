/**
 * Pure mapping between the API's instance detail and the Instance resource's outputs. No I/O: the provider
 * fetches the detail (and, when the user manages `vswitchId`, the vswitch list) and hands them in here, so
 * `create` and `read` produce outputs through the same function and a refresh right after an up shows no
 * change.
 */
import { statusKey, statusMeaning } from "../../api/normalize";
import { onlyNetworkThatCanHold, privateAddressIn } from "../common/private-network";
import type { InstanceDetail } from "../../api/schemas/instances";
import type { InstanceInputs, InstanceOutputs } from "./inputs";

/** The power state the user can declare, from the API's status text. */
export type PowerState = "running" | "stopped";

/** Transitional statuses by the power state their operation ends in (seen only while an operation runs). */
const ENDS_RUNNING = new Set([
  "starting", "restarting", "rebooting", "booting", "resuming",
  "menyalakan", "memulai", "memulai ulang", "sedang dinyalakan", "sedang dimulai", "sedang dimulai ulang",
]);
const ENDS_STOPPED = new Set(["stopping", "shutting down", "powering off", "mematikan", "menghentikan", "sedang dimatikan", "sedang dihentikan"]);

/**
 * Maps a status to the declared power states. The API's status values are not published (api-spec.md §3):
 * `Running` and `Stopped` are seen; anything else (`Error`, a transitional status at rest) is returned as the
 * status itself in lower case, so a diff against "running"/"stopped" proposes the start/stop that fixes it.
 * `busy` (an operation runs): a restart, start or stop under way counts as the state it ends in. Read as
 * itself, a refresh during a restart from the panel reported `powerState: "running" => "restarting"`, drift that
 * was gone a minute later (audit: `preview --refresh --expect-no-changes` failed for nothing). An operation that
 * ends otherwise (a start that fails) shows at the next refresh.
 */
export function powerStateOf(status: string, busy = false): string {
  // (the panels' Indonesian too: "Berjalan" is running, "Mati" stopped; read as themselves, a declared powerState was
  // drift at every up and its start waited until the deadline: real-api-facts audit)
  const meaning = statusMeaning(status);
  if (meaning === "running" || meaning === "stopped") return meaning;
  const s = statusKey(status);
  if (busy && ENDS_RUNNING.has(s)) return "running";
  if (busy && ENDS_STOPPED.has(s)) return "stopped";
  return status.trim().toLowerCase();
}

/** A vswitch as far as resolving the detail's `private_network` text goes. */
export interface VswitchRef {
  uuid: string;
  name: string;
  networkIp?: string | null;
  /** Its location's name, when the list gives it. */
  location?: string | null;
}

/**
 * The uuid of the vswitch the detail's `private_network` names. The spec types it as a free string ("-"
 * when none); hosts show the vswitch name, some the uuid, maybe the VM's private address: all are matched (the
 * name case-insensitively, the address against the vswitch's network).
 * Returns `""` when the instance has no private network, and the raw text when no vswitch matches (so a
 * diff against a declared uuid still shows the difference instead of hiding it).
 */
export function resolveVswitchId(privateNetwork: string | null, vswitches: readonly VswitchRef[], location?: string): string {
  if (privateNetwork === null || privateNetwork.trim() === "") return "";
  const text = privateNetwork.trim().toLowerCase();
  const find = (among: readonly VswitchRef[]): VswitchRef | undefined =>
    among.find((v) => v.uuid.toLowerCase() === text) ??
    among.find((v) => v.name.toLowerCase() === text) ??
    among.find((v) => text.includes(v.uuid.toLowerCase()) || (v.name !== "" && text.split(/[\s(),]+/).includes(v.name.toLowerCase()))) ??
    onlyOne(among.filter((v) => privateAddressIn(text, v.networkIp)));
  // A name used in several locations (one "default" network per location) is the one of the VM's location (audit:
  // the first in the list was taken, another location's, and its uuid showed as drift); else any.
  const here = location === undefined ? [] : vswitches.filter((v) => v.location?.trim().toLowerCase() === location.trim().toLowerCase());
  // The VM's address, no network known to hold it: the one network of its location whose range is not given, if only
  // one may hold it (networks of an unknown location count as maybe its location's).
  const inferred = () =>
    location === undefined
      ? undefined
      : onlyNetworkThatCanHold(text, vswitches.filter((v) => !v.location?.trim() || v.location.trim().toLowerCase() === location.trim().toLowerCase()), (v) => v.networkIp);
  const hit = find(here) ?? find(vswitches) ?? inferred();
  return hit ? hit.uuid : privateNetwork;
}

/** The one element, or undefined when there are none or several (an address two networks' ranges hold names neither). */
const onlyOne = <T>(items: readonly T[]): T | undefined => (items.length === 1 ? items[0] : undefined);

/**
 * The user's inputs kept in the state that the API cannot give back: the write-only password, ssh keys and
 * the backup choice (not in the detail), how the VM came to be, and provider-side settings.
 */
const CARRIED = ["adoptId", "cloneFrom", "password", "sshKeys", "backups", "deleteOptions", "timeouts"] as const;

/**
 * Outputs of an instance: the inputs under their own names, read back from the detail where the API has
 * them, plus computed outputs.
 *
 * `declared` are the user's inputs (at create: the checked inputs; at read: the inputs kept in the state).
 * Properties the user may leave unmanaged (`publicIp`, `publicNetworkId`, `vswitchId`, `powerState`) are
 * output only when declared, so a PublicIp or VswitchAttachment resource changing them never shows as
 * drift of the Instance. `vswitchId` (when declared) is the resolved uuid, `""` when none.
 */
export function toOutputs(detail: InstanceDetail, declared: Partial<InstanceInputs>, vswitchId?: string): InstanceOutputs {
  const out: Record<string, unknown> = {};
  for (const k of CARRIED) if (declared[k] !== undefined) out[k] = declared[k];
  out.deleteOptions = declared.deleteOptions ?? { removePublicIp: true, removeBlockStorage: false };
  Object.assign(out, {
    locationId: detail.location_id,
    templateId: detail.os.template_id,
    tierId: detail.tier_id,
    hostname: detail.hostname,
    username: detail.username,
    cpu: detail.cpu,
    memory: detail.memory,
    storage: detail.storage,
    dedicatedCpu: detail.is_cpu_dedicated,
  });
  if (declared.publicIp !== undefined) out.publicIp = detail.public_ip !== null;
  if (declared.publicNetworkId !== undefined) out.publicNetworkId = detail.public_ip?.ip_id ?? null;
  if (declared.vswitchId !== undefined) out.vswitchId = vswitchId ?? "";
  if (declared.powerState !== undefined) out.powerState = powerStateOf(detail.status, detail.operation_flag !== 0);
  Object.assign(out, {
    status: detail.status,
    ipAddress: detail.public_ip?.ip_address ?? null,
    publicIpId: detail.public_ip?.ip_id ?? null,
    rdns: detail.rdns,
    privateNetwork: detail.private_network,
    locationName: detail.location,
    tierName: detail.tier,
    os: osLabel(detail),
    pricePerHour: detail.price_per_hour,
    estimatedMonthlyPrice: detail.estimated_monthly_price,
    createdAt: detail.created_at,
    updatedAt: detail.updated_at,
    lastStartedAt: detail.last_started_at,
    lastBackupAt: detail.last_backup_at,
  });
  return out as InstanceOutputs;
}

/** "Ubuntu 22.04": the detail's os name with the version when the name does not already carry it. */
export function osLabel(detail: Pick<InstanceDetail, "os_name" | "os">): string | null {
  const name = (detail.os_name || detail.os.name || "").trim();
  if (name === "") return null; // the host names no OS: unknown, not a version alone
  const version = String(detail.os.version ?? "").trim();
  return version && !name.includes(version) ? `${name} ${version}` : name;
}

/** Input property names. */
const INPUT_KEYS = [
  "adoptId", "cloneFrom", "locationId", "templateId", "tierId", "hostname", "username", "password", "sshKeys",
  "backups", "cpu", "memory", "storage", "dedicatedCpu", "publicIp", "publicNetworkId", "vswitchId", "powerState",
  "deleteOptions", "timeouts",
] as const;

/**
 * The input-named values of the state (outputs of the last create/update/read): what `read` needs to know
 * which properties the user manages (`publicIp` present = managed) and the write-only values it keeps.
 */
export function inputsFromState(state: Record<string, unknown>): Partial<InstanceInputs> {
  const inputs: Record<string, unknown> = {};
  // null stays: `publicNetworkId: null` means "declared, and the VM currently has no address"
  for (const k of INPUT_KEYS) if (state[k] !== undefined) inputs[k] = state[k];
  return inputs as Partial<InstanceInputs>;
}

/**
 * What an adopted VM must already have as declared, each as "<property>: <what the VM has>": the replace-forcing
 * properties (adoption cannot change them, and an adopted VM is never replaced), and a disk no larger than the
 * declared one (adoption resizes to the declaration, and disks only grow). Checked at preview
 * (common/preflight.ts) and again at create.
 */
export function adoptionMismatches(
  detail: Pick<InstanceDetail, "location_id" | "os" | "username" | "storage">,
  inputs: Pick<Partial<InstanceInputs>, "locationId" | "templateId" | "username" | "storage">,
): string[] {
  const found: string[] = [];
  if (inputs.locationId !== undefined && inputs.locationId !== detail.location_id) found.push(`locationId: the VM is in location ${detail.location_id}`);
  if (inputs.templateId !== undefined && inputs.templateId !== detail.os.template_id) found.push(`templateId: the VM runs template ${detail.os.template_id}`);
  if (inputs.username !== undefined && inputs.username !== detail.username) found.push(`username: the VM's user is ${JSON.stringify(detail.username)}`);
  // Adoption makes the VM as declared (a resize), and a disk cannot shrink.
  if (inputs.storage !== undefined && inputs.storage < detail.storage) found.push(`storage: the VM's disk is ${detail.storage} GB and disks cannot shrink`);
  return found;
}
