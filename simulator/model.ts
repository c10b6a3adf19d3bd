/**
 * Domain rules shared by the handlers, the operation state machine and the admin API: lookups that answer
 * 404, the busy rule, prices, and address / network / storage bookkeeping.
 */
import { busy, fieldError, notFound } from "./errors";
import type {
  BlockStorage, Instance, Location, OsTemplate, PublicIp, SimContext, SimState, Tier, Vswitch,
} from "./state";
import { round2 } from "./wire";

/** The instance with this uuid, or a 404 (deleted instances are gone). */
export function findInstance(state: SimState, uuid: string): Instance {
  const inst = state.instances.find((i) => i.uuid === uuid.toLowerCase());
  if (!inst) throw notFound("Instance");
  return inst;
}

/**
 * Refuses a state-changing request while an operation runs on the instance (409). Decision: every write
 * that touches an instance is refused while it is busy, including the ones that apply at once (hostname,
 * password, addresses, network, storage, firewall), so callers see one simple rule.
 */
export function requireIdle(inst: Instance): void {
  if (inst.operationId !== null) throw busy();
}

/** Tier by id (undefined when unknown). */
export const tierById = (state: SimState, id: number): Tier | undefined => state.tiers.find((t) => t.id === id);
/** Location by id (undefined when unknown). */
export const locationById = (state: SimState, id: number): Location | undefined => state.locations.find((l) => l.id === id);
/** OS template by id (undefined when unknown). */
export const templateById = (state: SimState, id: number): OsTemplate | undefined => state.templates.find((t) => t.id === id);

/** Tier of an instance (always present: ids are validated on the way in). */
export function tierOf(state: SimState, inst: Instance): Tier {
  return tierById(state, inst.tierId) ?? state.tiers[0]!;
}
/** Location of an instance. */
export function locationOf(state: SimState, inst: Instance): Location {
  return locationById(state, inst.locationId) ?? state.locations[0]!;
}
/** OS template of an instance. */
export function templateOf(state: SimState, inst: Instance): OsTemplate {
  return templateById(state, inst.templateId) ?? state.templates[0]!;
}

/** Hourly price of a size on a tier while running (Rupiah). */
export function hourlyPrice(tier: Tier, size: { cpu: number; memoryGb: number; storageGb: number; dedicatedCpu: boolean }): number {
  const cpu = size.cpu * (tier.cpuPerHour + (size.dedicatedCpu ? tier.dedicatedCpuPerHour : 0));
  return round2(cpu + size.memoryGb * tier.memoryPerGbHour + size.storageGb * tier.storagePerGbHour);
}

/** Hourly price of an instance while running. */
export function instancePricePerHour(state: SimState, inst: Instance): number {
  return hourlyPrice(tierOf(state, inst), inst);
}

/** Hourly price of an instance while stopped: its storage only. */
export function instanceInactivePricePerHour(state: SimState, inst: Instance): number {
  return round2(inst.storageGb * tierOf(state, inst).storagePerGbHour);
}

/** The public address assigned to an instance, if any. */
export function instanceIp(state: SimState, inst: Instance): PublicIp | undefined {
  return state.publicIps.find((ip) => ip.instanceUuid === inst.uuid);
}

/** Block storages attached to an instance. */
export function attachedStorages(state: SimState, inst: Instance): BlockStorage[] {
  return state.blockStorages.filter((b) => b.instanceUuid === inst.uuid);
}

/** The vswitch an instance is a member of, if any. */
export function instanceVswitch(state: SimState, inst: Instance): Vswitch | undefined {
  return inst.vswitchUuid ? state.vswitches.find((v) => v.uuid === inst.vswitchUuid) : undefined;
}

/** A new address from the location's automatic pool, assigned to nobody yet. */
export function allocateAutoIp(ctx: SimContext, locationId: number): PublicIp {
  const loc = locationById(ctx.state, locationId) ?? ctx.state.locations[0]!;
  const host = ctx.state.counters.autoIpHost[loc.id] ?? 10;
  ctx.state.counters.autoIpHost[loc.id] = host + 1;
  const ip: PublicIp = {
    uuid: ctx.ids.uuid(), address: `${loc.autoIpPrefix}.${host}`, locationId: loc.id, instanceUuid: null,
    rdns: null, seeded: false, createdAt: ctx.now,
  };
  ctx.state.publicIps.push(ip);
  return ip;
}

/**
 * Resolves a `public_network` value for an instance in a location: the address must exist in the
 * account, be in that location and be unassigned (or already assigned to this same instance).
 */
export function reservedIpFor(state: SimState, field: string, ipUuid: string, locationId: number, instanceUuid?: string): PublicIp {
  const ip = state.publicIps.find((p) => p.uuid === ipUuid.toLowerCase());
  if (!ip) throw fieldError(field, `The selected ${field.replace(/_/g, " ")} is invalid.`);
  if (ip.locationId !== locationId) throw fieldError(field, `The public network must be in the same location as the instance.`);
  if (ip.instanceUuid !== null && ip.instanceUuid !== instanceUuid) {
    throw fieldError(field, `The public network is already assigned to another instance.`);
  }
  return ip;
}

/**
 * Takes the public address off an instance. `release: false` keeps it in the account unassigned (a
 * reserved address, usable again as `public_network`); `release: true` returns it to the provider
 * (it disappears from the account).
 */
export function detachInstanceIp(state: SimState, inst: Instance, release: boolean): void {
  const ip = instanceIp(state, inst);
  if (!ip) return;
  if (release) state.publicIps = state.publicIps.filter((p) => p !== ip);
  else {
    ip.instanceUuid = null;
    ip.rdns = null;
  }
}

/** Resolves a vswitch uuid for an instance's location (422 on an unknown uuid or another location). */
export function vswitchFor(state: SimState, field: string, uuid: string, locationId: number): Vswitch {
  const vs = state.vswitches.find((v) => v.uuid === uuid.toLowerCase());
  if (!vs) throw fieldError(field, `The selected ${field} is invalid.`);
  if (vs.locationId !== locationId) throw fieldError(field, "The private network must be in the same location as the instance.");
  return vs;
}

/** Joins an instance to a vswitch (leaving its previous one), giving it the next free private address. */
export function joinVswitch(state: SimState, inst: Instance, vs: Vswitch | null, now: number): void {
  const previous = instanceVswitch(state, inst);
  if (previous?.uuid === vs?.uuid) return;
  if (previous) previous.updatedAt = now;
  inst.vswitchUuid = vs ? vs.uuid : null;
  inst.privateIp = vs ? nextPrivateIp(state, vs) : null;
  if (vs) vs.updatedAt = now;
}

function nextPrivateIp(state: SimState, vs: Vswitch): string {
  const base = vs.networkIp.split("/")[0]!.split(".").slice(0, 3).join(".");
  const used = new Set(state.instances.filter((i) => i.vswitchUuid === vs.uuid).map((i) => i.privateIp));
  for (let host = 10; host < 255; host++) {
    const candidate = `${base}.${host}`;
    if (!used.has(candidate)) return candidate;
  }
  return `${base}.254`;
}

/**
 * Removes a deleted instance and everything that belongs to it. Its address is released or kept per
 * `remove_ip`; attached block storages are deleted (`remove_block_storage`) or detached and kept.
 */
export function removeInstance(
  state: SimState, inst: Instance, removeIp: boolean, removeBlockStorage: boolean, now: number,
  how: { by: "api" | "panel"; requestedAt: number } = { by: "api", requestedAt: now },
): void {
  const storages = attachedStorages(state, inst);
  state.deletedInstances.push({
    uuid: inst.uuid, hostname: inst.hostname, by: how.by, requestedAt: how.requestedAt, deletedAt: now,
    removeIp, removeBlockStorage, blockStorages: storages.map((b) => b.uuid), publicIpUuid: instanceIp(state, inst)?.uuid ?? null,
  });
  detachInstanceIp(state, inst, removeIp);
  joinVswitch(state, inst, null, now);
  for (const b of storages) {
    if (removeBlockStorage) state.blockStorages = state.blockStorages.filter((x) => x !== b);
    else b.instanceUuid = null;
  }
  state.snapshots = state.snapshots.filter((s) => s.instanceUuid !== inst.uuid);
  state.backups = state.backups.filter((b) => b.instanceUuid !== inst.uuid);
  state.firewallRules = state.firewallRules.filter((r) => r.instanceUuid !== inst.uuid);
  state.instances = state.instances.filter((i) => i !== inst);
}
