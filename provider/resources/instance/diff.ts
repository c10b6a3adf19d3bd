/**
 * Pure diff of the Instance: which properties force a new VM, which in-place operation each change maps to
 * (design.md §4 "Instance"), and the ordered plan `update` runs.
 *
 * Compared: `olds` are the outputs in the state (values read back from the API, so out-of-band changes
 * show up here), `news` the checked inputs of the program. A property the program leaves unset is not
 * compared when the API reports it anyway (an adopted VM's cpu); `publicIp`, `publicNetworkId`, `vswitchId`
 * and `powerState` unset mean "not managed".
 */
import { isFailureStatus } from "../../wait/instance";
import { isUnknown } from "../common/check";
import type { ResourceDiff } from "../common/replace-on-changes";
import type { InstanceInputs, InstanceOutputs } from "./inputs";

/** One in-place step of an update, in the order they run (see {@link planInstanceUpdate}). */
export type UpdateStep =
  /** The VM is in status Error (or its status is unknown after a failure): start it before anything else. */
  | { kind: "repair" }
  | { kind: "changeTier"; tierId: number }
  | { kind: "resize"; cpu: number; memory: number; storage: number; dedicatedCpu: boolean }
  | { kind: "hostname"; hostname: string }
  | { kind: "password"; password: string }
  /**
   * `assign` a reserved address, `add` any address, or `remove` the address (with `giveBack`: only while the VM holds
   * that one, the reserved address the program pinned before and now asks any address instead of).
   */
  | { kind: "publicAddress"; action: "add" | "remove" | "assign"; publicNetworkId?: string; giveBack?: string }
  /** `vswitchId: ""` detaches. */
  | { kind: "privateNetwork"; vswitchId: string }
  | { kind: "power"; state: "running" | "stopped" };

/** Properties whose change (any change) creates a new VM. */
const REPLACE_ALWAYS = ["locationId", "templateId", "username", "sshKeys", "backups", "cloneFrom"] as const;
/** Properties the API reports back: unset in the program = not compared. */
const READ_BACK = new Set(["locationId", "templateId", "username", "tierId", "hostname", "cpu", "memory", "storage", "dedicatedCpu"]);

type Olds = Partial<InstanceOutputs> & Record<string, unknown>;
type News = Partial<InstanceInputs> & Record<string, unknown>;

function equal(a: unknown, b: unknown): boolean {
  return JSON.stringify(normalize(a)) === JSON.stringify(normalize(b));
}
/** Canonical form for comparison: object keys sorted, undefined members dropped. */
function normalize(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalize);
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
        .map((k) => [k, normalize((v as Record<string, unknown>)[k])]),
    );
  return v;
}

/** Defaults that make "unset" and the default value the same thing (no replace for spelling it out). */
function withDefault(key: string, v: unknown): unknown {
  // the order of keys does not matter to the VM: a reordered list must not replace it
  if (key === "sshKeys") return Array.isArray(v) ? [...(v as string[])].sort() : v ?? [];
  if (key === "backups") return v ?? false;
  if (key === "deleteOptions") return { removePublicIp: true, removeBlockStorage: false, ...(v as object | undefined) };
  return v;
}

/** True when the program's value for `key` differs from the state (unknown values count as different). */
function differs(olds: Olds, news: News, key: string): boolean {
  const n = news[key];
  if (isUnknown(n)) return true;
  if (n === undefined && READ_BACK.has(key)) return false;
  return !equal(withDefault(key, olds[key]), withDefault(key, n));
}

/** True when the VM's public address (as the state shows it) is not what the program asks for. */
export function addressDiffers(olds: Olds, want: Extract<UpdateStep, { kind: "publicAddress" }>): boolean {
  // (by the address or its id: a host may leave `ip_address` null beside the id, and the VM then has one: real-api-facts
  // audit, a preview planned an add the host refuses, as drift at every up)
  const has = (olds.ipAddress !== null && olds.ipAddress !== undefined) || (olds.publicIpId !== null && olds.publicIpId !== undefined);
  if (want.action === "assign") return (olds.publicIpId ?? null) !== want.publicNetworkId;
  if (want.action === "add") return !has;
  // A state that never saw the VM's address (no `publicIpId`: a create that failed after the host took an address add it
  // queued, withMade) does not know the VM has none: the update looks (satisfied() judges the fresh read). Taken as none,
  // the program's publicIp: false planned nothing and the queued address stayed (soak stop17d-176: not-as-declared).
  return has || olds.publicIpId === undefined;
}

/**
 * Which public-address inputs changed: the address differs from what the program asks for, or the program
 * starts or stops managing the address (a state-only change that records whether later reads compare it).
 * Each input is named by itself (for replaceOnChanges): a different reserved address is a `publicNetworkId`
 * change, a missing or unwanted one a `publicIp` change; publicNetworkId, when set, decides the address.
 */
function publicAddressChanges(olds: Olds, news: News): Array<"publicIp" | "publicNetworkId"> {
  const keys: Array<"publicIp" | "publicNetworkId"> = [];
  const want = isUnknown(news.publicIp) || isUnknown(news.publicNetworkId) ? undefined : plannedAddress(news);
  const addressWrong = want !== undefined && addressDiffers(olds, want);
  if (isUnknown(news.publicIp) || (olds.publicIp !== undefined) !== (news.publicIp !== undefined) || (addressWrong && want.action !== "assign"))
    keys.push("publicIp");
  if (isUnknown(news.publicNetworkId) || (olds.publicNetworkId !== undefined) !== (news.publicNetworkId !== undefined) || (addressWrong && want.action === "assign"))
    keys.push("publicNetworkId");
  return keys;
}

/**
 * The diff Pulumi shows. `replaces` lists the replace-only properties. A smaller `storage` is NOT a replace,
 * although disks only grow: it is a change that the provider's Diff of a preview or up refuses, as `update` does
 * before any API call (see {@link diskShrinkRefusal}); the Diff of a refresh shows it as drift. A replace would
 * delete the VM and its data, and the usual cause is a disk grown in the panel followed by an unattended
 * `pulumi up --refresh` in CI, where nobody asked for a new VM.
 */
export function diffInstance(olds: Olds, news: News): ResourceDiff {
  const replaces: string[] = [];
  const changed: string[] = [];
  for (const key of REPLACE_ALWAYS) if (differs(olds, news, key)) replaces.push(key);
  for (const key of ["tierId", "cpu", "memory", "storage", "dedicatedCpu", "hostname", "password", "vswitchId", "powerState", "deleteOptions", "timeouts", "adoptId"]) {
    if (differs(olds, news, key)) changed.push(key);
  }
  changed.push(...publicAddressChanges(olds, news));
  // A VM left in Error (a failed create or operation, recorded in the state) is not converged, whatever the
  // program says: the update repairs it or fails naming the status, so `up` never reports it as done. That is
  // no input's change, so it is not in changedKeys: replaceOnChanges (even "*") never replaces a VM for it.
  const repair = needsRepair(olds);
  const changedKeys = [...replaces, ...changed];
  return {
    changes: changedKeys.length > 0 || repair,
    replaces,
    // The VM keeps its uuid through every in-place change; only a replace makes a new one.
    deleteBeforeReplace: false,
    changedKeys,
  };
}

/** True when the state shows the VM in a failure status, or its status could not be read after a failure. */
export function needsRepair(olds: Olds): boolean {
  return typeof olds.status === "string" && (isFailureStatus(olds.status) || olds.status === "Unknown");
}

/**
 * Why a replace must not happen, or undefined: the VM was adopted (`adoptId`). Its "replacement" would adopt
 * the same VM again, and the engine would then delete the old one, which is that same VM. So any
 * replace-forcing difference on an adopted VM stops the preview, naming the property and the ways out.
 */
export function adoptionRefusal(id: string, olds: Olds, news: News, replaces: readonly string[]): string | undefined {
  if (typeof olds.adoptId !== "string" || typeof news.adoptId !== "string") return undefined;
  const shown = replaces.map((key) => `${key} (the VM has ${JSON.stringify(olds[key] ?? null)}, the program declares ${JSON.stringify(news[key] ?? null)})`);
  return (
    `instance ${id} was adopted (adoptId) and ${shown.join(", ")} can only change with a new VM; an adopted VM is never ` +
    `replaced by Pulumi, because the replacement would adopt the same VM and then delete it. Declare the VM's value for ` +
    `${replaces.join(", ")}, or, to get a new VM deliberately, remove adoptId and run pulumi up (the adopted VM and its data are ` +
    `deleted once the new one exists). Nothing was changed.` +
    (replaces.includes("sshKeys") ? " (The API cannot show a VM's ssh keys: the adopted VM's keys are the ones recorded at adoption.)" : "")
  );
}

/**
 * Why an update must not run, or undefined: the program declares a smaller disk than the VM has. Disks only
 * grow, and replacing the VM to get a smaller one destroys its data, so that takes a deliberate
 * `pulumi up --replace` rather than an edit (or a disk grown outside Pulumi) silently turning into a new VM.
 */
export function diskShrinkRefusal(id: string, olds: Olds, news: News): string | undefined {
  if (typeof news.storage !== "number" || typeof olds.storage !== "number" || news.storage >= olds.storage) return undefined;
  return (
    `instance ${id} has a ${olds.storage} GB disk and the program declares storage: ${news.storage}; disks cannot shrink. ` +
    `Declare storage: ${olds.storage} (or more) to keep this VM, or replace it deliberately, losing its data, with ` +
    `\`pulumi up --replace <urn of this Instance>\` (keeping the hostname takes the resource option deleteBeforeReplace: ` +
    "true for that run, or a new hostname: the new VM cannot be made while the old one holds the name). Nothing was changed."
  );
}

/** What a step does, as its waits and the progress lines name it ("instance X to be stopped"). */
export function describeStep(step: UpdateStep, id: string): string {
  switch (step.kind) {
    case "repair": return `instance ${id} (in status Error) to be started again`;
    case "changeTier": return `instance ${id} to change to tier ${step.tierId}`;
    case "resize": return `instance ${id} to resize to ${step.cpu} CPU / ${step.memory} GB memory / ${step.storage} GB storage`;
    case "hostname": return `instance ${id} to be renamed ${step.hostname}`;
    case "password": return `instance ${id} to set its password`;
    case "publicAddress":
      return step.action === "add" ? `instance ${id} to get a public address`
        : step.giveBack ? `instance ${id} to give the reserved address ${step.giveBack} it no longer pins back to your account`
        : step.action === "remove" ? `instance ${id} to drop its public address`
        : `instance ${id} to use public address ${step.publicNetworkId}`;
    case "privateNetwork": return step.vswitchId === "" ? `instance ${id} to leave its private network` : `instance ${id} to join private network ${step.vswitchId}`;
    case "power": return `instance ${id} to be ${step.state}`;
  }
}

/**
 * The in-place steps that turn the state `olds` into the program `news`, in the documented order: repair
 * (a VM in Error is started first), changeTier, resize, hostname, password, publicAddress, privateNetwork,
 * power; a resize that turns dedicated CPU off goes before a tier change. Changes
 * that need no API call (deleteOptions, timeouts, stopping to manage a property) yield no step: `update`
 * then only re-reads. Each step carries its full target: resize sends cpu, memory and storage together
 * (the API requires all three), taking unset ones from the state.
 */
export function planInstanceUpdate(olds: Olds, news: News): UpdateStep[] {
  const steps: UpdateStep[] = [];
  if (needsRepair(olds)) steps.push({ kind: "repair" });
  if (news.tierId !== undefined && news.tierId !== olds.tierId) steps.push({ kind: "changeTier", tierId: news.tierId });
  const size = {
    cpu: news.cpu ?? olds.cpu!,
    memory: news.memory ?? olds.memory!,
    storage: news.storage ?? olds.storage!,
    dedicatedCpu: news.dedicatedCpu ?? olds.dedicatedCpu ?? false,
  };
  if (size.cpu !== olds.cpu || size.memory !== olds.memory || size.storage !== olds.storage || size.dedicatedCpu !== (olds.dedicatedCpu ?? false))
    steps.push({ kind: "resize", ...size });
  // Turning dedicated CPU off goes before a tier change: the new tier may not offer dedicated CPU, and the
  // API refuses to move a dedicated-CPU VM onto such a tier ("resize to shared CPU first").
  const tierIndex = steps.findIndex((s) => s.kind === "changeTier");
  const resizeIndex = steps.findIndex((s) => s.kind === "resize");
  if (tierIndex >= 0 && resizeIndex === tierIndex + 1 && size.dedicatedCpu === false && olds.dedicatedCpu === true)
    steps.splice(tierIndex, 0, steps.splice(resizeIndex, 1)[0]!);
  if (news.hostname !== undefined && news.hostname !== olds.hostname) steps.push({ kind: "hostname", hostname: news.hostname });
  if (news.password !== undefined && news.password !== olds.password) steps.push({ kind: "password", password: news.password });
  const address = plannedAddress(news);
  const giveBack = unpinnedAddress(olds, news);
  if (giveBack) steps.push({ kind: "publicAddress", action: "remove", giveBack });
  if (address && (giveBack || addressDiffers(olds, address))) steps.push(address);
  if (news.vswitchId !== undefined && news.vswitchId !== olds.vswitchId) steps.push({ kind: "privateNetwork", vswitchId: news.vswitchId });
  if (news.powerState !== undefined && news.powerState !== olds.powerState) steps.push({ kind: "power", state: news.powerState });
  return steps;
}

/**
 * The reserved address the state pinned (`publicNetworkId`) and the VM holds, when the program now asks for any
 * address (`publicIp: true`, no pin): it goes back to the account, as when the program pins another or none, and the
 * VM gets an address of its own. Kept, it stayed the user's address on a VM that no longer declares it, and another
 * Instance of the program pinning it was refused at every up (audit). Never the address the API gave this resource
 * (`madePublicIpId`: the state records the address held as `publicNetworkId`, also after a pin that failed).
 */
export function unpinnedAddress(olds: Olds, news: News): string | undefined {
  const pinned = olds.publicNetworkId;
  if (typeof pinned !== "string" || news.publicNetworkId !== undefined || news.publicIp !== true) return undefined;
  if (olds.publicIpId !== pinned || olds.madePublicIpId === pinned) return undefined;
  return pinned;
}

/** The address step the program asks for, regardless of the current state (undefined = unmanaged). */
export function plannedAddress(news: News): Extract<UpdateStep, { kind: "publicAddress" }> | undefined {
  if (typeof news.publicNetworkId === "string") return { kind: "publicAddress", action: "assign", publicNetworkId: news.publicNetworkId };
  if (news.publicIp === true) return { kind: "publicAddress", action: "add" };
  if (news.publicIp === false) return { kind: "publicAddress", action: "remove" };
  return undefined;
}
