/**
 * Inputs and outputs of the BlockStorageAttachment resource (id = the block storage uuid): one block
 * storage (disk) attached to one instance. The block storage itself is not created or deleted here (the API
 * has no call for that): deleting this resource detaches the disk, which stays in the account with its data.
 */
import { z } from "zod";
import { timeoutsSchema, uuidOf, type ResourceDocs } from "../common/fields";
import { unknownPropertyError } from "../common/check";

const INPUT_NAMES = ["blockStorageId", "instanceId", "adoptId", "timeouts"] as const;

const inputsObject = z
  .strictObject(
    {
      blockStorageId: uuidOf("blockStorageId", "the uuid of a block storage disk, not its name (getBlockStorage({ name: \"data-50\" }).id looks one up)").describe(
        "The uuid of the block storage to attach (getBlockStorages lists every disk, attached or not; getBlockStorageOptions only unattached ones). Changing it replaces the attachment.",
      ),
      instanceId: uuidOf("instanceId", "the uuid of the instance (use instance.id)").describe(
        "The uuid of the instance to attach it to (use instance.id). Changing it replaces the attachment: the disk is detached first, then attached.",
      ),
      adoptId: uuidOf("adoptId")
        .optional()
        .describe("Adopt an existing attachment instead of attaching: the block storage uuid (same as blockStorageId). Only used at create."),
      timeouts: timeoutsSchema.optional(),
    },
    unknownPropertyError("BlockStorageAttachment", INPUT_NAMES),
  )
  .describe(
    "A block storage attached to an instance. Create attaches it (attachBlockStorage); delete detaches it (detachBlockStorage): " +
      "the disk and its data stay in the account.",
  );

/** Validation schema of the BlockStorageAttachment inputs (used by `check`): uuids lower-cased. */
export const inputsSchema = inputsObject.superRefine((v, ctx) => {
  if (v.adoptId !== undefined && typeof v.blockStorageId === "string" && v.adoptId !== v.blockStorageId) {
    ctx.addIssue({
      code: "custom",
      path: ["adoptId"],
      message: `adoptId must be the attachment's id, which is the block storage uuid: "${v.blockStorageId}"`,
    });
  }
});

/** Validated BlockStorageAttachment inputs. */
export type BlockStorageAttachmentInputs = z.output<typeof inputsSchema>;

/** The BlockStorageAttachment outputs: the inputs plus what the service computed. */
export const outputsSchema = inputsObject.extend({
  name: z.string().optional().describe("The block storage's name (absent when the service does not say)."),
  sizeGb: z.number().optional().describe("The block storage's size in GB (absent when the service does not say)."),
});

/** BlockStorageAttachment outputs (state, and what `read` returns as props). */
export type BlockStorageAttachmentOutputs = z.output<typeof outputsSchema>;

/** Outputs Pulumi must treat as secret: none. */
export const secretOutputNames: readonly string[] = [];

/** Names of the input properties, in documentation order. */
export const inputNames: readonly (keyof BlockStorageAttachmentInputs)[] = INPUT_NAMES;

/** The example and adoption sections of the reference page (tools/schema adds them to schema.json). */
export const resourceDocs: ResourceDocs = {
  example: `import * as vmhost from "pulumi-vmhost";

declare const vm: vmhost.Instance;
// Found by name whether attached or not, so every run finds the same disk.
const data = vmhost.getBlockStorageOutput({ name: "data-50", locationId: vm.locationId });

new vmhost.BlockStorageAttachment("data", { blockStorageId: data.id, instanceId: vm.id }, { deleteBeforeReplace: true });`,
  adoption: `Adopt a disk already attached to the instance with \`adoptId\` set to the block storage uuid (the same as
\`blockStorageId\`; see \`getBlockStorages\`, which shows what each disk is attached to): nothing is called at adoption.`,
};
