/**
 * Firewall rules of an instance (`client.firewall`). The spec only shows the update call; list, create,
 * delete and the default policy come from client code (real-api-facts.md).
 */
import type { CallFunction } from "../operations";
import { bodyFromInputs } from "../request";
import { collectAll } from "../paginate";
import type { CreatedFirewallRule, FirewallDefaultPolicy, FirewallRule, FirewallRuleList } from "../schemas/firewall";
import { LIST_ALL_PAGE_SIZE, undefinedIfNotFound, type RequestOptions } from "./util";

/** A rule's action: accept or drop (sent as the wire codes `A` / `D`). */
export type FirewallAction = "accept" | "drop";

/** Fields of a firewall rule. */
export interface FirewallRuleParams {
  /** Destination port: `"22"` or a range such as `"8000-8100"`. */
  destinationPort: string | number;
  protocol: "tcp" | "udp";
  action: FirewallAction;
  /** Source address in CIDR notation; omitted = any. */
  sourceIp?: string | null;
  description?: string | null;
  /** Treat `sourceIp` as an IP set name. */
  useIpset?: boolean | null;
}

/** The firewall operations. */
export interface FirewallApi {
  /** One page of an instance's rules. */
  listRules(instanceUuid: string, query?: { page?: number; limit?: number }, options?: RequestOptions): Promise<FirewallRuleList>;
  /** Every rule of an instance across pages. */
  listAllRules(instanceUuid: string, options?: RequestOptions): Promise<FirewallRule[]>;
  /**
   * Creates a rule (never re-sent automatically). Answers the new rule's id, or `{id: null}` when the host
   * does not return it (then find the rule with `listAllRules`).
   */
  createRule(instanceUuid: string, params: FirewallRuleParams, options?: RequestOptions): Promise<CreatedFirewallRule>;
  /** Updates a rule; fields left undefined are not sent. */
  updateRule(instanceUuid: string, ruleId: string, params: Partial<FirewallRuleParams>, options?: RequestOptions): Promise<{ id: string } | null>;
  /** Deletes a rule; resolves to undefined if it was already gone (404/410). */
  deleteRule(instanceUuid: string, ruleId: string, options?: RequestOptions): Promise<unknown>;
  /** The instance's default policy (`A` accept / `D` drop). */
  getDefaultPolicy(instanceUuid: string, options?: RequestOptions): Promise<FirewallDefaultPolicy>;
  /** Sets the instance's default policy. */
  setDefaultPolicy(instanceUuid: string, params: { action: FirewallAction }, options?: RequestOptions): Promise<unknown>;
}

/** Maps an action to the wire code (real-api-facts.md: `A` accept, `D` drop). */
export function firewallActionCode(action: FirewallAction): "A" | "D" {
  return action === "accept" ? "A" : "D";
}

function ruleBody(p: Partial<FirewallRuleParams>) {
  return bodyFromInputs({
    destination_port: ["port", p.destinationPort],
    protocol: ["protocol", p.protocol],
    action: ["action", p.action === undefined ? undefined : firewallActionCode(p.action)],
    source_ip: ["sourceIp", p.sourceIp],
    description: ["description", p.description],
    use_ipset: ["useIpset", p.useIpset],
  });
}

/** Builds the firewall operations on a generic call. */
export function createFirewallApi(call: CallFunction): FirewallApi {
  const api: FirewallApi = {
    listRules: (instanceUuid, query, options) =>
      call("listFirewallRules", { path: { instance_uuid: instanceUuid }, query: { page: query?.page, limit: query?.limit }, signal: options?.signal }),
    listAllRules: (instanceUuid, options) =>
      collectAll((page) => api.listRules(instanceUuid, { page, limit: LIST_ALL_PAGE_SIZE }, options)),
    createRule: (instanceUuid, p, options) =>
      call("createFirewallRule", { path: { instance_uuid: instanceUuid }, ...ruleBody(p), signal: options?.signal }),
    updateRule: (instanceUuid, ruleId, p, options) =>
      call("updateFirewallRule", {
        path: { instance_uuid: instanceUuid, firewall_id: ruleId },
        ...ruleBody(p),
        signal: options?.signal,
      }),
    deleteRule: (instanceUuid, ruleId, options) =>
      undefinedIfNotFound(
        call("deleteFirewallRule", { path: { instance_uuid: instanceUuid, firewall_id: ruleId }, body: {}, signal: options?.signal }),
      ),
    getDefaultPolicy: (instanceUuid, options) =>
      call("getFirewallDefault", { path: { instance_uuid: instanceUuid }, signal: options?.signal }),
    setDefaultPolicy: (instanceUuid, p, options) =>
      call("updateFirewallDefault", {
        path: { instance_uuid: instanceUuid },
        ...bodyFromInputs({ action: ["action", firewallActionCode(p.action)] }),
        signal: options?.signal,
      }),
  };
  return api;
}
