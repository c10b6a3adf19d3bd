/**
 * The admin API under `/__sim` (JSON in and out, no API key): request log, reset, state dump,
 * out-of-band changes to instances (drift tests), faults, clock. Documented in simulator/README.md.
 */
import { z } from "zod";
import { HttpError } from "./errors";
import { isUuid } from "./ids";
import {
  allocateAutoIp, detachInstanceIp, instanceIp, joinVswitch, removeInstance, templateById, tierById,
} from "./model";
import { cancelOperation, finishNow } from "./operations";
import type { Simulator } from "./server";
import type { Instance, PublicIp, SimContext } from "./state";

/** An admin answer. */
export interface AdminAnswer {
  status: number;
  body: unknown;
}

/** Body of `PATCH /__sim/instances/{uuid}`: each given field is changed as if by someone else. */
export const instancePatchSchema = z.object({
  hostname: z.string().min(1).optional(),
  cpu: z.number().int().min(1).optional(),
  /** GB. */
  memory: z.number().int().min(1).optional(),
  /** GB. */
  storage: z.number().int().min(1).optional(),
  dedicatedCpu: z.boolean().optional(),
  tierId: z.number().int().optional(),
  templateId: z.number().int().optional(),
  /** Any status text, e.g. "Stopped", "Error", "Suspended". */
  status: z.string().min(1).optional(),
  /** Shorthand for status Running / Stopped. */
  powerState: z.enum(["running", "stopped"]).optional(),
  /** true: give it a new address (if none); false: take its address off (kept reserved); a uuid: assign that address. */
  publicIp: z.union([z.boolean(), z.string().refine(isUuid, "a public IP uuid")]).optional(),
  /** A vswitch uuid to join, or null to leave its private network. */
  vswitchId: z.string().refine(isUuid, "a vswitch uuid").nullable().optional(),
  /** Reverse DNS of its public address (null clears it). */
  rdns: z.string().nullable().optional(),
  password: z.string().optional(),
  /** Drop the running operation without applying it (operation_flag back to 0). */
  cancelOperation: z.boolean().optional(),
  /** Delete it out of band: it disappears (404); its address is released, block storages detached. */
  deleted: z.literal(true).optional(),
}).strict();

/** Body of `POST /__sim/instances`: an instance that already exists (no create operation), for adopt tests. */
export const instanceSeedSchema = z.object({
  hostname: z.string().min(1),
  locationId: z.number().int().default(1),
  tierId: z.number().int().default(1),
  templateId: z.number().int().default(1),
  cpu: z.number().int().min(1).default(1),
  /** GB. */
  memory: z.number().int().min(1).default(1),
  /** GB. */
  storage: z.number().int().min(1).default(20),
  dedicatedCpu: z.boolean().default(false),
  username: z.string().default("admin"),
  password: z.string().default("Sim-Passw0rd"),
  sshKeys: z.array(z.string()).default([]),
  includeBackup: z.boolean().default(false),
  status: z.string().min(1).default("Running"),
  /** true: a new address; a uuid: that reserved address; false: none. */
  publicIp: z.union([z.boolean(), z.string().refine(isUuid, "a public IP uuid")]).default(false),
  vswitchId: z.string().refine(isUuid, "a vswitch uuid").nullable().default(null),
}).strict();

/** Body of `PATCH /__sim/firewall-rules/{id}`: a rule changed or deleted in the panel (wire codes: action A/D). */
export const firewallRulePatchSchema = z.object({
  destinationPort: z.string().min(1).optional(),
  protocol: z.enum(["tcp", "udp"]).optional(),
  /** "A" accepts, "D" drops (the API's codes). */
  action: z.enum(["A", "D"]).optional(),
  sourceIp: z.string().nullable().optional(),
  description: z.string().optional(),
  /** Delete it out of band: it disappears from its instance's list. */
  deleted: z.literal(true).optional(),
}).strict();

/** Body of `PATCH /__sim/snapshots/{uuid}`: a snapshot renamed, marked, or deleted in the panel. */
export const snapshotPatchSchema = z.object({
  name: z.string().min(1).optional(),
  description: z.string().optional(),
  /** Any status text, e.g. "Error". */
  status: z.string().min(1).optional(),
  /** Delete it out of band (not while an operation is making or removing it: 409). */
  deleted: z.literal(true).optional(),
}).strict();

/** Body of `PATCH /__sim/block-storages/{uuid}`: attached to that instance in the panel, or detached (null). */
export const blockStoragePatchSchema = z.object({
  instanceId: z.string().refine(isUuid, "an instance uuid").nullable(),
}).strict();

const clockSchema = z.object({ advanceSeconds: z.number().min(0) }).strict();
const finishSchema = z.object({ outcome: z.enum(["success", "failure"]).optional() }).strict();

const badRequest = (message: string, issues?: unknown): HttpError => new HttpError(400, { message, ...(issues ? { issues } : {}) });

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body);
  if (!result.success) throw badRequest("Invalid admin request body.", result.error.issues);
  return result.data;
}

/** An instance with every internal field plus derived ones (for the state dump and PATCH answers). */
function instanceDump(ctx: SimContext, inst: Instance): Record<string, unknown> {
  const ip = instanceIp(ctx.state, inst);
  return {
    ...inst,
    operationFlag: inst.operationId ? 1 : 0,
    operation: ctx.state.operations.find((o) => o.id === inst.operationId) ?? null,
    publicIpUuid: ip?.uuid ?? null,
    publicIpAddress: ip?.address ?? null,
    rdns: ip?.rdns ?? null,
    blockStorageIds: ctx.state.blockStorages.filter((b) => b.instanceUuid === inst.uuid).map((b) => b.uuid),
  };
}

function findInstanceOr404(ctx: SimContext, uuid: string): Instance {
  const inst = ctx.state.instances.find((i) => i.uuid === uuid.toLowerCase());
  if (!inst) throw new HttpError(404, { message: `No instance ${uuid} in the simulator.` });
  return inst;
}

function patchInstance(ctx: SimContext, uuid: string, body: unknown): AdminAnswer {
  const patch = parse(instancePatchSchema, body);
  const state = ctx.state;
  const inst = findInstanceOr404(ctx, uuid);
  if (patch.tierId !== undefined && !tierById(state, patch.tierId)) throw badRequest(`Unknown tier ${patch.tierId}.`);
  if (patch.templateId !== undefined && !templateById(state, patch.templateId)) throw badRequest(`Unknown template ${patch.templateId}.`);
  if (patch.cancelOperation) {
    const op = state.operations.find((o) => o.id === inst.operationId);
    if (op) cancelOperation(ctx, op);
  }
  if (patch.deleted) {
    const op = state.operations.find((o) => o.id === inst.operationId);
    if (op) cancelOperation(ctx, op);
    removeInstance(state, inst, true, false, ctx.now, { by: "panel", requestedAt: ctx.now });
    return { status: 200, body: { message: "Instance deleted out of band.", data: { uuid: inst.uuid, deleted: true } } };
  }
  if (patch.hostname !== undefined) inst.hostname = patch.hostname;
  if (patch.cpu !== undefined) inst.cpu = patch.cpu;
  if (patch.memory !== undefined) inst.memoryGb = patch.memory;
  if (patch.storage !== undefined) inst.storageGb = patch.storage;
  if (patch.dedicatedCpu !== undefined) inst.dedicatedCpu = patch.dedicatedCpu;
  if (patch.tierId !== undefined) inst.tierId = patch.tierId;
  if (patch.templateId !== undefined) inst.templateId = patch.templateId;
  if (patch.password !== undefined) inst.password = patch.password;
  if (patch.powerState !== undefined) inst.status = patch.powerState === "running" ? "Running" : "Stopped";
  if (patch.status !== undefined) inst.status = patch.status;
  if (patch.publicIp !== undefined) {
    if (patch.publicIp === true) {
      if (!instanceIp(state, inst)) allocateAutoIp(ctx, inst.locationId).instanceUuid = inst.uuid;
    } else if (patch.publicIp === false) {
      detachInstanceIp(state, inst, false);
    } else {
      const ip = state.publicIps.find((p) => p.uuid === (patch.publicIp as string).toLowerCase());
      if (!ip) throw badRequest(`Unknown public IP ${patch.publicIp}.`);
      if (ip.instanceUuid && ip.instanceUuid !== inst.uuid) throw badRequest(`Public IP ${ip.address} is assigned to ${ip.instanceUuid}.`);
      detachInstanceIp(state, inst, false);
      ip.instanceUuid = inst.uuid;
    }
  }
  if (patch.vswitchId !== undefined) {
    const vs = patch.vswitchId === null ? null : state.vswitches.find((v) => v.uuid === patch.vswitchId!.toLowerCase());
    if (vs === undefined) throw badRequest(`Unknown vswitch ${patch.vswitchId}.`);
    joinVswitch(state, inst, vs, ctx.now);
  }
  if (patch.rdns !== undefined) {
    const ip = instanceIp(state, inst);
    if (!ip) throw badRequest("The instance has no public IP to set a reverse DNS on.");
    ip.rdns = patch.rdns;
  }
  inst.updatedAt = ctx.now;
  return { status: 200, body: { message: "Instance changed out of band.", data: instanceDump(ctx, inst) } };
}

function patchFirewallRule(ctx: SimContext, id: string, body: unknown): AdminAnswer {
  const patch = parse(firewallRulePatchSchema, body);
  const rule = ctx.state.firewallRules.find((r) => r.id === id);
  if (!rule) throw new HttpError(404, { message: `No firewall rule ${id} in the simulator.` });
  if (patch.deleted) {
    ctx.state.firewallRules = ctx.state.firewallRules.filter((r) => r !== rule);
    return { status: 200, body: { message: "Firewall rule deleted out of band.", data: { id, deleted: true } } };
  }
  if (patch.destinationPort !== undefined) rule.destinationPort = patch.destinationPort;
  if (patch.protocol !== undefined) rule.protocol = patch.protocol;
  if (patch.action !== undefined) rule.action = patch.action;
  if (patch.sourceIp !== undefined) rule.sourceIp = patch.sourceIp;
  if (patch.description !== undefined) rule.description = patch.description;
  rule.updatedAt = ctx.now;
  return { status: 200, body: { message: "Firewall rule changed out of band.", data: rule } };
}

function patchSnapshot(ctx: SimContext, uuid: string, body: unknown): AdminAnswer {
  const patch = parse(snapshotPatchSchema, body);
  const snapshot = ctx.state.snapshots.find((s) => s.uuid === uuid.toLowerCase());
  if (!snapshot) throw new HttpError(404, { message: `No snapshot ${uuid} in the simulator.` });
  if (patch.deleted) {
    if (ctx.state.operations.some((o) => o.params["snapshotUuid"] === snapshot.uuid)) {
      throw new HttpError(409, { message: `Snapshot ${uuid} has an operation running on it.` });
    }
    ctx.state.snapshots = ctx.state.snapshots.filter((s) => s !== snapshot);
    return { status: 200, body: { message: "Snapshot deleted out of band.", data: { uuid: snapshot.uuid, deleted: true } } };
  }
  if (patch.name !== undefined) snapshot.name = patch.name;
  if (patch.description !== undefined) snapshot.description = patch.description;
  if (patch.status !== undefined) snapshot.status = patch.status;
  return { status: 200, body: { message: "Snapshot changed out of band.", data: snapshot } };
}

function patchBlockStorage(ctx: SimContext, uuid: string, body: unknown): AdminAnswer {
  const { instanceId } = parse(blockStoragePatchSchema, body);
  const storage = ctx.state.blockStorages.find((b) => b.uuid === uuid.toLowerCase());
  if (!storage) throw new HttpError(404, { message: `No block storage ${uuid} in the simulator.` });
  if (instanceId !== null) {
    const inst = findInstanceOr404(ctx, instanceId);
    if (inst.locationId !== storage.locationId) throw badRequest(`Block storage ${uuid} is not in the instance's location.`);
    storage.instanceUuid = inst.uuid;
  } else storage.instanceUuid = null;
  return { status: 200, body: { message: "Block storage changed out of band.", data: storage } };
}

function seedInstance(ctx: SimContext, body: unknown): AdminAnswer {
  const input = parse(instanceSeedSchema, body);
  const state = ctx.state;
  if (!state.locations.some((l) => l.id === input.locationId)) throw badRequest(`Unknown location ${input.locationId}.`);
  if (!tierById(state, input.tierId)) throw badRequest(`Unknown tier ${input.tierId}.`);
  if (!templateById(state, input.templateId)) throw badRequest(`Unknown template ${input.templateId}.`);
  const vs = input.vswitchId === null ? null : state.vswitches.find((v) => v.uuid === input.vswitchId!.toLowerCase());
  if (vs === undefined || (vs && vs.locationId !== input.locationId)) throw badRequest(`Vswitch ${input.vswitchId} is not in location ${input.locationId}.`);
  let ip: PublicIp | undefined;
  if (typeof input.publicIp === "string") {
    ip = state.publicIps.find((p) => p.uuid === (input.publicIp as string).toLowerCase());
    if (!ip || ip.instanceUuid !== null || ip.locationId !== input.locationId) throw badRequest(`Public IP ${input.publicIp} is not a free address of location ${input.locationId}.`);
  }
  const inst: Instance = {
    uuid: ctx.ids.uuid(), id: state.counters.instanceId++, seq: state.counters.instanceSeq++,
    hostname: input.hostname, username: input.username, password: input.password, sshKeys: input.sshKeys,
    includeBackup: input.includeBackup, cpu: input.cpu, memoryGb: input.memory, storageGb: input.storage,
    dedicatedCpu: input.dedicatedCpu, tierId: input.tierId, locationId: input.locationId, templateId: input.templateId,
    status: input.status, operationId: null, vswitchUuid: null, privateIp: null, nodeId: input.locationId * 10 + 1,
    billingId: state.counters.billingId++, firewallDefault: "A", clonedFrom: null, createdAt: ctx.now,
    updatedAt: ctx.now, lastStartedAt: input.status === "Running" ? ctx.now : null, lastBackupAt: null,
  };
  state.instances.push(inst);
  if (input.publicIp === true) ip = allocateAutoIp(ctx, inst.locationId);
  if (ip) ip.instanceUuid = inst.uuid;
  if (vs) joinVswitch(state, inst, vs, ctx.now);
  return { status: 200, body: { message: "Instance added.", data: instanceDump(ctx, inst) } };
}

/** Handles one admin request; `path` is relative to `/__sim`. */
export function handleAdmin(sim: Simulator, method: string, path: string, query: URLSearchParams, body: unknown): AdminAnswer {
  try {
    return route(sim, method.toUpperCase(), path, query, body);
  } catch (err) {
    if (err instanceof HttpError) return { status: err.status, body: err.body };
    throw err;
  }
}

function route(sim: Simulator, method: string, path: string, query: URLSearchParams, body: unknown): AdminAnswer {
  const ctx = sim.context();
  const is = (m: string, p: string): boolean => method === m && path === p;
  if (is("GET", "/") || is("GET", "/health")) {
    return { status: 200, body: { ok: true, seed: sim.seed, opSeconds: sim.opSeconds, now: new Date(ctx.now).toISOString() } };
  }
  if (is("GET", "/requests")) {
    const since = query.get("since");
    let entries = sim.log;
    if (since !== null && since !== "") {
      if (/^\d+$/.test(since)) entries = entries.filter((e) => e.seq > Number(since));
      else {
        const t = Date.parse(since);
        if (Number.isNaN(t)) throw badRequest("`since` is a sequence number or an ISO time.");
        entries = entries.filter((e) => Date.parse(e.time) >= t);
      }
    }
    return { status: 200, body: { requests: entries } };
  }
  if (is("DELETE", "/requests") || is("POST", "/requests/clear")) {
    sim.log = [];
    return { status: 200, body: { message: "Request log cleared." } };
  }
  if (is("POST", "/reset")) {
    sim.reset();
    return { status: 200, body: { message: "Simulator reset to its seeded state." } };
  }
  if (is("GET", "/state")) {
    const { instances, ...rest } = ctx.state;
    return {
      status: 200,
      body: { now: new Date(ctx.now).toISOString(), opSeconds: sim.opSeconds, ...rest, instances: instances.map((i) => instanceDump(ctx, i)) },
    };
  }
  if (is("GET", "/faults")) return { status: 200, body: sim.faults.snapshot() };
  if (is("POST", "/faults")) {
    const result = (() => {
      try {
        sim.faults.apply(body);
        return null;
      } catch (err) {
        return err instanceof z.ZodError ? err.issues : [String(err)];
      }
    })();
    if (result) throw badRequest("Invalid faults.", result);
    return { status: 200, body: sim.faults.snapshot() };
  }
  if (is("DELETE", "/faults")) {
    sim.faults.clear();
    return { status: 200, body: sim.faults.snapshot() };
  }
  if (is("GET", "/clock")) return { status: 200, body: { now: new Date(ctx.now).toISOString(), offsetMs: sim.clockOffsetMs } };
  if (is("POST", "/clock")) {
    const { advanceSeconds } = parse(clockSchema, body);
    sim.clockOffsetMs += advanceSeconds * 1000;
    const later = sim.context();
    return { status: 200, body: { now: new Date(later.now).toISOString(), offsetMs: sim.clockOffsetMs } };
  }
  if (is("POST", "/instances")) return seedInstance(ctx, body);
  const objectMatch = /^\/(firewall-rules|snapshots|block-storages)\/([^/]+)$/.exec(path);
  if (objectMatch && method === "PATCH") {
    const id = decodeURIComponent(objectMatch[2]!);
    if (objectMatch[1] === "firewall-rules") return patchFirewallRule(ctx, id, body);
    if (objectMatch[1] === "snapshots") return patchSnapshot(ctx, id, body);
    return patchBlockStorage(ctx, id, body);
  }
  const instanceMatch = /^\/instances\/([^/]+)(\/[a-z-]+)?$/.exec(path);
  if (instanceMatch) {
    const uuid = decodeURIComponent(instanceMatch[1]!);
    const action = instanceMatch[2];
    if (method === "GET" && !action) return { status: 200, body: { data: instanceDump(ctx, findInstanceOr404(ctx, uuid)) } };
    if (method === "PATCH" && !action) return patchInstance(ctx, uuid, body);
    if (method === "POST" && action === "/finish-operation") {
      const { outcome } = parse(finishSchema, body);
      const inst = findInstanceOr404(ctx, uuid);
      const op = ctx.state.operations.find((o) => o.id === inst.operationId);
      if (!op) throw badRequest("No operation is running on this instance.");
      finishNow(ctx, op, outcome);
      const after = ctx.state.instances.find((i) => i.uuid === inst.uuid);
      return { status: 200, body: { message: "Operation finished.", data: after ? instanceDump(ctx, after) : { uuid: inst.uuid, deleted: true } } };
    }
    if (method === "POST" && action === "/backups") {
      const inst = findInstanceOr404(ctx, uuid);
      const backup = {
        uuid: ctx.ids.uuid(), instanceUuid: inst.uuid, schedule: "Daily", sizeGb: inst.storageGb,
        attachedStorage: ctx.state.blockStorages.filter((b) => b.instanceUuid === inst.uuid).map((b) => ({ id: b.uuid, name: b.name, size: b.sizeGb })),
        createdAt: ctx.now,
      };
      ctx.state.backups.push(backup);
      inst.lastBackupAt = ctx.now;
      return { status: 200, body: { message: "Backup added.", data: backup } };
    }
  }
  return { status: 404, body: { message: `No admin route ${method} /__sim${path}.` } };
}
