/**
 * Network routes: public addresses (change, add, reverse DNS, instances without one) and private
 * networks (vswitch membership, lists, detail, topology graph).
 */
import { fieldError, notFound } from "../errors";
import type { Handler } from "../handler";
import { ok, queryInput } from "../handler";
import {
  allocateAutoIp, detachInstanceIp, findInstance, instanceIp, joinVswitch, locationById, requireIdle,
  reservedIpFor, vswitchFor,
} from "../model";
import type { SimContext, Vswitch } from "../state";
import { FQDN_PATTERN, Validator } from "../validation";
import { dayMonthYearTime } from "../wire";

const changePublicIp: Handler = (ctx, req) => {
  const inst = findInstance(ctx.state, req.params["instance_uuid"]!);
  const v = new Validator(req.body);
  const ipUuid = v.uuid("public_network");
  v.check();
  requireIdle(inst);
  const current = instanceIp(ctx.state, inst);
  if (!ipUuid) {
    // Blank removes the address from the instance; it stays in the account as a reserved address.
    detachInstanceIp(ctx.state, inst, false);
    inst.updatedAt = ctx.now;
    return ok("Public IP successfully removed", { instance: inst.uuid, public_ip: "-" });
  }
  const ip = reservedIpFor(ctx.state, "public_network", ipUuid, inst.locationId, inst.uuid);
  if (current && current !== ip) detachInstanceIp(ctx.state, inst, false);
  ip.instanceUuid = inst.uuid;
  inst.updatedAt = ctx.now;
  return ok("Public IP successfully changed", { instance: inst.uuid, public_ip: ip.address });
};

const addPublicIp: Handler = (ctx, req) => {
  const inst = findInstance(ctx.state, req.params["instance_uuid"]!);
  requireIdle(inst);
  // One public address per instance (the detail has room for one).
  if (instanceIp(ctx.state, inst)) throw fieldError("public_ip", "The instance already has a public IP address.");
  const ip = allocateAutoIp(ctx, inst.locationId);
  ip.instanceUuid = inst.uuid;
  inst.updatedAt = ctx.now;
  return ok("Public IP successfully added", { vm_uuid: inst.uuid, ip_address: ip.address });
};

const updateRdns: Handler = (ctx, req) => {
  const ip = ctx.state.publicIps.find((p) => p.uuid === req.params["ip_uuid"]!.toLowerCase());
  if (!ip) throw notFound("Public IP");
  const v = new Validator(req.body);
  const rdns = v.string("rdns", { required: true, max: 254, pattern: FQDN_PATTERN });
  v.check();
  const inst = ip.instanceUuid ? ctx.state.instances.find((i) => i.uuid === ip.instanceUuid) : undefined;
  if (inst) requireIdle(inst);
  ip.rdns = rdns!;
  if (inst) inst.updatedAt = ctx.now;
  return ok("RDNS successfully updated", ip.rdns);
};

const updatePrivateNetwork: Handler = (ctx, req) => {
  const inst = findInstance(ctx.state, req.params["instance_uuid"]!);
  const v = new Validator(req.body);
  const vswitchUuid = v.uuid("vswitch");
  v.check();
  const vs = vswitchUuid ? vswitchFor(ctx.state, "vswitch", vswitchUuid, inst.locationId) : null;
  requireIdle(inst);
  // Blank detaches (real-api-facts.md); an instance is in at most one private network.
  joinVswitch(ctx.state, inst, vs, ctx.now);
  inst.updatedAt = ctx.now;
  return ok(vs ? "Private network successfully updated" : "Private network successfully removed", { vm_uuid: inst.uuid });
};

/** Requires a `location_id` query parameter naming an existing location. */
function locationQuery(ctx: SimContext, query: URLSearchParams): number {
  const v = new Validator(queryInput(query));
  const locationId = v.integer("location_id", { required: true });
  if (locationId !== undefined && !locationById(ctx.state, locationId)) v.fail("location_id", "The selected location id is invalid.");
  v.check();
  return locationId!;
}

const listInstancesWithoutPublicIp: Handler = (ctx, req) => {
  const locationId = locationQuery(ctx, req.query);
  const items = ctx.state.instances
    .filter((i) => i.locationId === locationId && i.status !== "deleting" && !instanceIp(ctx.state, i))
    .map((i) => ({ id: i.uuid, hostname: i.hostname }));
  return ok("Success", items);
};

const gatewayWire = (vs: Vswitch): { uuid: string | null; hostname: string | null; private_ip: string | null } =>
  vs.gateway
    ? { uuid: vs.gateway.uuid, hostname: vs.gateway.hostname, private_ip: vs.gateway.privateIp }
    : { uuid: null, hostname: null, private_ip: null };

/** A vswitch as a list item: location as a name, plus the `location_flag` URL one host adds. */
function vswitchListItem(ctx: SimContext, vs: Vswitch): Record<string, unknown> {
  const location = locationById(ctx.state, vs.locationId)!;
  return {
    uuid: vs.uuid,
    name: vs.name,
    tag: vs.tag,
    location: location.name,
    location_flag: location.flag,
    network_ip: vs.networkIp,
    gateway: gatewayWire(vs),
    status: vs.status,
    created_at: dayMonthYearTime(vs.createdAt, ctx.wire?.textTimeZone),
  };
}

const members = (ctx: SimContext, vs: Vswitch) => ctx.state.instances.filter((i) => i.vswitchUuid === vs.uuid);

const listVswitches: Handler = (ctx) => ok("Success", ctx.state.vswitches.map((vs) => vswitchListItem(ctx, vs)));

const listVswitchOptions: Handler = (ctx, req) => {
  const locationId = locationQuery(ctx, req.query);
  return ok("Success", ctx.state.vswitches.filter((vs) => vs.locationId === locationId && vs.status === "Active").map((vs) => vswitchListItem(ctx, vs)));
};

const findVswitch = (ctx: SimContext, id: string): Vswitch => {
  // The graph route types its parameter as an integer: accept the integer tag as well as the uuid.
  const vs = ctx.state.vswitches.find((x) => x.uuid === id.toLowerCase() || String(x.tag) === id);
  if (!vs) throw notFound("Private network");
  return vs;
};

const getVswitch: Handler = (ctx, req) => {
  const vs = findVswitch(ctx, req.params["vswitch_uuid"]!);
  const location = locationById(ctx.state, vs.locationId)!;
  return ok("Success", {
    uuid: vs.uuid,
    name: vs.name,
    tag: vs.tag,
    vid: String(vs.tag),
    location: { id: location.id, name: location.name },
    total_active_instance: members(ctx, vs).filter((i) => i.status !== "deleting").length,
    status: vs.status,
    gateway: gatewayWire(vs),
    created_at: dayMonthYearTime(vs.createdAt, ctx.wire?.textTimeZone),
    last_update_at: dayMonthYearTime(vs.updatedAt, ctx.wire?.textTimeZone),
  });
};

const getVswitchGraph: Handler = (ctx, req) => {
  const vs = findVswitch(ctx, req.params["vswitch_id"]!);
  const nodes: Record<string, unknown>[] = [];
  const edges: Record<string, unknown>[] = [];
  nodes.push({
    id: vs.uuid, type: "vswitch", position: { x: 0, y: 0 },
    data: { label: vs.name, network_ip: vs.networkIp, tag: vs.tag }, style: { width: 200, height: 60 },
    parent: "", draggable: false,
  });
  const attached: { id: string; label: string; privateIp: string; kind: string; status: string }[] = [];
  if (vs.gateway) attached.push({ id: vs.gateway.uuid, label: vs.gateway.hostname, privateIp: vs.gateway.privateIp, kind: "gateway", status: "Running" });
  for (const inst of members(ctx, vs)) {
    attached.push({ id: inst.uuid, label: inst.hostname, privateIp: inst.privateIp ?? "", kind: "instance", status: inst.status });
  }
  attached.forEach((node, index) => {
    nodes.push({
      id: node.id, type: node.kind, position: { x: (index - (attached.length - 1) / 2) * 220, y: 160 },
      data: { label: node.label, private_ip: node.privateIp, status: node.status }, style: { width: 180, height: 50 },
      parent: vs.uuid, draggable: true,
    });
    edges.push({ id: `e-${vs.uuid}-${node.id}`, source: vs.uuid, target: node.id, label: node.privateIp });
  });
  return ok("Success", { nodes, edges });
};

/** Handlers of the network routes, by operation id. */
export const networkHandlers = {
  changePublicIp, addPublicIp, updateRdns, updatePrivateNetwork, listInstancesWithoutPublicIp, listVswitches,
  listVswitchOptions, getVswitch, getVswitchGraph,
} satisfies Record<string, Handler>;
