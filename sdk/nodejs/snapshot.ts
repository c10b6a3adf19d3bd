import * as pulumi from "@pulumi/pulumi";
import { VmhostResource } from "./registration";
import { providerStub } from "./stub";
import { warnIgnoredOptions, optionInputs } from "./options";

/** Deadlines of a Snapshot's waits, as durations ("90s", "20m", "1h30m"). */
export interface SnapshotTimeouts {
  /** How long create waits for the snapshot to be listed as Ready. Default: config `vmhost:createTimeout`, else 30m. */
  create?: pulumi.Input<string>;
  /** How long delete waits for the snapshot to disappear. Default: config `vmhost:deleteTimeout`, else 20m. */
  delete?: pulumi.Input<string>;
}

/** A block storage included in a snapshot. */
export interface SnapshotAttachedStorage {
  /** Block storage uuid. */
  id: string;
  /** Block storage name. */
  name: string;
  /** Size in GB, as the API reports it. */
  size: number;
}

/** The arguments of a {@link Snapshot}. */
export interface SnapshotArgs {
  /** The uuid of the instance to snapshot (e.g. `instance.id`). Changing it replaces the snapshot. */
  instanceId: pulumi.Input<string>;
  /**
   * The snapshot's name: 1-50 letters, digits, spaces, _ . - starting with a letter or digit. Changing it in the program
   * replaces the snapshot (the API cannot rename one); a name changed in the panel never does: `up` refuses, naming it.
   */
  name: pulumi.Input<string>;
  /**
   * A description, at most 255 characters; default "Created by Pulumi". Changing it in the program replaces the snapshot;
   * one changed in the panel never does (as for `name`).
   */
  description?: pulumi.Input<string>;
  /**
   * Adopt this existing snapshot (its uuid, see `getSnapshots`) of `instanceId` instead of taking a new one.
   * `pulumi import` does not work for dynamic resources; this is the way to bring a snapshot under management.
   * Only used at create.
   */
  adoptId?: pulumi.Input<string>;
  /** Deadlines of the create and delete waits. */
  timeouts?: pulumi.Input<SnapshotTimeouts>;
}

/**
 * A snapshot of an instance's disks (id = snapshot uuid).
 *
 * Create takes the snapshot and waits until the API lists it as Ready (a snapshot that ends in `Error` fails
 * the create, and the failed snapshot is still recorded in the state: the next `pulumi up` takes a new one in
 * its place, and `pulumi destroy` removes it). Every input the API stores replaces the snapshot when the program
 * changes it; a name or description changed in the panel never does (the `up` refuses, naming it). Delete removes
 * it and waits until it is gone.
 *
 * Rolling back is an action, not state: call {@link rollbackSnapshot}. It leaves the instance STOPPED; an
 * `Instance` declared with `powerState: "running"` starts it again on the next `pulumi up --refresh` (a plain
 * `up` compares with the state, which does not know of the stop until a refresh).
 *
 * @example
 * ```ts
 * import * as vmhost from "pulumi-vmhost";
 * const web = new vmhost.Instance("web", { ... });
 * const beforeUpgrade = new vmhost.Snapshot("before-upgrade", {
 *   instanceId: web.id,
 *   name: "before-upgrade",
 *   description: "taken before the 2.0 upgrade",
 * });
 * export const snapshotStatus = beforeUpgrade.status;
 * ```
 */
export class Snapshot extends VmhostResource {
  /** The snapshotted instance's uuid. */
  public readonly instanceId!: pulumi.Output<string>;
  /** The snapshot's name. */
  public readonly name!: pulumi.Output<string>;
  /** The snapshot's description. */
  public readonly description!: pulumi.Output<string>;
  /** The adopted snapshot uuid, when the resource adopted one. */
  public readonly adoptId!: pulumi.Output<string | undefined>;
  /** The wait deadlines in effect. */
  public readonly timeouts!: pulumi.Output<{ create?: string; delete?: string } | undefined>;
  /** Status as the API reports it, e.g. "Ready". */
  public readonly status!: pulumi.Output<string>;
  /** True when the instance currently runs from this snapshot's state. */
  public readonly isCurrentState!: pulumi.Output<boolean>;
  /** Block storages included in the snapshot. */
  public readonly attachedStorage!: pulumi.Output<SnapshotAttachedStorage[]>;
  /** Current price per hour of keeping the snapshot (null when the API gives none). */
  public readonly currentHourlyPrice!: pulumi.Output<number | null>;
  /** Estimated monthly price of keeping the snapshot (null when the API gives none). */
  public readonly estimatedMonthly!: pulumi.Output<number | null>;
  /** When the snapshot was taken, ISO 8601 UTC. */
  public readonly createdAt!: pulumi.Output<string | null>;
  /** The name the program declared when the snapshot was taken or last updated (a refresh never changes it). */
  public readonly declaredName!: pulumi.Output<string | undefined>;
  /** The description the program declared when the snapshot was taken or last updated (a refresh never changes it). */
  public readonly declaredDescription!: pulumi.Output<string | undefined>;

  /**
   * @param name the Pulumi resource name (not the snapshot's name: that is `args.name`).
   * @param args the snapshot's properties.
   * @param opts Pulumi resource options.
   */
  constructor(name: string, args: SnapshotArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      providerStub("Snapshot"),
      name,
      // Every output is named (undefined = "computed") so Pulumi fills the Output fields.
      {
        description: undefined,
        adoptId: undefined,
        timeouts: undefined,
        ...args,
        ...optionInputs(opts),
        status: undefined,
        isCurrentState: undefined,
        attachedStorage: undefined,
        currentHourlyPrice: undefined,
        estimatedMonthly: undefined,
        createdAt: undefined,
        declaredName: undefined,
        declaredDescription: undefined,
      },
      opts,
      "vmhost",
      "Snapshot",
    );
    warnIgnoredOptions(this, "Snapshot", opts, ["create", "delete"]);
  }
}
