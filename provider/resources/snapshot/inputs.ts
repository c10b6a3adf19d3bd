/**
 * Inputs and outputs of the Snapshot resource (id = snapshot uuid).
 *
 * A snapshot is immutable once taken: every input the API stores replaces it when the program changes it (never when
 * the panel does: see diff.ts). `check` validates with `inputsSchema`
 * before any API call, so a typo or a bad value is reported with the property name and the fix.
 */
import { z } from "zod";
import { timeoutsOf, uuidOf, type ResourceDocs } from "../common/fields";
import { unknownPropertyError } from "../common/check";

/** The default `description`: the API requires a non-empty description (Laravel `required` refuses ""). */
export const DEFAULT_SNAPSHOT_DESCRIPTION = "Created by Pulumi";

/** How long create and delete may wait for the snapshot to settle. */
export const snapshotTimeoutsSchema = timeoutsOf({
  create: 'How long create waits for the snapshot to be listed as Ready, e.g. "20m". Default: config vmhost:createTimeout, else 30m.',
  delete: 'How long delete waits for the snapshot to disappear, e.g. "10m". Default: config vmhost:deleteTimeout, else 20m.',
});

/** Validation schema of the Snapshot inputs (used by `check`). */
export const inputsSchema = z
  .strictObject(
    {
      instanceId: uuidOf("instanceId", "the uuid of the instance to snapshot (use instance.id)")
        .describe("The uuid of the instance to snapshot. Changing it replaces the snapshot (a new one is taken of the other instance)."),
      // The spec gives no bounds; these are the simulator's (Laravel-style) rules, so a name the API would
      // refuse with 422 is reported by check, before anything is created.
      name: z
        .string({ error: "name is required: a label such as \"before-upgrade\"" })
        .trim()
        // (abort: an empty name is one problem, not also "must start with a letter or digit")
        .min(1, { error: "name must not be empty: give a label such as \"before-upgrade\"", abort: true })
        .max(50, "name must be at most 50 characters")
        .regex(/^[A-Za-z0-9][A-Za-z0-9 _.-]*$/, "name must start with a letter or digit and contain only letters, digits, spaces, _ . - (e.g. before-upgrade)")
        .describe(
          "The snapshot's name: 1-50 letters, digits, spaces, _ . - starting with a letter or digit. Changing it in the program replaces the " +
            "snapshot (a new one is taken, then this one deleted): the API cannot rename one. A name changed in the panel never replaces it: " +
            "after a refresh the preview shows an update (drift) and up refuses it, naming the panel's name; declare that name, list " +
            "name in ignoreChanges (the panel's name is kept, with no drift), or take a new snapshot deliberately with `pulumi up --replace <urn>`.",
        ),
      description: z
        .string({ error: "description must be a string" })
        .trim()
        .min(1, "description must not be empty: leave it out to use the default")
        .max(255, "description must be at most 255 characters")
        .default(DEFAULT_SNAPSHOT_DESCRIPTION)
        .describe(
          `A free-text description (at most 255 characters; default "${DEFAULT_SNAPSHOT_DESCRIPTION}"). Changing it in the program replaces ` +
            "the snapshot; one changed in the panel never does (as for name).",
        ),
      adoptId: uuidOf("adoptId", "the uuid of an existing snapshot of instanceId (see getSnapshots)")
        .optional()
        .describe("Adopt this existing snapshot of instanceId instead of taking a new one (pulumi import does not work for dynamic resources). Only used at create."),
      timeouts: snapshotTimeoutsSchema.optional(),
    },
    unknownPropertyError("Snapshot", ["instanceId", "name", "description", "adoptId", "timeouts"]),
  )
  .describe(
    "A snapshot of an instance's disks. Every input the API stores (instanceId, name, description) replaces the snapshot when the program " +
      "changes it (a snapshot cannot be changed); a name or description changed in the panel never does: up refuses, naming it. " +
      "Create waits until the snapshot is listed as Ready; delete waits until it is gone. " +
      "To roll an instance back to a snapshot, call the rollbackSnapshot function: it is an action, not state.",
  );

/** The Snapshot inputs after `check` (defaults filled). */
export type SnapshotInputs = z.output<typeof inputsSchema>;

/** A block storage captured with the snapshot. */
export const attachedStorageSchema = z
  .object({
    id: z.string().describe("Block storage uuid."),
    name: z.string().describe("Block storage name."),
    size: z.number().describe("Block storage size in GB, as the API reports it."),
  })
  .describe("A block storage included in the snapshot.")
  .meta({ title: "SnapshotAttachedStorage" });

/** The Snapshot outputs: the inputs plus what the API computes. */
export const outputsSchema = inputsSchema.extend({
  status: z.string().describe('The snapshot status as the API reports it, e.g. "Ready" ("Error" when taking it failed).'),
  isCurrentState: z.boolean().describe("True when the instance currently runs from this snapshot's state (it was the last one rolled back to or taken)."),
  attachedStorage: z.array(attachedStorageSchema).describe("Block storages included in the snapshot."),
  currentHourlyPrice: z.number().nullable().describe("Current price per hour of keeping the snapshot (null when the API gives none)."),
  estimatedMonthly: z.number().nullable().describe("Estimated monthly price of keeping the snapshot (null when the API gives none)."),
  createdAt: z.string().nullable().describe("When the snapshot was taken, ISO 8601 UTC."),
  declaredName: z
    .string()
    .optional()
    .describe(
      "The name the program declared when the snapshot was taken or last updated; a refresh never changes it, nor does an update " +
        "while name is listed in ignoreChanges (the program's name is then not seen). When name (the " +
        "snapshot's, as read) differs from it, the name was changed in the panel, and up refuses instead of replacing the snapshot. " +
        "Absent in a state written by an earlier version (up then refuses any name that differs from the snapshot's).",
    ),
  declaredDescription: z
    .string()
    .optional()
    .describe("The description the program declared when the snapshot was taken or last updated; a refresh never changes it (as declaredName)."),
});

/** The Snapshot outputs (what `read` returns as props). */
export type SnapshotOutputs = z.output<typeof outputsSchema>;

/** No Snapshot output is secret. */
export const secretOutputNames: readonly string[] = [];

/** The example and adoption sections of the reference page (tools/schema adds them to schema.json). */
export const resourceDocs: ResourceDocs = {
  example: `import * as vmhost from "pulumi-vmhost";

declare const vm: vmhost.Instance;

const baseline = new vmhost.Snapshot("baseline", {
  instanceId: vm.id,
  name: "baseline",
  description: "before the upgrade",
  timeouts: { create: "30m" },
});

export const snapshotStatus = baseline.status;`,
  adoption: `Adopt an existing snapshot of the instance with \`adoptId\` (its uuid, see \`getSnapshots({ instanceId })\`): nothing is
taken or changed. Declare the snapshot's own \`name\` (and \`description\`): adoption refuses a different one.`,
};
