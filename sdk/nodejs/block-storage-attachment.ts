import * as pulumi from "@pulumi/pulumi";
import { VmhostResource } from "./registration";
import { providerStub } from "./stub";
import { warnIgnoredOptions, optionInputs } from "./options";
import type { AttachmentTimeouts } from "./public-ip";

/** The arguments of a {@link BlockStorageAttachment}. */
export interface BlockStorageAttachmentArgs {
  /** The uuid of the block storage to attach (see `getBlockStorageOptions`). Changing it replaces the attachment. */
  blockStorageId: pulumi.Input<string>;
  /**
   * The uuid of the instance to attach it to (e.g. `instance.id`). Changing it replaces the attachment: the
   * disk is detached first, then attached to the new instance.
   */
  instanceId: pulumi.Input<string>;
  /** Adopt an existing attachment instead of attaching: the block storage uuid (same as `blockStorageId`). Only used at create. */
  adoptId?: pulumi.Input<string>;
  /** Deadlines of the create and delete waits. */
  timeouts?: pulumi.Input<AttachmentTimeouts>;
}

/**
 * A block storage (disk) attached to an instance (id = the block storage uuid).
 *
 * Create attaches the disk (it refuses a disk attached to ANOTHER instance); delete detaches it. The disk and
 * its data stay in the account: the API has no call to create or delete block storage.
 *
 * Reads use the account's block storage list where the host has it. Where it does not, the only view is the
 * location's list of available (non-attached) disks: a disk missing from it counts as attached to this
 * instance, so a disk moved to another instance out of band is not noticed there.
 *
 * @example
 * ```ts
 * import * as vmhost from "pulumi-vmhost";
 * const db = new vmhost.Instance("db", { ... });
 * const data = new vmhost.BlockStorageAttachment("db-data", { instanceId: db.id, blockStorageId: "0a1b2c3d-..." });
 * export const dataSize = data.sizeGb;
 * ```
 */
export class BlockStorageAttachment extends VmhostResource {
  /** The attached block storage's uuid. */
  public readonly blockStorageId!: pulumi.Output<string>;
  /** The instance the disk is attached to. */
  public readonly instanceId!: pulumi.Output<string>;
  /** The adopted attachment id, when the resource adopted one. */
  public readonly adoptId!: pulumi.Output<string | undefined>;
  /** The wait deadlines in effect. */
  public readonly timeouts!: pulumi.Output<{ create?: string; update?: string; delete?: string } | undefined>;
  /** The block storage's name (undefined when the service does not say). */
  public readonly name!: pulumi.Output<string | undefined>;
  /** The block storage's size in GB (undefined when the service does not say). */
  public readonly sizeGb!: pulumi.Output<number | undefined>;

  /**
   * @param name the Pulumi resource name.
   * @param args the attachment's properties.
   * @param opts Pulumi resource options.
   */
  constructor(name: string, args: BlockStorageAttachmentArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      providerStub("BlockStorageAttachment"),
      name,
      // Every output is named (undefined = "computed") so Pulumi fills the Output fields.
      {
        adoptId: undefined,
        timeouts: undefined,
        ...args,
        ...optionInputs(opts),
        name: undefined,
        sizeGb: undefined,
      },
      opts,
      "vmhost",
      "BlockStorageAttachment",
    );
    warnIgnoredOptions(this, "BlockStorageAttachment", opts);
  }
}
