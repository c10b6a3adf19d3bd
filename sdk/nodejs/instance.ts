import * as pulumi from "@pulumi/pulumi";
import { VmhostResource } from "./registration";
import { providerStub } from "./stub";
import { warnIgnoredOptions, optionInputs } from "./options";

/** Deadlines of an Instance's waits, as durations ("90s", "20m", "1h30m"). */
export interface InstanceTimeouts {
  /** How long create (or clone) waits for the VM to settle. Default: config `vmhost:createTimeout`, else 30m. */
  create?: pulumi.Input<string>;
  /** How long each update waits (per operation). Default: config `vmhost:updateTimeout`, else 30m. */
  update?: pulumi.Input<string>;
  /** How long delete waits for the VM to disappear. Default: config `vmhost:deleteTimeout`, else 20m. */
  delete?: pulumi.Input<string>;
}

/** What happens to things attached to the VM when it is deleted. No API call when changed. */
export interface InstanceDeleteOptions {
  /**
   * Also release the VM's public address. Default true (an address left behind keeps billing). Never a reserved
   * address the program pins with `publicNetworkId`: that one is yours and stays in the account.
   */
  removePublicIp?: pulumi.Input<boolean>;
  /** Also delete block storage attached to the VM. Default false (block storage usually holds data to keep). */
  removeBlockStorage?: pulumi.Input<boolean>;
}

/**
 * The arguments of an {@link Instance}. A fresh VM needs locationId, tierId, templateId, hostname, cpu, memory,
 * storage, username and password; a clone (`cloneFrom`) needs hostname, locationId and tierId; adopting
 * (`adoptId`) needs nothing else.
 */
export interface InstanceArgs {
  /** Integer id of the data-centre location, e.g. 1. Changing it replaces the VM. */
  locationId?: pulumi.Input<number>;
  /** Integer id of the OS template, e.g. 1. Changing it replaces the VM. Not allowed with `cloneFrom`. */
  templateId?: pulumi.Input<number>;
  /** Integer id of the price tier. Changing it changes the tier in place (changeTier), keeping the VM. */
  tierId?: pulumi.Input<number>;
  /** The VM's hostname: 1-63 lowercase letters, digits, hyphens or dots (RFC 1123 labels), e.g. `web-1` or `db.internal`. Changing it renames in place. */
  hostname?: pulumi.Input<string>;
  /** The admin user created on the VM, e.g. `deploy`. Changing it replaces the VM. Not allowed with `cloneFrom`. */
  username?: pulumi.Input<string>;
  /**
   * The admin user's password: 8-72 characters mixing lowercase, uppercase and digits, no spaces. Stored as a
   * secret; write-only (the API never returns it, so it cannot drift). Changing it sets the password in place.
   */
  password?: pulumi.Input<string>;
  /** SSH public keys installed for the admin user. Changing them replaces the VM. Not allowed with `cloneFrom`. */
  sshKeys?: pulumi.Input<pulumi.Input<string>[]>;
  /** Include scheduled backups. Changing it replaces the VM. Not allowed with `cloneFrom`. */
  backups?: pulumi.Input<boolean>;
  /** Number of CPUs. Changing it resizes in place. */
  cpu?: pulumi.Input<number>;
  /** Memory in GB. Changing it resizes in place. */
  memory?: pulumi.Input<number>;
  /**
   * Disk size in GB, at least the template's minimum. Growing it resizes in place. Disks cannot shrink: a
   * SMALLER value than the VM has is refused by `up` (nothing is changed), never turned into a new VM that
   * would lose the data; to really get a smaller disk, replace the VM with `pulumi up --replace <urn>`.
   */
  storage?: pulumi.Input<number>;
  /** Dedicated (not shared) CPUs, where the tier offers them; false (shared) by default for a new VM. Changing it resizes in place. */
  dedicatedCpu?: pulumi.Input<boolean>;
  /**
   * `true`: the VM has a public address (added if missing); `false`: it has none (removed if present).
   * Unset: created without one and not managed here (use a `PublicIp` resource).
   */
  publicIp?: pulumi.Input<boolean>;
  /** Uuid of a reserved public address to use. Changing it swaps the address in place. Needs publicIp != false. */
  publicNetworkId?: pulumi.Input<string>;
  /**
   * Uuid of the private network (vswitch) to join; `""` for none. Changing it moves the VM in place.
   * Unset: none at create and not managed here (use a `VswitchAttachment`).
   */
  vswitchId?: pulumi.Input<string>;
  /** `"running"` or `"stopped"`: the provider starts or stops the VM to match. Unset: not managed. */
  powerState?: pulumi.Input<"running" | "stopped">;
  /** Create the VM by cloning this instance (its uuid). Changing it replaces the VM. */
  cloneFrom?: pulumi.Input<string>;
  /**
   * Adopt this existing instance (its uuid) instead of creating one: `pulumi import` does not work for dynamic
   * resources. The same `pulumi up` makes the adopted VM as declared (in-place properties that differ are
   * changed, a declared password is set; the up logs what it changes). Only used at create: keep it.
   */
  adoptId?: pulumi.Input<string>;
  /** What delete also removes. */
  deleteOptions?: pulumi.Input<InstanceDeleteOptions>;
  /** Deadlines of the waits. */
  timeouts?: pulumi.Input<InstanceTimeouts>;
}

/**
 * A virtual machine (id = instance uuid).
 *
 * Create waits until the VM has settled (no operation running) and reads it back. An update applies several
 * changes in a fixed order, each waited for: tier, size, hostname, password, public address, private network,
 * power state. Refresh shows out-of-band changes as drift; a public address or private network managed by a
 * `PublicIp` / `VswitchAttachment` resource is never drift of the Instance.
 *
 * @example
 * ```ts
 * import * as vmhost from "pulumi-vmhost";
 * const web = new vmhost.Instance("web", {
 *   locationId: 1, tierId: 2, templateId: 1,
 *   hostname: "web-1", cpu: 2, memory: 4, storage: 40,
 *   username: "deploy", password: config.requireSecret("vmPassword"),
 *   publicIp: true, powerState: "running",
 * });
 * export const ip = web.ipAddress;
 * ```
 */
export class Instance extends VmhostResource {
  public readonly locationId!: pulumi.Output<number>;
  public readonly templateId!: pulumi.Output<number>;
  public readonly tierId!: pulumi.Output<number>;
  public readonly hostname!: pulumi.Output<string>;
  public readonly username!: pulumi.Output<string>;
  /** The declared password (secret; never read back from the API). */
  public readonly password!: pulumi.Output<string | undefined>;
  public readonly sshKeys!: pulumi.Output<string[] | undefined>;
  public readonly backups!: pulumi.Output<boolean | undefined>;
  /** Number of CPUs. */
  public readonly cpu!: pulumi.Output<number>;
  /** Memory in GB. */
  public readonly memory!: pulumi.Output<number>;
  /** Disk size in GB. */
  public readonly storage!: pulumi.Output<number>;
  public readonly dedicatedCpu!: pulumi.Output<boolean>;
  /** Whether the VM has a public address (only when `publicIp` is declared). */
  public readonly publicIp!: pulumi.Output<boolean | undefined>;
  /** Uuid of the address in use (only when `publicNetworkId` is declared; null when none). */
  public readonly publicNetworkId!: pulumi.Output<string | null | undefined>;
  /** Uuid of the joined vswitch, `""` for none (only when `vswitchId` is declared). */
  public readonly vswitchId!: pulumi.Output<string | undefined>;
  /** "running" or "stopped" (only when `powerState` is declared). */
  public readonly powerState!: pulumi.Output<string | undefined>;
  public readonly cloneFrom!: pulumi.Output<string | undefined>;
  public readonly adoptId!: pulumi.Output<string | undefined>;
  public readonly deleteOptions!: pulumi.Output<{ removePublicIp: boolean; removeBlockStorage: boolean }>;
  public readonly timeouts!: pulumi.Output<{ create?: string; update?: string; delete?: string } | undefined>;
  /** Status as the API reports it, e.g. "Running", "Stopped". */
  public readonly status!: pulumi.Output<string>;
  /** Public IPv4 address, or null. */
  public readonly ipAddress!: pulumi.Output<string | null>;
  /** Uuid of the public address, or null. */
  public readonly publicIpId!: pulumi.Output<string | null>;
  /** Reverse DNS of the public address, or null. */
  public readonly rdns!: pulumi.Output<string | null>;
  /** The private network as the API names it, or null. */
  public readonly privateNetwork!: pulumi.Output<string | null>;
  public readonly locationName!: pulumi.Output<string>;
  public readonly tierName!: pulumi.Output<string>;
  /** Operating system, e.g. "Ubuntu 22.04". */
  public readonly os!: pulumi.Output<string>;
  /** Price per hour while running (Rupiah). */
  public readonly pricePerHour!: pulumi.Output<number>;
  /** Estimated monthly price (Rupiah). */
  public readonly estimatedMonthlyPrice!: pulumi.Output<number>;
  /** ISO 8601 UTC timestamps. */
  public readonly createdAt!: pulumi.Output<string>;
  public readonly updatedAt!: pulumi.Output<string | null>;
  public readonly lastStartedAt!: pulumi.Output<string | null>;
  public readonly lastBackupAt!: pulumi.Output<string | null>;
  /**
   * Uuid of the public address this resource took off the VM (`publicIp` set to false, or swapped for
   * `publicNetworkId`): it stays reserved in the account, since the API cannot release an unassigned address.
   * The next `publicIp: true` assigns it back; deleting the VM releases it. Undefined when there is none.
   */
  public readonly reservedPublicIpId!: pulumi.Output<string | undefined>;
  /**
   * Uuid of the public address the API gave this resource (made with `publicIp: true`, a clone's address, one added by
   * an update, or the address an adopted VM came with), on the VM or kept reserved; null when it has none. Only this
   * address is kept to reuse or released with the VM: one you put on the VM in the panel, or pin with
   * `publicNetworkId`, goes back to your account.
   */
  public readonly madePublicIpId!: pulumi.Output<string | null>;
  /**
   * Uuid of your reserved address that the program pinned (`publicNetworkId`) and then stopped managing (neither
   * `publicIp` nor `publicNetworkId` declared) while the VM still holds it: deleting the VM leaves it in your account.
   */
  public readonly usersPublicIpId!: pulumi.Output<string | undefined>;

  /**
   * @param name the Pulumi resource name (not the hostname: that is `args.hostname`).
   * @param args the VM's properties.
   * @param opts Pulumi resource options.
   */
  constructor(name: string, args: InstanceArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      providerStub("Instance"),
      name,
      // Every output is named (undefined = "computed") so Pulumi fills the Output fields.
      {
        locationId: undefined,
        templateId: undefined,
        tierId: undefined,
        hostname: undefined,
        username: undefined,
        sshKeys: undefined,
        backups: undefined,
        cpu: undefined,
        memory: undefined,
        storage: undefined,
        dedicatedCpu: undefined,
        publicIp: undefined,
        publicNetworkId: undefined,
        vswitchId: undefined,
        powerState: undefined,
        cloneFrom: undefined,
        adoptId: undefined,
        deleteOptions: undefined,
        timeouts: undefined,
        ...args,
        // Secret in the state's inputs whatever the program passes (a plain string, or a secret config value read
        // with config.require): the engine stores inputs as the SDK sends them, and additionalSecretOutputs covers
        // only the outputs (and not those recorded with a failed create or update). As generated SDKs do.
        password: args.password === undefined ? undefined : pulumi.secret(args.password),
        ...optionInputs(opts),
        status: undefined,
        ipAddress: undefined,
        publicIpId: undefined,
        rdns: undefined,
        privateNetwork: undefined,
        locationName: undefined,
        tierName: undefined,
        os: undefined,
        pricePerHour: undefined,
        estimatedMonthlyPrice: undefined,
        createdAt: undefined,
        updatedAt: undefined,
        lastStartedAt: undefined,
        lastBackupAt: undefined,
        reservedPublicIpId: undefined,
        madePublicIpId: undefined,
        usersPublicIpId: undefined,
      },
      { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), "password"] },
      "vmhost",
      "Instance",
    );
    warnIgnoredOptions(this, "Instance", opts);
  }
}
