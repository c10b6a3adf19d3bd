/**
 * Wire schemas of firewall rules. api-spec.md only shows the update call (answer `{id}`); the rule record
 * and the list/create/delete/default-policy calls come from client code (real-api-facts.md) and no sample
 * of them exists, so these schemas are deliberately tolerant: only `id` is required on a rule.
 */
import { z } from "zod";
import { flag, idString, pagedOrArray, placeholderString, unknownData } from "./common";

/**
 * A rule action normalized to the wire codes `"A"` (accept) or `"D"` (drop); hosts that spell it out
 * (`"Accept"`, `"drop"`, `"DENY"`) are mapped, anything else is kept as given.
 */
export const firewallAction = z.string().transform((v) => {
  const lower = v.trim().toLowerCase();
  if (lower === "a" || lower === "accept" || lower === "allow") return "A";
  if (lower === "d" || lower === "drop" || lower === "deny" || lower === "reject") return "D";
  return v;
});

/**
 * A firewall rule (real-api-facts.md: destination_port, protocol tcp/udp, action A/D, source_ip (CIDR),
 * description, use_ipset). Not shown by the spec: every field but `id` is optional; `-` or blank is null.
 */
export const firewallRule = z.object({
  id: idString,
  destination_port: z
    .union([z.string(), z.number()])
    .nullish()
    .transform((v) => (v === undefined || v === null ? null : String(v))),
  protocol: z.string().nullish().transform((v) => (v ? v.toLowerCase() : null)),
  action: firewallAction.nullish().transform((v) => v ?? null),
  source_ip: placeholderString,
  // "-" is the placeholder of none (as for source_ip; audit: read as a description, a rule declared without one
  // was replaced at every up --refresh). A description of just "-" is refused in check for that reason.
  description: placeholderString,
  use_ipset: flag.nullish().transform((v) => v ?? null),
});

/** The rule list: paged per client code (`?page=&limit=`); a bare array is accepted too. */
export const firewallRuleList = pagedOrArray(firewallRule);

/** Update answers `{id}` (§4.2). */
export const firewallRuleRef = z.object({ id: idString });

/**
 * Create answers are not shown anywhere: a rule object, `{id}`, or something else. Output the rule id when
 * one is present, else null (the caller then finds the rule in the list).
 */
export const createdFirewallRule = z
  .unknown()
  .transform((v): { id: string | null } => {
    if (v && typeof v === "object" && !Array.isArray(v)) {
      const record = v as Record<string, unknown>;
      for (const key of ["id", "firewall_id", "rule_id", "uuid"]) {
        const id = record[key];
        if (typeof id === "string" || typeof id === "number") return { id: String(id) };
      }
    }
    return { id: null };
  });

/** The default policy of an instance's firewall: `{action}`, Accept or Drop. */
export const firewallDefaultPolicy = z.object({ action: firewallAction });

/** Delete and default-policy update answers are not shown. */
export const firewallWriteResult = unknownData;

/** Normalized firewall rule. */
export type FirewallRule = z.output<typeof firewallRule>;
/** Normalized firewall rule page. */
export type FirewallRuleList = z.output<typeof firewallRuleList>;
/** Normalized created rule reference (id may be null when the host does not return it). */
export type CreatedFirewallRule = z.output<typeof createdFirewallRule>;
/** Normalized default policy. */
export type FirewallDefaultPolicy = z.output<typeof firewallDefaultPolicy>;
