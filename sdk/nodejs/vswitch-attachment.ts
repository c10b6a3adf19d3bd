import * as pulumi from "@pulumi/pulumi";
import { VmhostResource } from "./registration";
import { providerStub } from "./stub";
import { warnIgnoredOptions, optionInputs } from "./options";
import type { AttachmentTimeouts } from "./public-ip";

/** The arguments of a {@link VswitchAttachment}. */
export interface VswitchAttachmentArgs {
  /**
   * The uuid of the instance to join to the network (e.g. `instance.id`). Declare that Instance WITHOUT
   * `vswitchId`: one owner per instance network. Changing it replaces the attachment.
   */
  instanceId: pulumi.Input<string>;
  /**
   * The uuid of the private network (vswitch, see `getVswitches`). Changing it replaces the attachment: the
   * instance is detached first, then attached (an instance is on one private network at a time).
   */
  vswitchId: pulumi.Input<string>;
  /**
   * Adopt an attachment that already exists instead of attaching: `"<instance uuid>/<vswitch uuid>"`, the
   * same uuids as `instanceId` and `vswitchId`. Only used at create.
   */
  adoptId?: pulumi.Input<string>;
  /** Deadlines of the create and delete waits. */
  timeouts?: pulumi.Input<AttachmentTimeouts>;
}

/**
 * An instance joined to a private network (vswitch), managed apart from the Instance
 * (id = `"<instance uuid>/<vswitch uuid>"`).
 *
 * Create attaches the instance (it refuses an instance already on ANOTHER private network: detach it or
 * adopt that attachment); delete detaches it, but only if the instance is still on this network. If the
 * instance leaves the network out of band, a refresh reports the attachment gone.
 *
 * Use EITHER this resource OR the Instance's `vswitchId` input for one instance, never both. An Instance
 * declared without `vswitchId` does not manage its private network and never shows drift for it.
 *
 * @example
 * ```ts
 * import * as vmhost from "pulumi-vmhost";
 * const web = new vmhost.Instance("web", { ... }); // no vswitchId here
 * const backend = new vmhost.VswitchAttachment("web-backend", { instanceId: web.id, vswitchId: "0a1b2c3d-..." });
 * export const network = backend.networkIp;
 * ```
 */
export class VswitchAttachment extends VmhostResource {
  /** The attached instance. */
  public readonly instanceId!: pulumi.Output<string>;
  /** The private network's uuid. */
  public readonly vswitchId!: pulumi.Output<string>;
  /** The adopted attachment id, when the resource adopted one. */
  public readonly adoptId!: pulumi.Output<string | undefined>;
  /** The wait deadlines in effect. */
  public readonly timeouts!: pulumi.Output<{ create?: string; update?: string; delete?: string } | undefined>;
  /** The private network's name. */
  public readonly vswitchName!: pulumi.Output<string>;
  /** The network in CIDR notation, e.g. `10.10.0.0/24` (undefined when the service does not say). */
  public readonly networkIp!: pulumi.Output<string | undefined>;
  /** The name of the network's location. */
  public readonly location!: pulumi.Output<string | undefined>;

  /**
   * @param name the Pulumi resource name.
   * @param args the attachment's properties.
   * @param opts Pulumi resource options.
   */
  constructor(name: string, args: VswitchAttachmentArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      providerStub("VswitchAttachment"),
      name,
      // Every output is named (undefined = "computed") so Pulumi fills the Output fields.
      {
        adoptId: undefined,
        timeouts: undefined,
        ...args,
        ...optionInputs(opts),
        vswitchName: undefined,
        networkIp: undefined,
        location: undefined,
      },
      opts,
      "vmhost",
      "VswitchAttachment",
    );
    warnIgnoredOptions(this, "VswitchAttachment", opts);
  }
}
