/**
 * Inputs and outputs of the PublicIp resource (id = the address uuid): the public address of one instance,
 * managed apart from the Instance.
 *
 * Use it only on an Instance declared WITHOUT `publicIp`/`publicNetworkId`: an Instance that declares them
 * manages the address itself, and two owners of one address would undo each other's changes.
 */
import { z } from "zod";
import { timeoutsSchema, uuidOf, type ResourceDocs } from "../common/fields";
import { unknownPropertyError } from "../common/check";

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

const INPUT_NAMES = ["instanceId", "publicNetworkId", "rdns", "adoptId", "timeouts"] as const;

const inputsObject = z
  .strictObject(
    {
      instanceId: uuidOf("instanceId", "the uuid of the instance (use instance.id)").describe(
        "The uuid of the instance that gets the address (use instance.id). The Instance must be declared without publicIp. Changing it replaces the resource; with publicNetworkId kept, the old one is deleted first (a reserved address is on one VM at a time).",
      ),
      publicNetworkId: uuidOf("publicNetworkId", "the uuid of a reserved public address, not the address itself")
        .optional()
        .describe(
          "A reserved public address (its uuid) to assign. Unset: the service picks a fresh address. Changing it replaces the resource: " +
            "the new address is assigned in one call, and the old one goes back to your account as a reserved address (it may bill; no resource " +
            "manages it). Setting it to the address the instance already holds changes nothing.",
        ),
      rdns: rdnsSchema
        .optional()
        .describe("Reverse DNS of the address, e.g. mail.example.com. Changing it updates in place. Unset: not managed (left as it is)."),
      adoptId: uuidOf("adoptId", "the uuid of the address the VM holds, not the address itself (getInstance: publicIp.ipId)")
        .optional()
        .describe(
          "Adopt the address the instance already has (its uuid, the publicIpId) instead of adding one. Only used at create " +
            "(pulumi import does not work for dynamic resources). Refused when an Instance of the stack declaring publicIp or " +
            "publicNetworkId manages that address: remove that field from the Instance to hand the address over.",
        ),
      timeouts: timeoutsSchema.optional(),
    },
    unknownPropertyError("PublicIp", INPUT_NAMES),
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
  detached: z
    .literal(true)
    .optional()
    .describe(
      "Present (true) when a refresh found the address taken off the instance, or swapped for another, out of band: the address " +
        "stays reserved in the account, and the next up assigns it back. Absent while the instance holds it.",
    ),
});

/** PublicIp outputs (state, and what `read` returns as props). */
export type PublicIpOutputs = z.output<typeof outputsSchema>;

/** Outputs Pulumi must treat as secret: none (an address is not a secret). */
export const secretOutputNames: readonly string[] = [];

/** Names of the input properties, in documentation order. */
export const inputNames: readonly (keyof PublicIpInputs)[] = INPUT_NAMES;

/** The example and adoption sections of the reference page (tools/schema adds them to schema.json). */
export const resourceDocs: ResourceDocs = {
  example: `import * as vmhost from "pulumi-vmhost";

declare const vm: vmhost.Instance; // declared WITHOUT publicIp / publicNetworkId

const address = new vmhost.PublicIp("web-address", {
  instanceId: vm.id,
  rdns: "web.example.com",
});

export const ip = address.ipAddress;`,
  adoption: `Adopt the address an instance already has with \`adoptId\` (the address uuid: \`publicIp.ipId\` of
\`getInstance({ instanceId })\`): \`new vmhost.PublicIp("ip", { instanceId: vm.id, adoptId: "<address uuid>" })\`.
Nothing is changed at adoption; a declared \`rdns\` that differs is set by the same \`pulumi up\`.`,
};
