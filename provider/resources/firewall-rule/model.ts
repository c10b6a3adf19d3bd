/**
 * FirewallRule: pure mapping between the resource's inputs/outputs and the API's rule record (normalized
 * by the client: action as the wire code A/D, absent fields null). No I/O.
 */
import type { FirewallRule as ApiFirewallRule, FirewallRuleParams } from "../../api";
import { ANY_SOURCE, canonicalPort, canonicalSource } from "./diff";
import type { FirewallRuleInputs, FirewallRuleOutputs } from "./inputs";

/** Provider-only inputs carried from the state into outputs (never sent to the API). */
type Carried = Pick<FirewallRuleInputs, "instanceId" | "adoptId" | "timeouts">;

/** A's and D's of the wire as the resource spells them; an unknown code is kept so it shows as a change. */
export function actionOf(code: string | null): string | undefined {
  if (code === "A") return "accept";
  if (code === "D") return "drop";
  return code ?? undefined;
}

/**
 * The body of create/update: the whole desired rule. A removed source is sent as 0.0.0.0/0, because the
 * API reads a blank `source_ip` as "not sent" and would keep the old one.
 */
export function ruleParams(inputs: FirewallRuleInputs): FirewallRuleParams {
  return {
    destinationPort: inputs.port,
    protocol: inputs.protocol,
    action: inputs.action,
    sourceIp: inputs.sourceIp ?? ANY_SOURCE,
    ...(inputs.description ? { description: inputs.description } : {}),
  };
}

/** The body of create: like update, but a rule without a source is created without one. */
export function createParams(inputs: FirewallRuleInputs): FirewallRuleParams {
  const params = ruleParams(inputs);
  if (inputs.sourceIp === undefined) delete params.sourceIp;
  return params;
}

/** The outputs of a rule: its API values plus the carried provider-only inputs. */
export function firewallRuleOutputs(carried: Carried, rule: ApiFirewallRule): FirewallRuleOutputs {
  const outputs: Record<string, unknown> = {
    instanceId: carried.instanceId,
    protocol: rule.protocol ?? "",
    port: rule.destination_port ?? "",
    action: actionOf(rule.action) ?? "",
  };
  if (rule.source_ip !== null && rule.source_ip !== ANY_SOURCE) outputs.sourceIp = rule.source_ip;
  if (rule.description !== null && rule.description !== "") outputs.description = rule.description;
  if (carried.adoptId !== undefined) outputs.adoptId = carried.adoptId;
  if (carried.timeouts !== undefined) outputs.timeouts = carried.timeouts;
  // protocol/action are typed enums; a value the API invents is passed through so diff shows the change
  return outputs as FirewallRuleOutputs;
}

/** True when an API rule matches the inputs (used to find a created rule when the API returns no id). */
export function ruleMatches(rule: ApiFirewallRule, inputs: FirewallRuleInputs): boolean {
  const out = firewallRuleOutputs({ instanceId: inputs.instanceId }, rule);
  return (
    out.protocol === inputs.protocol &&
    out.action === inputs.action &&
    canonicalPort(out.port) === canonicalPort(inputs.port) &&
    canonicalSource(out.sourceIp) === canonicalSource(inputs.sourceIp) &&
    (out.description ?? "") === (inputs.description ?? "")
  );
}
