/**
 * The soak's comparison of the simulator's truth (`GET /__sim/state`) with the modelled Pulumi state.
 *
 * - orphan: an object in the simulator (instance, snapshot, firewall rule) the state does not know and no
 *   pending create covers;
 * - duplicate: a second object where the program declares one (a VM named like one the state or a pending
 *   create already accounts for, a pending create covering two objects, a second snapshot or rule with the
 *   same name or port on the same VM);
 * - leak: an address reserved in the account (not attached to anything) that the state does not know; a
 *   block storage or private network attached to a VM while no resource in the state declares that attachment;
 * - error-as-success: after an `up` that reported success, a VM of the state is in status Error;
 * - lost: after an `up` that reported success, the state holds a VM the simulator no longer has (the VM was
 *   deleted by the up itself, e.g. the "old" half of a replacement that was the same VM);
 * - not-as-declared: after an `up` that reported success, an object differs from what the program declares
 *   (a resize skipped, an address not given back, a rule not updated): success must mean "as declared";
 * - false-drift: right after such an `up`, with nothing changed since, `pulumi preview --refresh` plans a change
 *   (the user's `--expect-no-changes` check fails on a cloud that is as declared);
 * - stuck: with the faults gone and deadlines raised, `up` of the program fails twice in a row, for a reason
 *   other than a documented refusal (lifecycle.ts convergePhase);
 * - user-object-lost: an object of the user's own account that the stack did not make (a seeded reserved address,
 *   a block storage disk, a VM made in the panel to clone or adopt) no longer exists, after any phase: a stack must
 *   never release an address it did not reserve, nor delete a disk unless the program asked for it
 *   (`deleteOptions.removeBlockStorage` on the VM that holds it, when that VM itself is destroyed).
 *
 * And `deleteOptions.removeBlockStorage` honoured both ways (diskFates, from the simulator's record of each VM's
 * removal with the disks attached at that moment): a disk a delete was to take that still exists is a leak (the
 * user asked for it gone; it bills); a disk a delete was to leave that is gone is user-object-lost.
 */
import type { PendingOperation, ResourceState, StackState } from "./engine";

/** The parts of the simulator's state dump the soak reads. */
export interface SimTruth {
  instances: {
    uuid: string; hostname: string; status: string; operationFlag: number; vswitchUuid: string | null;
    operation: { kind: string; startedAt: number; endsAt: number | null } | null;
    cpu: number; memoryGb: number; storageGb: number; tierId: number; password: string;
    publicIpUuid: string | null; rdns: string | null; dedicatedCpu: boolean;
  }[];
  publicIps: { uuid: string; address: string; locationId: number; instanceUuid: string | null; seeded: boolean }[];
  blockStorages: { uuid: string; locationId: number; instanceUuid: string | null }[];
  vswitches: { uuid: string; locationId: number }[];
  snapshots: { uuid: string; instanceUuid: string; name: string; status: string }[];
  firewallRules: { id: string; instanceUuid: string; destinationPort: string; protocol: string; action: "A" | "D" }[];
  /** The simulator's clock at the dump (ISO). */
  now?: string;
  /**
   * Every VM removal so far, oldest first, as the simulator saw it (simulator/state.ts DeletedInstance): by a
   * delete request (`api`) or in the panel, when it was requested, what it asked, and the disks attached when it went.
   */
  deletedInstances?: {
    uuid: string; hostname: string; by: "api" | "panel"; requestedAt: number; deletedAt: number;
    removeIp: boolean; removeBlockStorage: boolean; blockStorages: string[]; publicIpUuid?: string | null;
  }[];
}

/** A VM removal of the simulator's record. */
export type DeletedInstance = NonNullable<SimTruth["deletedInstances"]>[number];

/** One problem found, with what it is about. */
export interface Finding {
  /** `harness-error`: the soak itself failed (a bug of the instrument, not of the provider). */
  kind:
    | "orphan" | "duplicate" | "leak" | "error-as-success" | "lost" | "not-as-declared" | "false-drift" | "stuck" | "undestroyable"
    | "user-object-lost" | "harness-error";
  /** The object (uuid, or resource name) it is about: one object counts once per lifecycle. */
  object: string;
  what: string;
}

/** Every string anywhere in a value (ids referenced by outputs or inputs). */
function strings(v: unknown, out: Set<string>): Set<string> {
  if (typeof v === "string") out.add(v.toLowerCase());
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (v && typeof v === "object") for (const x of Object.values(v)) strings(x, out);
  return out;
}

/** The objects a pending create may have made (what the user would find in the panel). */
export function coveredBy(op: PendingOperation, truth: SimTruth): string[] {
  const i = op.inputs;
  switch (op.resourceType) {
    case "Instance":
      return truth.instances.filter((v) => v.hostname === i.hostname || v.uuid === i.adoptId).map((v) => v.uuid);
    case "Snapshot":
      return truth.snapshots.filter((s) => s.instanceUuid === i.instanceId && s.name === i.name).map((s) => s.uuid);
    case "FirewallRule":
      return truth.firewallRules.filter((r) => r.instanceUuid === i.instanceId && r.destinationPort === String(i.port) && r.protocol === i.protocol).map((r) => r.id);
    case "PublicIp":
      return truth.publicIps.filter((p) => p.instanceUuid === i.instanceId).map((p) => p.uuid);
    case "VswitchAttachment":
      return truth.instances.filter((v) => v.uuid === i.instanceId && v.vswitchUuid === i.vswitchId).map((v) => `${v.uuid}/${i.vswitchId}`);
    case "BlockStorageAttachment":
      return truth.blockStorages.filter((b) => b.uuid === i.blockStorageId && b.instanceUuid === i.instanceId).map((b) => b.uuid);
  }
}

/** The record of a create the provider could not confirm (its placeholder id's state), if `r` is one. */
function unconfirmedRecord(r: ResourceState): { existing: string[] } | undefined {
  if (!r.id.startsWith("unconfirmed-")) return undefined;
  const record = r.outputs.unconfirmedCreate as { existing?: unknown } | undefined;
  return { existing: Array.isArray(record?.existing) ? record.existing.filter((x): x is string => typeof x === "string") : [] };
}

/**
 * Compares after a phase. `upSucceeded`: the phase was an `up` that reported success. `ownedByUser`: VMs the
 * user made outside the program (to adopt) that no state has held yet: while an adoption has not succeeded
 * they are the user's, not orphans (nothing was lost: the provider never created or held them).
 */
export function compare(state: StackState, truth: SimTruth, upSucceeded: boolean, ownedByUser: ReadonlySet<string> = new Set()): Finding[] {
  const findings: Finding[] = [];
  const known = new Set<string>([...state.forgotten, ...ownedByUser].map((id) => id.toLowerCase()));
  for (const r of state.resources) {
    known.add(r.id.toLowerCase());
    strings(r.outputs, known);
    strings(r.inputs, known);
  }
  const ofType = (t: ResourceState["type"]) => state.resources.filter((r) => r.type === t);
  const pendingCover = new Map<string, PendingOperation>();
  // A create recorded as unconfirmed (provider/resources/common/unconfirmed.ts) covers, like a pending create,
  // the one object it may have made: matching its recorded inputs, not listed before it was sent.
  for (const r of state.resources) {
    const record = unconfirmedRecord(r);
    if (!record) continue;
    const op: PendingOperation = { type: "creating", urn: r.urn, name: r.name, resourceType: r.type, inputs: r.outputs, id: r.id };
    const covered = coveredBy(op, truth).filter((id) => !known.has(id.toLowerCase()) && !record.existing.includes(id));
    for (const id of covered) pendingCover.set(id, op);
    if (covered.length > 1) findings.push({ kind: "duplicate", object: covered[1]!, what: `unconfirmed create of ${r.name} covers ${covered.length} objects: ${covered.join(", ")}` });
  }
  for (const op of state.pending) {
    const covered = coveredBy(op, truth).filter((id) => !known.has(id.toLowerCase()));
    for (const id of covered) pendingCover.set(id, op);
    if (covered.length > 1) findings.push({ kind: "duplicate", object: covered[1]!, what: `pending create of ${op.name} covers ${covered.length} objects: ${covered.join(", ")}` });
    // A pending create whose object exists while the state ALSO got that resource under another id (not the
    // one a replacement legitimately keeps until its create finishes): the re-run made a second one.
    const recorded = state.resources.find((r) => r.urn === op.urn && !r.delete && !r.pendingReplacement && r.id !== op.replacing);
    if (recorded && covered.length > 0 && op.resourceType !== "PublicIp")
      findings.push({ kind: "duplicate", object: covered[0]!, what: `${op.name}: the interrupted create made ${covered.join(", ")} and the next up recorded another, ${recorded.id}` });
  }

  // One object held by two live resources of the state (audit: two PublicIps recorded one address; removing either
  // took it off while the other declared it).
  const holders = new Map<string, string>();
  for (const r of state.resources) {
    if (r.delete || r.pendingReplacement) continue;
    const key = `${r.type}:${r.id.toLowerCase()}`;
    const other = holders.get(key);
    if (other !== undefined) findings.push({ kind: "duplicate", object: `twice:${r.id}`, what: `${r.type} ${r.id} is held by two resources of the state, ${other} and ${r.name}` });
    else holders.set(key, r.name);
  }

  // Instances.
  const stateVms = ofType("Instance");
  for (const vm of truth.instances) {
    if (known.has(vm.uuid) || pendingCover.has(vm.uuid)) continue;
    const twin = stateVms.find((r) => r.outputs.hostname === vm.hostname || r.inputs.hostname === vm.hostname);
    if (twin) findings.push({ kind: "duplicate", object: vm.uuid, what: `instance ${vm.uuid} (${vm.hostname}, ${vm.status}) besides ${twin.name} ${twin.id} in the state` });
    else findings.push({ kind: "orphan", object: vm.uuid, what: `instance ${vm.uuid} (${vm.hostname}, ${vm.status}) is in no state` });
  }
  // Snapshots and firewall rules.
  for (const s of truth.snapshots) {
    if (known.has(s.uuid) || pendingCover.has(s.uuid)) continue;
    const twin = ofType("Snapshot").find((r) => r.outputs.instanceId === s.instanceUuid && r.outputs.name === s.name);
    findings.push({ kind: twin ? "duplicate" : "orphan", object: s.uuid, what: `snapshot ${s.uuid} (${s.name}, ${s.status}) of ${s.instanceUuid}${twin ? ` besides ${twin.id}` : " is in no state"}` });
  }
  for (const rule of truth.firewallRules) {
    if (known.has(rule.id.toLowerCase()) || pendingCover.has(rule.id)) continue;
    const twin = ofType("FirewallRule").find((r) => r.outputs.instanceId === rule.instanceUuid && String(r.outputs.port) === rule.destinationPort && r.outputs.protocol === rule.protocol);
    findings.push({ kind: twin ? "duplicate" : "orphan", object: rule.id, what: `firewall rule ${rule.id} (${rule.protocol}/${rule.destinationPort}) on ${rule.instanceUuid}${twin ? ` besides ${twin.id}` : " is in no state"}` });
  }
  // Addresses reserved in the account (attached to nothing) that no state records.
  for (const ip of truth.publicIps) {
    if (ip.seeded || ip.instanceUuid !== null) continue;
    if (known.has(ip.uuid) || known.has(ip.address) || pendingCover.has(ip.uuid)) continue;
    findings.push({ kind: "leak", object: ip.uuid, what: `public address ${ip.address} (${ip.uuid}) is reserved in the account and in no state` });
  }
  // Attachments no resource declares.
  // (only on VMs the state knows: an orphaned or duplicate VM is reported once, as such)
  const stateVmIds = new Set(stateVms.map((r) => r.id));
  for (const b of truth.blockStorages) {
    if (b.instanceUuid === null || !stateVmIds.has(b.instanceUuid) || pendingCover.has(b.uuid)) continue;
    if (ofType("BlockStorageAttachment").some((r) => r.id === b.uuid) || state.forgotten.includes(b.uuid)) continue;
    findings.push({ kind: "leak", object: `${b.uuid}@${b.instanceUuid}`, what: `block storage ${b.uuid} is attached to ${b.instanceUuid} and no attachment in the state says so` });
  }
  for (const vm of truth.instances) {
    if (!vm.vswitchUuid || !stateVmIds.has(vm.uuid)) continue;
    const id = `${vm.uuid}/${vm.vswitchUuid}`;
    if (pendingCover.has(id) || ofType("VswitchAttachment").some((r) => r.id === id) || state.forgotten.includes(id)) continue;
    // An Instance that manages its network (vswitchId in its inputs, or in its outputs after a failed update
    // kept the old inputs) accounts for it; the next up converges it.
    const declaring = stateVms.find((r) => r.id === vm.uuid && (r.inputs.vswitchId !== undefined || r.outputs.vswitchId !== undefined));
    if (declaring) continue;
    // An update interrupted while it joined the network: its pending operation (kept in the checkpoint until the
    // next run) carries the inputs that declare it; the next up records it.
    if (state.pending.some((op) => op.type === "updating" && op.id === vm.uuid && op.inputs.vswitchId === vm.vswitchUuid)) continue;
    findings.push({ kind: "leak", object: `${vm.uuid}@${vm.vswitchUuid}`, what: `instance ${vm.uuid} is in private network ${vm.vswitchUuid} and nothing in the state declares it` });
  }
  if (upSucceeded) {
    for (const r of stateVms) {
      if (unconfirmedRecord(r)) continue; // (a placeholder, not a VM id; the up that recorded it failed)
      const vm = truth.instances.find((v) => v.uuid === r.id);
      if (!vm && !r.delete) findings.push({ kind: "lost", object: `lost:${r.id}`, what: `up reported success and the state holds ${r.name} ${r.id}, which no longer exists` });
      if (vm?.status === "Error") findings.push({ kind: "error-as-success", object: `error:${r.id}`, what: `up reported success while ${r.name} ${r.id} is in status Error` });
    }
  }
  return findings;
}

/** After the last destroy (faults cleared): nothing may remain, in the account or in the state. */
export function compareAfterDestroy(state: StackState, truth: SimTruth, ownedByUser: ReadonlySet<string> = new Set()): Finding[] {
  const findings: Finding[] = [];
  for (const r of state.resources) {
    const vm = truth.instances.find((v) => v.uuid === r.id);
    const sim = vm ? ` (simulator: ${vm.status}, operation ${vm.operation ? JSON.stringify(vm.operation) : "none"})` : "";
    findings.push({ kind: "undestroyable", object: r.id, what: `${r.type} ${r.name} ${r.id} is still in the state after destroy${sim}` });
  }
  // (a VM the state still holds is counted once, as undestroyable)
  for (const vm of truth.instances) if (!known(state, vm.uuid) && !ownedByUser.has(vm.uuid)) findings.push({ kind: "orphan", object: vm.uuid, what: `instance ${vm.uuid} (${vm.hostname}, ${vm.status}) remains after destroy, in no state` });
  for (const s of truth.snapshots) findings.push({ kind: known(state, s.uuid) ? "undestroyable" : "orphan", object: s.uuid, what: `snapshot ${s.uuid} (${s.name}) remains after destroy` });
  for (const rule of truth.firewallRules) findings.push({ kind: known(state, rule.id) ? "undestroyable" : "orphan", object: rule.id, what: `firewall rule ${rule.id} remains after destroy` });
  // (an address the user asked to keep, deleteOptions.removePublicIp false, is the user's once its VM is gone)
  for (const ip of truth.publicIps)
    if (!ip.seeded && !ownedByUser.has(ip.uuid)) findings.push({ kind: "leak", object: ip.uuid, what: `public address ${ip.address} (${ip.uuid}) remains reserved after destroy` });
  for (const b of truth.blockStorages) if (b.instanceUuid) findings.push({ kind: "leak", object: `${b.uuid}@${b.instanceUuid}`, what: `block storage ${b.uuid} is still attached to ${b.instanceUuid} after destroy` });
  return findings;
}

const known = (state: StackState, id: string): boolean => state.resources.some((r) => r.id === id);

/**
 * The user's own objects in the account when the lifecycle starts, which no stack made: the seeded reserved
 * addresses (usable as `publicNetworkId`), the block storage disks (the API cannot create disks), and VMs made in
 * the panel to clone or adopt. The API can remove the first two only as a side effect of a VM's delete
 * (`remove_ip`, `remove_block_storage`), which is exactly where a provider could take them by mistake.
 */
export interface UserObjects {
  reservedAddresses: string[];
  disks: string[];
  vms: string[];
}

/** The user's objects of a seeded account (`vms`: the ones the lifecycle made in the panel). */
export function userObjectsOf(seeded: SimTruth, vms: readonly string[] = []): UserObjects {
  return {
    reservedAddresses: seeded.publicIps.filter((p) => p.seeded && p.instanceUuid === null).map((p) => p.uuid),
    disks: seeded.blockStorages.map((b) => b.uuid),
    vms: [...vms],
  };
}

/**
 * After any phase: every object of the user's own is still in the account. `removedAsAsked`: objects the program
 * asked to remove (a disk attached to a VM that a destroy deleted with `deleteOptions.removeBlockStorage`), and
 * objects the user gave away in the panel (a reserved address put on a VM whose address the stack does not
 * manage: its delete releases whatever address the VM holds, as `removePublicIp` says); adopted VMs are the
 * stack's from then on and are left out by the caller.
 */
export function userObjectsLost(user: UserObjects, truth: SimTruth, removedAsAsked: ReadonlySet<string> = new Set()): Finding[] {
  const findings: Finding[] = [];
  const lost = (uuid: string, what: string): void => {
    if (!removedAsAsked.has(uuid)) findings.push({ kind: "user-object-lost", object: `user:${uuid}`, what });
  };
  for (const uuid of user.reservedAddresses)
    if (!truth.publicIps.some((p) => p.uuid === uuid)) lost(uuid, `the user's reserved address ${uuid} is no longer in the account (released by a delete with remove_ip?)`);
  for (const uuid of user.disks)
    if (!truth.blockStorages.some((b) => b.uuid === uuid)) lost(uuid, `the user's block storage ${uuid} no longer exists, and no destroy of a VM with deleteOptions.removeBlockStorage held it`);
  for (const uuid of user.vms) if (!truth.instances.some((v) => v.uuid === uuid)) lost(uuid, `the user's instance ${uuid} (made in the panel, never the stack's) no longer exists`);
  return findings;
}

/** The program of a lifecycle, as declared (the inputs of each resource, ids of the VM left out). */
export interface DeclaredProgram {
  vm: Record<string, unknown>;
  /** A fleet's other Instances, by resource name (their dependents are not declared). */
  otherVms?: Record<string, Record<string, unknown>>;
  publicIp?: Record<string, unknown>;
  vswitch?: Record<string, unknown>;
  storage?: Record<string, unknown>;
  snapshot?: Record<string, unknown>;
  rule?: Record<string, unknown>;
}

/**
 * After an `up` that reported success: every object of the program is in the simulator as declared, for what
 * the program manages (an input left unset is not managed and not compared).
 */
export function notAsDeclared(state: StackState, truth: SimTruth, program: DeclaredProgram): Finding[] {
  const findings: Finding[] = [];
  const differs = (name: string, what: string): void => {
    findings.push({ kind: "not-as-declared", object: `declared:${name}`, what: `up reported success and ${name} ${what}` });
  };
  const live = (name: string): ResourceState | undefined => state.resources.find((r) => r.name === name && !r.delete);
  /** The VM of Instance `name` as declared by `d`; undefined when it has none to compare (no state, or lost). */
  const instance = (name: string, d: Record<string, unknown>): SimTruth["instances"][number] | undefined => {
    const vmState = live(name);
    if (!vmState) {
      findings.push({ kind: "not-as-declared", object: `declared:${name}`, what: `up reported success and the state has no ${name}` });
      return undefined;
    }
    const vm = truth.instances.find((v) => v.uuid === vmState.id);
    if (!vm) return undefined; // (reported as lost)
    const expect: [string, unknown, unknown][] = [
      ["hostname", d.hostname, vm.hostname],
      ["cpu", d.cpu, vm.cpu],
      ["memory", d.memory, vm.memoryGb],
      ["storage", d.storage, vm.storageGb],
      ["tierId", d.tierId, vm.tierId],
      ["dedicatedCpu", d.dedicatedCpu, vm.dedicatedCpu],
      ["password", d.password, vm.password],
      ["powerState", d.powerState, d.powerState === undefined ? undefined : vm.status === "Running" ? "running" : vm.status === "Stopped" ? "stopped" : vm.status],
      ["publicIp", d.publicIp, d.publicIp === undefined ? undefined : vm.publicIpUuid !== null],
      ["publicNetworkId", d.publicNetworkId, d.publicNetworkId === undefined ? undefined : vm.publicIpUuid],
      ["vswitchId", d.vswitchId === "" ? null : d.vswitchId, d.vswitchId === undefined ? undefined : vm.vswitchUuid],
    ];
    for (const [key, want, got] of expect) {
      if (want !== undefined && want !== got) differs(name, `${vm.uuid} has ${key} ${JSON.stringify(got)}, declared ${JSON.stringify(want)}`);
    }
    return vm;
  };
  for (const [name, d] of Object.entries(program.otherVms ?? {})) instance(name, d);
  const vm = instance("vm", program.vm);
  if (!vm) return findings;
  const ip = program.publicIp;
  const address = live("address");
  if (ip && address) {
    if (vm.publicIpUuid !== address.id) differs("address", `${address.id} is not the VM's address (the VM has ${vm.publicIpUuid ?? "none"})`);
    else if (ip.publicNetworkId !== undefined && address.id !== ip.publicNetworkId) differs("address", `${address.id} is not the declared reserved address ${String(ip.publicNetworkId)}`);
    else if (ip.adoptId !== undefined && address.id !== ip.adoptId) differs("address", `${address.id} is not the adopted address ${String(ip.adoptId)}`);
    else if (ip.rdns !== undefined && vm.rdns !== ip.rdns) differs("address", `${address.id} has rdns ${JSON.stringify(vm.rdns)}, declared ${JSON.stringify(ip.rdns)}`);
  }
  if (program.vswitch && live("network") && vm.vswitchUuid !== program.vswitch.vswitchId)
    differs("network", `${vm.uuid} is in private network ${vm.vswitchUuid ?? "none"}, declared ${String(program.vswitch.vswitchId)}`);
  if (program.storage && live("disk")) {
    const disk = truth.blockStorages.find((b) => b.uuid === program.storage!.blockStorageId);
    if (disk?.instanceUuid !== vm.uuid) differs("disk", `${String(program.storage.blockStorageId)} is attached to ${disk?.instanceUuid ?? "nothing"}, not to ${vm.uuid}`);
  }
  const snapshot = live("snapshot");
  if (program.snapshot && snapshot) {
    const s = truth.snapshots.find((x) => x.uuid === snapshot.id);
    if (!s || s.instanceUuid !== vm.uuid || s.name !== program.snapshot.name || s.status !== "Ready")
      differs("snapshot", `${snapshot.id} is ${s ? `${s.name} (${s.status}) of ${s.instanceUuid}` : "missing"}, declared ${String(program.snapshot.name)} of ${vm.uuid}`);
  }
  const rule = live("rule");
  if (program.rule && rule) {
    const x = truth.firewallRules.find((f) => f.id === rule.id);
    const action = program.rule.action === "accept" ? "A" : "D";
    if (!x || x.instanceUuid !== vm.uuid || x.destinationPort !== program.rule.port || x.protocol !== program.rule.protocol || x.action !== action)
      differs("rule", `${rule.id} is ${x ? `${x.protocol}/${x.destinationPort} ${x.action} on ${x.instanceUuid}` : "missing"}, declared ${String(program.rule.protocol)}/${String(program.rule.port)} ${action} on ${vm.uuid}`);
  }
  return findings;
}

/** What the program asks a VM's delete to do with the disks attached to it, and why (for the finding). */
export interface DiskFate {
  remove: boolean;
  why: string;
}

/**
 * `deleteOptions.removeBlockStorage` honoured: for each delete request's removal of a VM in `truth.deletedInstances`
 * from index `from` on, `expected` says what was to become of the disks attached to it at that moment (undefined:
 * nothing to expect, e.g. a VM no state held). A disk's fate is read from the truth: it survived that removal if a
 * later removal still found it attached, or if it exists now. To go and still there: a leak; to stay and gone:
 * user-object-lost (same object as userObjectsLost's, so counted once, with this more precise account). `removed`:
 * the disks that went as asked (not user objects lost).
 */
export function diskFates(truth: SimTruth, from: number, expected: (d: DeletedInstance) => DiskFate | undefined): { findings: Finding[]; removed: string[]; notes: string[] } {
  const all = truth.deletedInstances ?? [];
  const findings: Finding[] = [];
  const removed: string[] = [];
  const notes: string[] = [];
  for (let i = from; i < all.length; i++) {
    const d = all[i]!;
    if (d.by !== "api" || d.blockStorages.length === 0) continue;
    const want = expected(d);
    if (!want) {
      notes.push(`(instance ${d.uuid} went holding disks ${d.blockStorages.join(", ")}; no state held it: nothing to expect)`);
      continue;
    }
    for (const disk of d.blockStorages) {
      const survived = all.slice(i + 1).some((later) => later.blockStorages.includes(disk)) || truth.blockStorages.some((b) => b.uuid === disk);
      const sent = `remove_block_storage=${d.removeBlockStorage ? 1 : 0} sent`;
      if (want.remove && survived)
        findings.push({ kind: "leak", object: `disk-kept:${disk}`, what: `block storage ${disk} was attached to ${d.uuid} when its delete ran (${want.why}: the disk was to go with it), and it still exists (${sent})` });
      else if (!want.remove && !survived)
        findings.push({ kind: "user-object-lost", object: `user:${disk}`, what: `block storage ${disk} was attached to ${d.uuid} when its delete ran (${want.why}: the disk was to be detached and kept), and it was deleted (${sent})` });
      else {
        if (!survived) removed.push(disk);
        notes.push(`(disk ${disk} held by ${d.uuid} at its delete, ${want.why}: ${survived ? "detached and kept" : "deleted with it"}, as asked)`);
      }
    }
  }
  return { findings, removed, notes };
}
