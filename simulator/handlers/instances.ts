/**
 * Instance routes: list, create, detail, clone, lifecycle operations, resize, change tier, hostname,
 * password, console, change-tier price.
 */
import { fieldError } from "../errors";
import type { Handler, RequestData } from "../handler";
import { ok, paginate, queryInput } from "../handler";
import {
  allocateAutoIp, findInstance, hourlyPrice, instanceInactivePricePerHour, instanceIp, instancePricePerHour,
  instanceVswitch, joinVswitch, locationById, locationOf, requireIdle, reservedIpFor, templateById, templateOf,
  tierById, tierOf, vswitchFor,
} from "../model";
import { startOperation } from "../operations";
import type { Instance, SimContext, SimState } from "../state";
import { HOSTNAME_PATTERN, USERNAME_PATTERN, Validator } from "../validation";
import { dashDateTime, dayMonthYearCommaTime, isoMicros, round2 } from "../wire";

/** Largest sizes accepted (CPUs, GB of memory, GB of storage). */
export const SIZE_LIMITS = { cpu: 64, memory: 256, storage: 4000 } as const;

/** Accrued cost of an instance since it was created (null while it is still being created). */
function accruedCost(ctx: SimContext, inst: Instance): number | null {
  if (inst.status === "creating") return null;
  const hours = Math.max(0, ctx.now - inst.createdAt) / 3600000;
  return round2(instancePricePerHour(ctx.state, inst) * hours);
}

/**
 * `operation_flag`: 1 while an operation runs, or always 0 with `wire.operationFlag: false` (the hosts' samples only
 * ever show 0: a host may not set it, the status word alone telling that an operation runs).
 */
function operationFlag(ctx: SimContext, inst: Instance): number {
  return inst.operationId && ctx.wire?.operationFlag !== false ? 1 : 0;
}

/** IPv6 address shown next to a public IPv4 on list rows (an extra field the real list carries). */
function ipv6For(address: string | undefined): string | null {
  if (!address) return null;
  const parts = address.split(".").map(Number);
  return `2001:db8:${parts[0]!.toString(16)}:${parts[1]!.toString(16)}::${parts[3]!.toString(16)}`;
}

/** An instance as a list row (api-spec.md §2.2 with the variants of real-api-facts.md: no `os`). */
/** The instance's status as the host words it (wire.statusWords: `{"Running": "Berjalan", "creating": "Sedang dibuat"}`). */
function statusWord(ctx: SimContext, status: string): string {
  const words = ctx.wire?.statusWords;
  return words && Object.hasOwn(words, status) ? words[status]! : status;
}

export function instanceListItem(ctx: SimContext, inst: Instance): Record<string, unknown> {
  const state = ctx.state;
  const price = instancePricePerHour(state, inst);
  const ip = instanceIp(state, inst);
  return {
    uuid: inst.uuid,
    hostname: inst.hostname,
    ip_address: ip ? ip.address : null,
    ipv6_address: ipv6For(ip?.address),
    cpu: inst.cpu,
    memory: `${inst.memoryGb} GB`,
    storage: `${inst.storageGb}GB`,
    status: statusWord(ctx, inst.status),
    // api-spec.md §2.2 lists `os {name, image}` on list rows (the spec wins over the docs sample, which has
    // none; the client accepts both, and the `wire.listOs: false` variant leaves it off)
    ...(ctx.wire?.listOs === false ? {} : { os: { name: templateOf(state, inst).name, image: templateOf(state, inst).image } }),
    location: locationOf(state, inst).name,
    tier: tierOf(state, inst).name,
    price_per_hour: price,
    estimated_monthly_cost: round2(price * 720),
    cost: accruedCost(ctx, inst),
    operation_flag: operationFlag(ctx, inst),
    created_at: dayMonthYearCommaTime(inst.createdAt, ctx.wire?.textTimeZone),
  };
}

/** The detail's `private_network`: the vswitch's name by default, its uuid or the VM's private address per `wire`. */
function privateNetworkText(ctx: SimContext, inst: Instance): string {
  const vs = instanceVswitch(ctx.state, inst);
  if (!vs) return "-";
  const shows = ctx.wire?.privateNetwork ?? "name";
  return shows === "uuid" ? vs.uuid : shows === "ip" ? inst.privateIp ?? vs.name : vs.name;
}

/** An instance in full (api-spec.md §2.3). */
export function instanceDetail(ctx: SimContext, inst: Instance): Record<string, unknown> {
  const state = ctx.state;
  const price = instancePricePerHour(state, inst);
  const ip = instanceIp(state, inst);
  const template = templateOf(state, inst);
  const tier = tierOf(state, inst);
  const location = locationOf(state, inst);
  return {
    uuid: inst.uuid,
    hostname: inst.hostname,
    username: inst.username,
    cpu: `${inst.cpu} CPU`,
    is_cpu_dedicated: inst.dedicatedCpu,
    memory: `${inst.memoryGb * 1024} MB`,
    storage: `${inst.storageGb} GB`,
    status: statusWord(ctx, inst.status),
    os_name: `${template.name} ${template.version}`,
    public_ip: ip ? { ip_id: ip.uuid, ip_address: ip.address } : { ip_id: "-", ip_address: "-" },
    rdns: ip?.rdns ? ip.rdns : "-",
    private_network: privateNetworkText(ctx, inst),
    location_id: location.id,
    location: location.name,
    tier_id: tier.id,
    tier: tier.name,
    os: {
      template_id: template.id,
      version: template.version,
      os_id: template.osId,
      name: template.name,
      image: template.image,
      min_cpu: template.minCpu,
      min_memory: template.minMemory,
      min_storage: template.minStorage,
    },
    price_per_hour: price,
    estimated_monthly_price: round2(price * 720),
    cost: accruedCost(ctx, inst),
    operation_flag: operationFlag(ctx, inst),
    created_at: dashDateTime(inst.createdAt, ctx.wire?.textTimeZone),
    updated_at: dashDateTime(inst.updatedAt, ctx.wire?.textTimeZone),
    last_started_at: dashDateTime(inst.lastStartedAt ?? inst.createdAt, ctx.wire?.textTimeZone),
    last_backup_at: inst.lastBackupAt === null ? null : dashDateTime(inst.lastBackupAt, ctx.wire?.textTimeZone),
  };
}

const uuidAndHostname = (inst: Instance): { uuid: string; hostname: string } => ({ uuid: inst.uuid, hostname: inst.hostname });

/** Parses `sort`: `created_at` or `cost`, descending with a `-` prefix or a `:desc` / `,desc` / ` desc` suffix. */
function parseSort(v: Validator, query: URLSearchParams): { key: "created_at" | "cost"; desc: boolean } {
  const raw = query.get("sort");
  if (raw === null || raw.trim() === "") return { key: "created_at", desc: true };
  const m = /^\s*(-)?(created_at|cost)(?:\s*[:,| _]\s*(asc|desc))?\s*$/i.exec(raw);
  if (!m) {
    v.fail("sort", "The selected sort is invalid.");
    return { key: "created_at", desc: true };
  }
  const direction = (m[3] ?? query.get("order") ?? query.get("direction") ?? "").toLowerCase();
  return { key: m[2]!.toLowerCase() as "created_at" | "cost", desc: m[1] === "-" || direction === "desc" };
}

/**
 * Reads and checks `limit` and `page` of a paginated list: `limit` 1..100, or 1..`wire.maxPageSize`, a larger one
 * refused (422) or, with `wire.overPageSize: "clamp"`, served as pages of the maximum.
 */
export function pageParams(v: Validator, ctx?: SimContext): { page: number; limit: number } {
  const max = ctx?.wire?.maxPageSize ?? 100;
  const clamp = ctx?.wire?.overPageSize === "clamp";
  const limit = v.integer("limit", { min: 1, max: clamp ? undefined : max }) ?? 10;
  const page = v.integer("page", { min: 1 }) ?? 1;
  return { page, limit: Math.min(limit, max) };
}

const listInstances: Handler = (ctx, req) => {
  const v = new Validator(queryInput(req.query));
  const { page, limit } = pageParams(v, ctx);
  const search = v.string("search", { max: 255 });
  const statusesText = v.string("statuses");
  const sort = parseSort(v, req.query);
  v.check();
  let items = [...ctx.state.instances];
  if (search) items = items.filter((i) => i.hostname.toLowerCase().includes(search.toLowerCase()));
  if (statusesText) {
    const wanted = new Set(statusesText.split(",").map((s) => s.trim().toLowerCase()).filter(Boolean));
    items = items.filter((i) => wanted.has(i.status.toLowerCase()));
  }
  const costOf = (i: Instance): number => (sort.key === "cost" ? accruedCost(ctx, i) ?? 0 : i.createdAt);
  items.sort((a, b) => (costOf(a) - costOf(b) || a.seq - b.seq) * (sort.desc ? -1 : 1));
  const paged = paginate(items.map((i) => instanceListItem(ctx, i)), page, limit);
  return ok("Success", {
    data: paged.data,
    // Counts operations running on the whole account, not just this page.
    active_operation: ctx.wire?.operationFlag === false ? 0 : ctx.state.operations.length,
    page: paged.page,
  });
};

/** Checks sizes against the template minimums and the global limits (422 per field). */
function checkSizes(
  v: Validator, state: SimState, templateId: number | undefined,
  sizes: { cpu?: number; memory?: number; storage?: number },
): void {
  const template = templateId === undefined ? undefined : templateById(state, templateId);
  if (!template) return;
  if (sizes.cpu !== undefined && sizes.cpu < template.minCpu) v.fail("cpu", `The cpu field must be at least ${template.minCpu}.`);
  if (sizes.memory !== undefined && sizes.memory < template.minMemory) v.fail("memory", `The memory field must be at least ${template.minMemory}.`);
  if (sizes.storage !== undefined && sizes.storage < template.minStorage) v.fail("storage", `The storage field must be at least ${template.minStorage}.`);
}

const createInstance: Handler = (ctx, req) => {
  const state = ctx.state;
  const v = new Validator(req.body);
  const locationId = v.integer("location_id", { required: true });
  const tierId = v.integer("tier_id", { required: true });
  const templateId = v.integer("template_id", { required: true });
  const hostname = v.string("hostname", { required: true, max: 63, pattern: HOSTNAME_PATTERN });
  const cpu = v.integer("cpu", { required: true, min: 1, max: SIZE_LIMITS.cpu });
  const memory = v.integer("memory", { required: true, min: 1, max: SIZE_LIMITS.memory });
  const storage = v.integer("storage", { required: true, min: 1, max: SIZE_LIMITS.storage });
  const username = v.string("username", { required: true, pattern: USERNAME_PATTERN });
  const password = v.string("password", { required: true, min: 8, max: 72 });
  const usePublicIp = v.boolean("use_public_ip", { required: true });
  v.boolean("use_shared_cpu");
  const dedicated = v.boolean("use_dedicated_cpu") ?? false;
  const vswitchUuid = v.uuid("vswitch");
  const sshKeys = v.stringArray("ssh_keys") ?? [];
  const includeBackup = v.boolean("include_backup") ?? false;
  const publicNetwork = v.uuid("public_network");
  if (locationId !== undefined && !locationById(state, locationId)) v.fail("location_id", "The selected location id is invalid.");
  const tier = tierId === undefined ? undefined : tierById(state, tierId);
  if (tierId !== undefined && !tier) v.fail("tier_id", "The selected tier id is invalid.");
  if (templateId !== undefined && !templateById(state, templateId)) v.fail("template_id", "The selected template id is invalid.");
  if (tier && dedicated && !tier.dedicatedCpuAvailable) v.fail("use_dedicated_cpu", `Dedicated CPU is not available on the ${tier.name} tier.`);
  checkSizes(v, state, templateId, { cpu, memory, storage });
  v.check();
  // Cross-resource checks after the field rules, as the service would run them.
  const vs = vswitchUuid ? vswitchFor(state, "vswitch", vswitchUuid, locationId!) : null;
  const reserved = publicNetwork ? reservedIpFor(state, "public_network", publicNetwork, locationId!) : null;

  const location = locationById(state, locationId!)!;
  const inst: Instance = {
    uuid: ctx.ids.uuid(), id: state.counters.instanceId++, seq: state.counters.instanceSeq++,
    hostname: hostname!, username: username!, password: password!, sshKeys, includeBackup,
    cpu: cpu!, memoryGb: memory!, storageGb: storage!, dedicatedCpu: dedicated, tierId: tierId!,
    locationId: location.id, templateId: templateId!, status: "creating", operationId: null,
    vswitchUuid: null, privateIp: null, nodeId: location.id * 10 + 1, billingId: state.counters.billingId++,
    firewallDefault: "A", clonedFrom: null, createdAt: ctx.now, updatedAt: ctx.now, lastStartedAt: null,
    lastBackupAt: null,
  };
  state.instances.push(inst);
  // A reserved address is used when given, even with use_public_ip=0 (naming one means wanting it).
  const ip = reserved ?? (usePublicIp ? allocateAutoIp(ctx, location.id) : null);
  if (ip) ip.instanceUuid = inst.uuid;
  if (vs) joinVswitch(state, inst, vs, ctx.now);
  startOperation(ctx, inst, "create");
  return ok("Vm berhasil dibuat", {
    uuid: inst.uuid,
    hostname: inst.hostname,
    node_id: inst.nodeId,
    cpu: inst.cpu,
    memory: inst.memoryGb,
    storage: inst.storageGb,
    status: statusWord(ctx, inst.status),
    username: inst.username,
    active_price_per_min: round2(instancePricePerHour(state, inst) / 60),
    inactive_price_per_min: round2(instanceInactivePricePerHour(state, inst) / 60),
    template_id: inst.templateId,
    billing_id: inst.billingId,
    customer_id: state.customerId,
    updated_at: isoMicros(inst.updatedAt),
    created_at: isoMicros(inst.createdAt),
    id: inst.id,
  });
};

const getInstance: Handler = (ctx, req) => ok("Success", instanceDetail(ctx, findInstance(ctx.state, req.params["instance_uuid"]!)));

const target = (ctx: SimContext, req: RequestData): Instance => findInstance(ctx.state, req.params["instance_uuid"]!);

const cloneInstance: Handler = (ctx, req) => {
  const state = ctx.state;
  const source = target(ctx, req);
  const v = new Validator(req.body);
  const hostname = v.string("hostname", { required: true, max: 63, pattern: HOSTNAME_PATTERN });
  const locationId = v.integer("location_id", { required: true });
  const tierId = v.integer("tier_id", { required: true });
  if (locationId !== undefined && !locationById(state, locationId)) v.fail("location_id", "The selected location id is invalid.");
  const tier = tierId === undefined ? undefined : tierById(state, tierId);
  if (tierId !== undefined && !tier) v.fail("tier_id", "The selected tier id is invalid.");
  v.check();
  // Cloning reads the source's disk: refused while the source is busy.
  requireIdle(source);
  const clone: Instance = {
    ...source,
    uuid: ctx.ids.uuid(), id: state.counters.instanceId++, seq: state.counters.instanceSeq++,
    hostname: hostname!, sshKeys: [...source.sshKeys], locationId: locationId!, tierId: tierId!,
    // Dedicated CPU carries over only where the new tier offers it.
    dedicatedCpu: source.dedicatedCpu && tier!.dedicatedCpuAvailable,
    status: "creating", operationId: null, vswitchUuid: null, privateIp: null, nodeId: locationId! * 10 + 1,
    billingId: state.counters.billingId++, clonedFrom: source.uuid, createdAt: ctx.now, updatedAt: ctx.now,
    lastStartedAt: null, lastBackupAt: null,
  };
  state.instances.push(clone);
  // Firewall rules are part of the machine's configuration: the clone gets copies.
  for (const rule of state.firewallRules.filter((r) => r.instanceUuid === source.uuid)) {
    state.firewallRules.push({ ...rule, id: ctx.ids.uuid(), instanceUuid: clone.uuid, createdAt: ctx.now, updatedAt: ctx.now });
  }
  startOperation(ctx, clone, "clone");
  return ok("Instance is on cloning progress", { uuid: clone.uuid });
};

const getConsole: Handler = (ctx, req) => {
  const inst = target(ctx, req);
  const token = ctx.ids.token(32);
  return ok("Success", {
    [ctx.wire?.consoleUrlKey ?? "url"]: `wss://console.vmhost.local:8006/api2/json/nodes/node-${inst.nodeId}/vncwebsocket?port=5900&vncticket=${token}`,
    password: ctx.ids.token(12),
  });
};

const reinstallInstance: Handler = (ctx, req) => {
  const inst = target(ctx, req);
  const v = new Validator(req.body);
  const templateId = v.integer("template_id") ?? inst.templateId;
  const username = v.string("username", { pattern: USERNAME_PATTERN });
  const password = v.string("password", { min: 8, max: 72 });
  if (!templateById(ctx.state, templateId)) v.fail("template_id", "The selected template id is invalid.");
  else {
    const t = templateById(ctx.state, templateId)!;
    if (inst.cpu < t.minCpu || inst.memoryGb < t.minMemory || inst.storageGb < t.minStorage) {
      v.fail("template_id", `The instance is smaller than the template's minimum (${t.minCpu} CPU, ${t.minMemory} GB memory, ${t.minStorage} GB storage).`);
    }
  }
  v.check();
  requireIdle(inst);
  startOperation(ctx, inst, "reinstall", { templateId, username, password });
  return ok("Instance is reinstalling, please wait", uuidAndHostname(inst));
};

const deleteInstance: Handler = (ctx, req) => {
  const inst = target(ctx, req);
  const v = new Validator(req.body);
  const removeIp = v.boolean("remove_ip", { required: true });
  const removeBlockStorage = v.boolean("remove_block_storage", { required: true });
  // api-spec.md §4.6 lists `_method*` (names the HTTP method to apply) among the required body fields, also on
  // a real DELETE: a client that leaves it out is refused live, so it is refused here.
  v.string("_method", { required: true });
  v.check();
  requireIdle(inst);
  startOperation(ctx, inst, "delete", { removeIp, removeBlockStorage });
  return ok("Instance will be deleted shortly", [uuidAndHostname(inst)]);
};

const startInstance: Handler = (ctx, req) => {
  const inst = target(ctx, req);
  requireIdle(inst);
  // Starting a running instance changes nothing: answered as success so a retried start is harmless.
  if (inst.status === "Running") return ok("Instance is already running", uuidAndHostname(inst));
  startOperation(ctx, inst, "start");
  return ok("Instance will be started shortly", uuidAndHostname(inst));
};

const stopInstance: Handler = (ctx, req) => {
  const inst = target(ctx, req);
  requireIdle(inst);
  if (inst.status === "Stopped") return ok("Instance is already stopped", uuidAndHostname(inst));
  startOperation(ctx, inst, "stop");
  return ok("Instance will be stopped shortly", uuidAndHostname(inst));
};

const restartInstance: Handler = (ctx, req) => {
  const inst = target(ctx, req);
  requireIdle(inst);
  if (inst.status !== "Running") throw fieldError("status", "The instance must be running to be restarted.");
  startOperation(ctx, inst, "restart");
  return ok("Instance will be restarted shortly", uuidAndHostname(inst));
};

const resizeInstance: Handler = (ctx, req) => {
  const inst = target(ctx, req);
  const state = ctx.state;
  const v = new Validator(req.body);
  const cpu = v.integer("cpu", { required: true, min: 1, max: SIZE_LIMITS.cpu });
  const memory = v.integer("memory", { required: true, min: 1, max: SIZE_LIMITS.memory });
  const storage = v.integer("storage", { required: true, min: 1, max: SIZE_LIMITS.storage });
  const dedicated = v.boolean("use_dedicated_cpu") ?? inst.dedicatedCpu;
  checkSizes(v, state, inst.templateId, { cpu, memory, storage });
  // Disks only grow.
  if (storage !== undefined && !v.failed("storage") && storage < inst.storageGb) {
    v.fail("storage", `The storage field must be at least ${inst.storageGb}.`);
  }
  const tier = tierOf(state, inst);
  if (dedicated && !tier.dedicatedCpuAvailable) v.fail("use_dedicated_cpu", `Dedicated CPU is not available on the ${tier.name} tier.`);
  v.check();
  requireIdle(inst);
  startOperation(ctx, inst, "resize", { cpu, memoryGb: memory, storageGb: storage, dedicatedCpu: dedicated });
  return ok("Virtual machine is resized successfully", uuidAndHostname(inst));
};

const changeTier: Handler = (ctx, req) => {
  const inst = target(ctx, req);
  const v = new Validator(req.body);
  const tierId = v.integer("tier_id", { required: true });
  const tier = tierId === undefined ? undefined : tierById(ctx.state, tierId);
  if (tierId !== undefined && !tier) v.fail("tier_id", "The selected tier id is invalid.");
  if (tier && inst.dedicatedCpu && !tier.dedicatedCpuAvailable) {
    v.fail("tier_id", `The ${tier.name} tier does not offer dedicated CPU; resize to shared CPU first.`);
  }
  v.check();
  requireIdle(inst);
  // Already on that tier: nothing to do, answered as success (a retried change-tier is harmless).
  if (inst.tierId === tierId) return ok("Instance is already on this tier", { vm_uuid: inst.uuid });
  startOperation(ctx, inst, "changeTier", { tierId });
  return ok("Instance tier change is in progress", { vm_uuid: inst.uuid });
};

const getChangeTierCost: Handler = (ctx, req) => {
  const inst = target(ctx, req);
  const v = new Validator(queryInput(req.query));
  const tierId = v.integer("tier_id", { required: true });
  const tier = tierId === undefined ? undefined : tierById(ctx.state, tierId);
  if (tierId !== undefined && !tier) v.fail("tier_id", "The selected tier id is invalid.");
  v.check();
  const current = instancePricePerHour(ctx.state, inst);
  const next = hourlyPrice(tier!, { ...inst, dedicatedCpu: inst.dedicatedCpu && tier!.dedicatedCpuAvailable });
  return ok("Success", { current_monthly_cost: round2(current * 720), estimated_new_monthly_cost: round2(next * 720) });
};

const updateHostname: Handler = (ctx, req) => {
  const inst = target(ctx, req);
  const v = new Validator(req.body);
  const hostname = v.string("hostname", { required: true, max: 63, pattern: HOSTNAME_PATTERN });
  v.check();
  requireIdle(inst);
  inst.hostname = hostname!;
  inst.updatedAt = ctx.now;
  return ok("Hostname successfully updated", uuidAndHostname(inst));
};

const setPassword: Handler = (ctx, req) => {
  const inst = target(ctx, req);
  const v = new Validator(req.body);
  const password = v.string("password", { required: true, min: 8, max: 72 });
  const confirmation = v.string("password_confirmation", { required: true });
  if (password !== undefined && confirmation !== undefined && password !== confirmation) {
    v.fail("password", "The password field confirmation does not match.");
  }
  v.check();
  requireIdle(inst);
  inst.password = password!;
  inst.updatedAt = ctx.now;
  return ok("Password successfully updated", {});
};

/** Handlers of the instance routes, by operation id. */
export const instanceHandlers = {
  listInstances, createInstance, getInstance, cloneInstance, getConsole, reinstallInstance, deleteInstance,
  startInstance, stopInstance, restartInstance, resizeInstance, changeTier, getChangeTierCost, updateHostname,
  setPassword,
} satisfies Record<string, Handler>;
