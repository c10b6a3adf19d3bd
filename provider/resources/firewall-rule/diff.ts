/**
 * Diff of a FirewallRule: pure. Only `instanceId` replaces (a rule belongs to one instance's firewall);
 * protocol, port, sourceIp, action and description change in place with one updateFirewallRule call
 * (except removing the description: see below);
 * `adoptId` and `timeouts` change without an API call.
 *
 * Values are compared in canonical form so equivalent spellings never show as drift: "22-22" = "22",
 * "8000:8100" = "8000-8100", "203.0.113.7/32" = "203.0.113.7", no source = "0.0.0.0/0", an absent
 * description = "" (the API may echo either).
 */
import { isUnknown } from "../common/check";
import type { ResourceDiff } from "../common/replace-on-changes";
import type { FirewallRuleInputs, FirewallRuleOutputs } from "./inputs";

/** Properties whose change moves the rule to a new one. */
export const FIREWALL_RULE_REPLACE_PROPERTIES = ["instanceId"] as const;
/** Properties changed in place with updateFirewallRule. */
export const FIREWALL_RULE_API_PROPERTIES = ["protocol", "port", "sourceIp", "action", "description"] as const;
/** Properties that change without an API call (recorded by `update`). */
export const FIREWALL_RULE_LOCAL_PROPERTIES = ["adoptId", "timeouts"] as const;

/**
 * The port in one spelling: "low-high" for a range, written with "-" or ":" (the API takes and stores both,
 * and the panel may write either), and the bare port for a one-port range ("22-22", "22:22" -> "22").
 * Anything else as given, trimmed (validation happened in check; a state may hold what the API echoed).
 */
export function canonicalPort(port: unknown): unknown {
  if (typeof port === "number") return String(port);
  if (typeof port !== "string") return port;
  const m = /^\s*(\d+)\s*(?:[-:]\s*(\d+)\s*)?$/.exec(port);
  if (!m) return port.trim();
  const from = Number(m[1]);
  const to = m[2] === undefined ? from : Number(m[2]);
  return from === to ? String(from) : `${from}-${to}`;
}

/**
 * The "any source" network. The API cannot blank a rule's `source_ip` on update (a blank field is "not
 * sent"), so removing `sourceIp` sends this instead, and it counts as equal to an absent source.
 */
export const ANY_SOURCE = "0.0.0.0/0";

/** A single-host network is the address itself ("1.2.3.4/32" = "1.2.3.4"); blank or 0.0.0.0/0 = any source. */
export function canonicalSource(source: unknown): unknown {
  if (source === undefined || source === null) return null;
  if (typeof source !== "string") return source;
  const s = source.trim();
  if (s === "" || s === "-" || s === ANY_SOURCE) return null;
  return s.endsWith("/32") ? s.slice(0, -3) : s;
}

function canonical(key: string, value: unknown): unknown {
  if (key === "port") return canonicalPort(value);
  if (key === "sourceIp") return canonicalSource(value);
  // ("-" is the API's placeholder of none: a state written before it was read so holds it)
  if (key === "description") return value === "-" ? "" : (value ?? "");
  return value ?? null;
}

function same(key: string, a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(key, a)) === JSON.stringify(canonical(key, b));
}

/** The API properties that differ between state and inputs (what an update must send). */
export function changedApiProperties(olds: Partial<FirewallRuleOutputs>, news: Partial<FirewallRuleInputs>): string[] {
  return FIREWALL_RULE_API_PROPERTIES.filter((key) => isUnknown(news[key]) || !same(key, olds[key], news[key]));
}

/**
 * Compares the state (outputs of the last create/read) with the checked inputs. Unknown preview values
 * count as changes (and as a replacement for instanceId). `changedKeys` names every property that differs
 * in canonical form (for replaceOnChanges).
 */
export function diffFirewallRule(olds: Partial<FirewallRuleOutputs>, news: Partial<FirewallRuleInputs>): ResourceDiff {
  const replaces: string[] = FIREWALL_RULE_REPLACE_PROPERTIES.filter((key) => isUnknown(news[key]) || !same(key, olds[key], news[key]));
  // The API treats a blank description as "not sent": removing a description can only be done by a new rule.
  if (!isUnknown(news.description) && canonical("description", olds.description) !== "" && (news.description ?? "") === "") replaces.push("description");
  const local = FIREWALL_RULE_LOCAL_PROPERTIES.filter((key) => isUnknown(news[key]) || !same(key, olds[key], news[key]));
  const changedKeys = [...new Set([...replaces, ...changedApiProperties(olds, news), ...local])];
  return { changes: changedKeys.length > 0, replaces: [...replaces], deleteBeforeReplace: false, changedKeys };
}
