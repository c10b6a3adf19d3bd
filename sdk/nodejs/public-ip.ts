import * as pulumi from "@pulumi/pulumi";
import { VmhostResource } from "./registration";
import { providerStub } from "./stub";
import { warnIgnoredOptions, optionInputs } from "./options";

/** Deadlines of the waits of an address or attachment resource, as durations with a unit ("90s", "10m", "1h30m"; a bare "30" is refused). */
export interface AttachmentTimeouts {
  /** How long create may wait for the instance to settle. Default: config `vmhost:createTimeout`, else the provider default. */
  create?: pulumi.Input<string>;
  /** How long an update may wait. Default: config `vmhost:updateTimeout`, else the provider default. */
  update?: pulumi.Input<string>;
  /** How long delete may wait. Default: config `vmhost:deleteTimeout`, else the provider default. */
  delete?: pulumi.Input<string>;
}

/** The arguments of a {@link PublicIp}. */
export interface PublicIpArgs {
  /**
   * The uuid of the instance that gets the address (e.g. `instance.id`). Declare that Instance WITHOUT
   * `publicIp`/`publicNetworkId`: one owner per address. Changing it replaces the resource; with
   * `publicNetworkId` kept, the old one is deleted first (a reserved address is on one VM at a time).
   */
  instanceId: pulumi.Input<string>;
  /**
   * A reserved public address (its uuid) to assign. Unset: the service picks a fresh address.
   * Changing it replaces the resource; the new address is assigned in one call, which releases the old one.
   * Setting it to the address the instance already holds changes nothing.
   */
  publicNetworkId?: pulumi.Input<string>;
  /**
   * Reverse DNS of the address, e.g. `mail.example.com` (a trailing dot is dropped). Changing it updates in
   * place. Unset: not managed (left as it is, never cleared).
   */
  rdns?: pulumi.Input<string>;
  /**
   * Adopt the address the instance already has (its uuid, see `publicIpId` or `getInstance`) instead of
   * adding one. `pulumi import` does not work for dynamic resources; this is the way to bring an address under
   * management. Only used at create. Refused when an Instance of the stack declaring `publicIp` or
   * `publicNetworkId` manages that address (one owner per address): remove that input from the Instance to hand
   * the address over.
   */
  adoptId?: pulumi.Input<string>;
  /** Deadlines of the create, update and delete waits. */
  timeouts?: pulumi.Input<AttachmentTimeouts>;
}

/**
 * The public address of an instance, managed apart from the Instance (id = the address uuid).
 *
 * Create assigns an address and sets `rdns`. Without `publicNetworkId` it adds a fresh address and refuses
 * an instance that already has one (adopt that one with `adoptId` instead); with `publicNetworkId` it assigns
 * that reserved address, and an address the instance held before goes back to the account as reserved. Delete removes the address from
 * the instance, but only if the instance still holds this address. If the address is removed or swapped out
 * of band, a refresh records the resource `detached` (drift) and the next `up` assigns it back.
 *
 * The API cannot release an address that is on no instance: after this resource's delete the address stays in
 * the account as a reserved address. When the address lives and dies with its VM, pass `{ deletedWith: vm }`:
 * `pulumi destroy` then skips this delete and the VM's delete (`deleteOptions.removePublicIp`, default true)
 * releases the address. Not with `publicNetworkId` (your own reserved address): there the VM's delete would release
 * it, while this resource's delete takes it off and leaves it yours.
 *
 * Use EITHER this resource OR the Instance's `publicIp`/`publicNetworkId` inputs for one instance, never both.
 * An Instance declared without them does not manage its address and never shows drift for it.
 *
 * @example
 * ```ts
 * import * as vmhost from "pulumi-vmhost";
 * const web = new vmhost.Instance("web", { ... }); // no publicIp here
 * const address = new vmhost.PublicIp("web-ip", { instanceId: web.id, rdns: "web.example.com" }, { deletedWith: web });
 * export const webAddress = address.ipAddress;
 * ```
 */
export class PublicIp extends VmhostResource {
  /** The instance holding the address. */
  public readonly instanceId!: pulumi.Output<string>;
  /** The reserved address asked for, if any. */
  public readonly publicNetworkId!: pulumi.Output<string | undefined>;
  /** The reverse DNS the address has now (undefined when it has none). */
  public readonly rdns!: pulumi.Output<string | undefined>;
  /** The adopted address uuid, when the resource adopted one. */
  public readonly adoptId!: pulumi.Output<string | undefined>;
  /** The wait deadlines in effect. */
  public readonly timeouts!: pulumi.Output<{ create?: string; update?: string; delete?: string } | undefined>;
  /** The address uuid (also the resource id). */
  public readonly publicIpId!: pulumi.Output<string>;
  /** The address itself, e.g. `203.0.113.10`. */
  public readonly ipAddress!: pulumi.Output<string>;
  /**
   * `true` when a refresh found the address taken off the instance, or swapped for another, out of band: the address
   * stays reserved in the account, and the next `up` assigns it back. Undefined while the instance holds it.
   */
  public readonly detached!: pulumi.Output<true | undefined>;

  /**
   * @param name the Pulumi resource name.
   * @param args the address's properties.
   * @param opts Pulumi resource options.
   */
  constructor(name: string, args: PublicIpArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      providerStub("PublicIp"),
      name,
      // Every output is named (undefined = "computed") so Pulumi fills the Output fields.
      {
        publicNetworkId: undefined,
        rdns: undefined,
        adoptId: undefined,
        timeouts: undefined,
        ...args,
        ...optionInputs(opts),
        publicIpId: undefined,
        ipAddress: undefined,
        detached: undefined,
      },
      opts,
      "vmhost",
      "PublicIp",
    );
    warnIgnoredOptions(this, "PublicIp", opts);
  }
}
