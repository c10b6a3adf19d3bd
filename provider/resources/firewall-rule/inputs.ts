/**
 * Inputs and outputs of the FirewallRule resource (id = the rule's id as the API gives it).
 *
 * One rule of an instance's firewall. Everything but `instanceId` changes in place
 * (updateFirewallRule); moving a rule to another instance replaces it.
 */
import { isIP } from "node:net";
import { z } from "zod";
import { timeoutsOf, uuidOf, type ResourceDocs } from "../common/fields";
import { unknownPropertyError } from "../common/check";

/** Firewall protocols the API accepts (real-api-facts.md: tcp, udp). */
export const FIREWALL_PROTOCOLS = ["tcp", "udp"] as const;
/** What a matching packet gets: accepted or dropped (wire `A` / `D`). */
export const FIREWALL_ACTIONS = ["accept", "drop"] as const;

/**
 * A port "22" or an inclusive range "8000-9000" or "8000:9000", each 1-65535. Both range spellings, because
 * the API takes both (simulator/README.md: `destination_port` is a port or a range `8000:8100` /
 * `8000-8100`) and its own validation message proposes the colon one ("a range like 8000:8100"), so users
 * copy it from there and from the panel. The value is sent as written; the diff compares the two as equal.
 */
export function isValidPortSpec(text: string): boolean {
  const m = /^(\d{1,5})(?:[-:](\d{1,5}))?$/.exec(text);
  if (!m) return false;
  const from = Number(m[1]);
  const to = m[2] === undefined ? from : Number(m[2]);
  return from >= 1 && to <= 65535 && from <= to;
}

/**
 * An IPv4 address or network in CIDR notation ("203.0.113.7", "10.0.0.0/8"). The API documents `source_ip`
 * as a CIDR and the simulator refuses anything but IPv4, so IPv6 is refused here, before any call.
 */
export function isValidSource(text: string): boolean {
  const [address, prefix, ...rest] = text.split("/");
  // isIP accepts only the dotted quad of four decimal parts 0-255, without leading zeros or blanks
  if (rest.length > 0 || !address || isIP(address) !== 4) return false;
  if (prefix === undefined) return true;
  return /^\d{1,2}$/.test(prefix) && Number(prefix) <= 32;
}

/** Deadlines of the waits of a firewall change (each change is an operation on the instance). */
export const firewallRuleTimeoutsSchema = timeoutsOf({
  create: 'How long create may wait for the instance to be idle and the rule to apply, e.g. "10m". Default: config vmhost:createTimeout, else 30m.',
  update: 'How long an update may wait, e.g. "10m". Default: config vmhost:updateTimeout, else 30m.',
  delete: 'How long delete may wait, e.g. "10m". Default: config vmhost:deleteTimeout, else 20m.',
});

const portInput = z
  .union([z.number(), z.string()], { error: 'port must be a port like "22" or a range like "8000-9000"' })
  .transform((v) => String(v).trim())
  .superRefine((text, ctx) => {
    if (isValidPortSpec(text)) return;
    // the two mistakes a user makes most, said with the fix (new-user audit); anything else gets the rule
    const reversed = /^(\d{1,5})([-:])(\d{1,5})$/.exec(text);
    const message =
      reversed && Number(reversed[1]) > Number(reversed[3]) && Number(reversed[1]) <= 65535 && Number(reversed[3]) >= 1
        ? `port range "${text}" is reversed: write "${reversed[3]}${reversed[2]}${reversed[1]}" (low-high)`
        : /^\d{1,5}(\s*[,; ]\s*\d{1,5})+$/.test(text)
          ? `port takes one port or one range, not a list ("${text}"): declare one FirewallRule per port or range`
          : 'port must be a port 1-65535 like "22" or 22, or a range like "8000-9000" or "8000:9000" (low-high)';
    ctx.addIssue({ code: "custom", message });
  })
  .describe(
    'The destination port: a number 1-65535 (22 or "22") or an inclusive range "8000-9000" (or "8000:9000", the same range: ' +
      "the API takes both and the rule is sent as written). Changes in place.",
  );

/** Validation schema of the FirewallRule inputs (used by `check`). */
export const inputsSchema = z
  .strictObject(
    {
      instanceId: uuidOf("instanceId", "the uuid of the instance whose firewall gets the rule (use instance.id)")
        .describe("The uuid of the instance whose firewall holds the rule. Changing it replaces the rule."),
      protocol: z
        .enum(FIREWALL_PROTOCOLS, { error: 'protocol must be "tcp" or "udp" (lowercase)' })
        .describe('The protocol: "tcp" or "udp". Changes in place.'),
      port: portInput,
      sourceIp: z
        .string({ error: 'sourceIp must be a string such as "203.0.113.7" or "10.0.0.0/8"' })
        .trim()
        .refine(isValidSource, { message: 'sourceIp must be an IPv4 address or CIDR network, e.g. "203.0.113.7" or "10.0.0.0/8" (leave it out for any source)' })
        .optional()
        .describe('Only packets from this IPv4 address or CIDR network match ("203.0.113.7", "10.0.0.0/8"). Leave it out to match any source (same as "0.0.0.0/0"). Changes in place.'),
      action: z
        .enum(FIREWALL_ACTIONS, {
          error: (issue) =>
            issue.input === undefined
              ? 'action is required: "accept" or "drop"'
              : `action must be "accept" or "drop" (lowercase; not the API's codes A/D), got ${JSON.stringify(issue.input)}`,
        })
        .describe('What happens to matching packets: "accept" or "drop". Changes in place.'),
      // The API trims text and stores a blank one as no description (Laravel TrimStrings +
      // ConvertEmptyStringsToNull): trimmed here the same way, and blank = left out, so "  " never shows a
      // change that cannot go away.
      description: z
        .string({ error: "description must be a string" })
        .trim()
        .max(255, "description must be at most 255 characters")
        .regex(/^[^\u0000-\u001f\u007f]*$/, "description must be one line without control characters")
        // the API shows "-" for a rule without a description: one of just "-" would read back as none
        .refine((v) => v !== "-", 'description "-" reads back as no description (the API\'s placeholder for none): leave description out, or write a word')
        .transform((v) => (v === "" ? undefined : v))
        .optional()
        .describe("A free-text note shown in the panel (at most 255 characters; surrounding spaces are dropped and a blank one is the same as none, as the API stores it). Changes in place, except that removing it replaces the rule (the API cannot blank a description)."),
      adoptId: z
        .string({ error: "adoptId must be a firewall rule id string" })
        .trim()
        .min(1, "adoptId must not be empty: give the id of an existing rule of instanceId (see getFirewallRules), or leave it out")
        .optional()
        .describe("Adopt this existing rule of instanceId instead of creating one (pulumi import does not work for dynamic resources); the rule is then updated to match the inputs. Only used at create."),
      timeouts: firewallRuleTimeoutsSchema.optional(),
    },
    unknownPropertyError("FirewallRule", ["instanceId", "protocol", "port", "sourceIp", "action", "description", "adoptId", "timeouts"]),
  )
  .describe(
    "One rule of an instance's firewall: packets of a protocol to a port (or port range), optionally only from a source " +
      "address or network, are accepted or dropped. Everything but instanceId changes in place, except removing the description (the API cannot blank one: a new rule).",
  );

/** The FirewallRule inputs after `check` (port normalized to a string). */
export type FirewallRuleInputs = z.output<typeof inputsSchema>;

/** The FirewallRule outputs: the inputs (normalized) as the API reports them. */
export const outputsSchema = inputsSchema.extend({
  port: z.string().describe('The destination port or range as text, as the API reports it: "22", "8000-9000" or "8000:9000".'),
});

/** The FirewallRule outputs (what `read` returns as props). */
export type FirewallRuleOutputs = z.output<typeof outputsSchema>;

/** No FirewallRule output is secret. */
export const secretOutputNames: readonly string[] = [];

/** The example and adoption sections of the reference page (tools/schema adds them to schema.json). */
export const resourceDocs: ResourceDocs = {
  example: `import * as vmhost from "pulumi-vmhost";

declare const vm: vmhost.Instance;

new vmhost.FirewallRule("ssh-from-office", {
  instanceId: vm.id,
  protocol: "tcp",
  port: 22,
  sourceIp: "203.0.113.0/24",
  action: "accept",
  description: "ssh from the office",
});`,
  adoption: `Adopt an existing rule of the instance with \`adoptId\` (the rule's id: see \`getFirewallRules({ instanceId })\`): the rule
is then updated in place to match the declared inputs.`,
};
