/**
 * Inputs and outputs of the VswitchAttachment resource (id = `<instance uuid>/<vswitch uuid>`): one
 * instance joined to one private network (vswitch).
 *
 * An instance is on at most one private network. Use this resource only on an Instance declared WITHOUT
 * `vswitchId`: an Instance that declares it manages the network itself, and two owners would undo each
 * other's changes.
 */
import { z } from "zod";
import { timeoutsSchema, uuidOf, type ResourceDocs } from "../common/fields";
import { unknownPropertyError } from "../common/check";

const INPUT_NAMES = ["instanceId", "vswitchId", "adoptId", "timeouts"] as const;

const ID_RE = /^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}\/[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/;

const inputsObject = z
  .strictObject(
    {
      instanceId: uuidOf("instanceId", "the uuid of the instance (use instance.id)").describe(
        "The uuid of the instance to join to the network (use instance.id). The Instance must be declared without vswitchId. Changing it replaces the attachment.",
      ),
      vswitchId: uuidOf("vswitchId", "the uuid of a private network, not its name (getVswitches lists them)").describe(
        "The uuid of the private network (vswitch). Changing it replaces the attachment: the instance is detached first, then attached.",
      ),
      adoptId: z
        .string({ error: "adoptId must be a string `<instance uuid>/<vswitch uuid>`" })
        .trim()
        .toLowerCase()
        .regex(
          ID_RE,
          "adoptId must be `<instance uuid>/<vswitch uuid>` (the attachment's id), e.g. " +
            "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab/0a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d",
        )
        .optional()
        .describe(
          "Adopt an attachment that already exists instead of attaching: `<instance uuid>/<vswitch uuid>`, the same uuids as " +
            "instanceId and vswitchId. Only used at create.",
        ),
      timeouts: timeoutsSchema.optional(),
    },
    unknownPropertyError("VswitchAttachment", INPUT_NAMES),
  )
  .describe(
    "An instance joined to a private network (vswitch), managed apart from the Instance (declare the Instance without vswitchId). " +
      "Create calls updatePrivateNetwork; delete detaches (updatePrivateNetwork with a blank vswitch).",
  );

/** Validation schema of the VswitchAttachment inputs (used by `check`): uuids lower-cased. */
export const inputsSchema = inputsObject.superRefine((v, ctx) => {
  if (v.adoptId !== undefined && typeof v.instanceId === "string" && typeof v.vswitchId === "string") {
    const expected = attachmentId(v.instanceId, v.vswitchId);
    if (v.adoptId !== expected) {
      ctx.addIssue({
        code: "custom",
        path: ["adoptId"],
        message: `adoptId must name the same attachment as instanceId and vswitchId: "${expected}"`,
      });
    }
  }
});

/** Validated VswitchAttachment inputs. */
export type VswitchAttachmentInputs = z.output<typeof inputsSchema>;

/** The VswitchAttachment outputs: the inputs plus what the service computed. */
export const outputsSchema = inputsObject.extend({
  vswitchName: z.string().describe("The network's name (the instance detail names its private network by this name)."),
  networkIp: z.string().optional().describe("The network in CIDR notation, e.g. 10.10.0.0/24 (absent when the service does not say)."),
  location: z.string().optional().describe("The name of the network's location."),
});

/** VswitchAttachment outputs (state, and what `read` returns as props). */
export type VswitchAttachmentOutputs = z.output<typeof outputsSchema>;

/** Outputs Pulumi must treat as secret: none. */
export const secretOutputNames: readonly string[] = [];

/** Names of the input properties, in documentation order. */
export const inputNames: readonly (keyof VswitchAttachmentInputs)[] = INPUT_NAMES;

/** The attachment's id: `<instance uuid>/<vswitch uuid>`. */
export function attachmentId(instanceId: string, vswitchId: string): string {
  return `${instanceId}/${vswitchId}`;
}

/** Splits an attachment id into its two uuids; undefined when it is not of that shape. */
export function parseAttachmentId(id: string): { instanceId: string; vswitchId: string } | undefined {
  if (!ID_RE.test(id.toLowerCase())) return undefined;
  const [instanceId, vswitchId] = id.toLowerCase().split("/") as [string, string];
  return { instanceId, vswitchId };
}

/** The example and adoption sections of the reference page (tools/schema adds them to schema.json). */
export const resourceDocs: ResourceDocs = {
  example: `import * as vmhost from "pulumi-vmhost";

declare const vm: vmhost.Instance; // declared WITHOUT vswitchId
// a network of the VM's location, by name
const backend = vmhost
  .getVswitchOptionsOutput({ locationId: vm.locationId })
  .apply(({ vswitches }) => vswitches.find((v) => v.name === "backend")!.uuid);

new vmhost.VswitchAttachment("backend-net", {
  instanceId: vm.id,
  vswitchId: backend,
});`,
  adoption: `Adopt an instance's existing network membership with \`adoptId: "<instance uuid>/<vswitch uuid>"\` (the same uuids as
\`instanceId\` and \`vswitchId\`): nothing is called at adoption.`,
};
