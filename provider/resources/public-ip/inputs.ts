/**
 * Inputs and outputs of the PublicIp resource (id = the address uuid): the public address of one instance,
 * managed apart from the Instance.
 *
 * Use it only on an Instance declared WITHOUT `publicIp`/`publicNetworkId`: an Instance that declares them
 * manages the address itself, and two owners of one address would undo each other's changes.
 */
import { z } from "zod";
import { parseDuration } from "../common/duration";

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A uuid property; the message names the property and what a valid value looks like. Normalized to lower
 * case so `6F1C…` and `6f1c…` are one value in diffs. (Shared by the attachment resources.)
 */
export function uuidOf(what: string, example = "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab") {
  return z
    .string({
      error: (issue) =>
        issue.input === undefined ? `${what} is required: a uuid, e.g. ${example}` : `${what} must be a uuid string, e.g. ${example}`,
    })
    .trim()
    .toLowerCase()
    .regex(UUID_RE, `${what} must be a uuid (8-4-4-4-12 hex digits), e.g. ${example}`);
}

// One DNS label: letters, digits and hyphens (not at either end), 1-63 characters.
const HOSTNAME_LABEL_RE = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * Reverse DNS: a fully qualified host name such as `mail.example.com`, lower-cased; a trailing dot is
 * accepted and dropped because the API stores the name without it (so `a.example.com.` is not drift).
 */
export const rdnsSchema = z
  .string({ error: "rdns must be a host name string, e.g. mail.example.com" })
  .trim()
  .toLowerCase()
  .transform((v) => v.replace(/\.$/, ""))
  .refine(
    (v) => v.length <= 253 && v.split(".").length >= 2 && v.split(".").every((label) => HOSTNAME_LABEL_RE.test(label)),
    "rdns must be a fully qualified host name of dot-separated labels (letters, digits, inner hyphens), e.g. mail.example.com; " +
      "to stop managing reverse DNS remove the property",
  );

/** One duration string of `timeouts` ("90s", "20m", "1h30m"). (Shared by the attachment resources.) */
export function durationOf(what: string) {
  return z
    .string({ error: `${what} must be a duration string such as "90s", "20m" or "1h30m"` })
    .refine(
      (v) => parseDuration(v) !== undefined && parseDuration(v)! > 0,
      `${what} must be a positive duration such as "90s", "20m" or "1h30m"`,
    );
}

/** How long create, update and delete may wait for the instance to settle. (Shared by the attachment resources.) */
export const timeoutsSchema = z
  .strictObject(
    {
      create: durationOf("timeouts.create").optional().describe('How long create may wait, e.g. "10m". Default: config vmhost:createTimeout, else the provider default.'),
      update: durationOf("timeouts.update").optional().describe('How long an update may wait, e.g. "10m". Default: config vmhost:updateTimeout, else the provider default.'),
      delete: durationOf("timeouts.delete").optional().describe('How long delete may wait, e.g. "10m". Default: config vmhost:deleteTimeout, else the provider default.'),
    },
    {
      error: (issue) =>
        issue.code === "unrecognized_keys"
          ? `timeouts only takes create, update and delete (durations like "10m")`
          : issue.code === "invalid_type"
            ? `timeouts must be an object such as { create: "10m", delete: "5m" }`
            : undefined,
    },
  )
  .describe('Deadlines of the waits of this resource (durations like "10m").');

const INPUT_NAMES = ["instanceId", "publicNetworkId", "rdns", "adoptId", "timeouts"] as const;

const inputsObject = z
  .strictObject(
    {
      instanceId: uuidOf("instanceId").describe(
        "The uuid of the instance that gets the address (use instance.id). The Instance must be declared without publicIp. Changing it replaces the address.",
      ),
      publicNetworkId: uuidOf("publicNetworkId")
        .optional()
        .describe(
          "A reserved public address (its uuid) to assign. Unset: the service picks a fresh address. Changing it replaces the resource: " +
            "the new address is assigned in one call, which releases the old one. Setting it to the address the instance already holds changes nothing.",
        ),
      rdns: rdnsSchema
        .optional()
        .describe("Reverse DNS of the address, e.g. mail.example.com. Changing it updates in place. Unset: not managed (left as it is)."),
      adoptId: uuidOf("adoptId")
        .optional()
        .describe(
          "Adopt the address the instance already has (its uuid, the publicIpId) instead of adding one. Only used at create " +
            "(pulumi import does not work for dynamic resources).",
        ),
      timeouts: timeoutsSchema.optional(),
    },
    {
      error: (issue) =>
        issue.code === "unrecognized_keys"
          ? `unknown propert${issue.keys.length > 1 ? "ies" : "y"} ${issue.keys.join(", ")}: a PublicIp takes ${INPUT_NAMES.join(", ")}`
          : undefined,
    },
  )
  .describe(
    "The public address of an instance, managed apart from the Instance (declare the Instance without publicIp). " +
      "Create assigns the address (changePublicIp with publicNetworkId, else addPublicIp) and sets rdns; delete removes it from the instance.",
  );

/** Validation schema of the PublicIp inputs (used by `check`): uuids lower-cased, rdns without trailing dot. */
export const inputsSchema = inputsObject.superRefine((v, ctx) => {
  if (v.adoptId !== undefined && v.publicNetworkId !== undefined && v.adoptId !== v.publicNetworkId) {
    ctx.addIssue({
      code: "custom",
      path: ["adoptId"],
      message:
        "adoptId and publicNetworkId name different addresses: adopt the address the instance has (adoptId) " +
        "or ask for a reserved one (publicNetworkId), or give both the same uuid",
    });
  }
});

/** Validated PublicIp inputs. */
export type PublicIpInputs = z.output<typeof inputsSchema>;

/** The PublicIp outputs: the inputs plus what the service computed. */
export const outputsSchema = inputsObject.extend({
  rdns: z.string().optional().describe("The reverse DNS the address has now (absent when it has none)."),
  publicIpId: z.string().describe("The address uuid (also the resource id)."),
  ipAddress: z.string().describe("The address itself, e.g. 203.0.113.10."),
});

/** PublicIp outputs (state, and what `read` returns as props). */
export type PublicIpOutputs = z.output<typeof outputsSchema>;

/** Outputs Pulumi must treat as secret: none (an address is not a secret). */
export const secretOutputNames: readonly string[] = [];

/** Names of the input properties, in documentation order. */
export const inputNames: readonly (keyof PublicIpInputs)[] = INPUT_NAMES;
