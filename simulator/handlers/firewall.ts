/**
 * Firewall routes: rules per instance (list, create, update, delete) and the default policy. The spec has
 * only update; the others come from real-api-facts.md.
 */
import { fieldError, notFound } from "../errors";
import type { Handler, RequestData } from "../handler";
import { ok, paginate, queryInput } from "../handler";
import { findInstance, requireIdle } from "../model";
import type { FirewallRule, Instance, SimContext } from "../state";
import { Validator, isIpv4OrCidr } from "../validation";
import { dayMonthYearTime } from "../wire";
import { pageParams } from "./instances";

const PORT_PATTERN = /^(\d{1,5})(?:\s*[-:]\s*(\d{1,5}))?$/;

function validPort(text: string): boolean {
  const m = PORT_PATTERN.exec(text.trim());
  if (!m) return false;
  const from = Number(m[1]);
  const to = m[2] === undefined ? from : Number(m[2]);
  return from >= 1 && to <= 65535 && from <= to;
}

/** A rule on the wire. */
function ruleWire(rule: FirewallRule, ctx: SimContext): Record<string, unknown> {
  return {
    id: rule.id,
    destination_port: rule.destinationPort,
    protocol: rule.protocol,
    action: rule.action,
    source_ip: rule.sourceIp,
    description: rule.description,
    use_ipset: rule.useIpset,
    created_at: dayMonthYearTime(rule.createdAt, ctx.wire?.textTimeZone),
  };
}

/** Reads rule fields; with `partial` every field is optional (update). */
function readRule(v: Validator, partial: boolean): Partial<Omit<FirewallRule, "id" | "instanceUuid" | "createdAt" | "updatedAt">> {
  const port = v.string("destination_port", { required: !partial, max: 11 });
  if (port !== undefined && !validPort(port)) v.fail("destination_port", "The destination port must be a port (1-65535) or a range like 8000:8100.");
  const protocol = v.oneOf("protocol", ["tcp", "udp"] as const, { required: !partial });
  const action = v.oneOf("action", ["A", "D"] as const, { required: !partial });
  const sourceIp = v.string("source_ip", { max: 43 });
  if (sourceIp !== undefined && !isIpv4OrCidr(sourceIp)) v.fail("source_ip", "The source ip must be an IPv4 address or CIDR.");
  const description = v.string("description", { max: 255 });
  const useIpset = v.boolean("use_ipset");
  const out: ReturnType<typeof readRule> = {};
  if (port !== undefined) out.destinationPort = port.trim();
  if (protocol !== undefined) out.protocol = protocol;
  if (action !== undefined) out.action = action;
  if (sourceIp !== undefined) out.sourceIp = sourceIp;
  if (description !== undefined) out.description = description;
  if (useIpset !== undefined) out.useIpset = useIpset;
  return out;
}

const instanceOf = (ctx: SimContext, req: RequestData): Instance => findInstance(ctx.state, req.params["instance_uuid"]!);

function findRule(ctx: SimContext, inst: Instance, id: string): FirewallRule {
  const rule = ctx.state.firewallRules.find((r) => r.instanceUuid === inst.uuid && r.id === id);
  if (!rule) throw notFound("Firewall rule");
  return rule;
}

const listFirewallRules: Handler = (ctx, req) => {
  const inst = instanceOf(ctx, req);
  const v = new Validator(queryInput(req.query));
  const { page, limit } = pageParams(v, ctx);
  v.check();
  const rules = ctx.state.firewallRules.filter((r) => r.instanceUuid === inst.uuid).map((r) => ruleWire(r, ctx));
  return ok("Success", paginate(rules, page, limit));
};

const createFirewallRule: Handler = (ctx, req) => {
  const inst = instanceOf(ctx, req);
  const v = new Validator(req.body);
  const fields = readRule(v, false);
  v.check();
  requireIdle(inst);
  const rule: FirewallRule = {
    id: ctx.ids.uuid(), instanceUuid: inst.uuid, destinationPort: fields.destinationPort!, protocol: fields.protocol!,
    action: fields.action!, sourceIp: fields.sourceIp ?? null, description: fields.description ?? "",
    useIpset: fields.useIpset ?? false, createdAt: ctx.now, updatedAt: ctx.now,
  };
  ctx.state.firewallRules.push(rule);
  return ok("Firewall rule successfully created", { id: rule.id });
};

const updateFirewallRule: Handler = (ctx, req) => {
  const inst = instanceOf(ctx, req);
  const rule = findRule(ctx, inst, req.params["firewall_id"]!);
  const v = new Validator(req.body);
  const fields = readRule(v, true);
  v.check();
  requireIdle(inst);
  Object.assign(rule, fields, { updatedAt: ctx.now });
  return ok("Firewall rule successfully updated", { id: rule.id });
};

const deleteFirewallRule: Handler = (ctx, req) => {
  const inst = instanceOf(ctx, req);
  const rule = findRule(ctx, inst, req.params["firewall_id"]!);
  requireIdle(inst);
  ctx.state.firewallRules = ctx.state.firewallRules.filter((r) => r !== rule);
  return ok("Firewall rule successfully deleted", { id: rule.id });
};

const policyWire = (inst: Instance) => ({ action: inst.firewallDefault, policy: inst.firewallDefault === "A" ? "Accept" : "Drop" });

const getFirewallDefault: Handler = (ctx, req) => ok("Success", policyWire(instanceOf(ctx, req)));

const updateFirewallDefault: Handler = (ctx, req) => {
  const inst = instanceOf(ctx, req);
  const v = new Validator(req.body);
  const raw = v.string("action", { required: true });
  v.check();
  // Accepts the rule codes (A, D) and the policy words (Accept, Drop), in any case.
  const code = ({ a: "A", accept: "A", d: "D", drop: "D" } as const)[raw!.toLowerCase() as "a" | "accept" | "d" | "drop"];
  if (!code) throw fieldError("action", "The selected action is invalid.");
  requireIdle(inst);
  inst.firewallDefault = code;
  return ok("Default firewall policy successfully updated", policyWire(inst));
};

/** Handlers of the firewall routes, by operation id. */
export const firewallHandlers = {
  listFirewallRules, createFirewallRule, updateFirewallRule, deleteFirewallRule, getFirewallDefault, updateFirewallDefault,
} satisfies Record<string, Handler>;
