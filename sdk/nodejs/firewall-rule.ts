import * as pulumi from "@pulumi/pulumi";
import { VmhostResource } from "./registration";
import { providerStub } from "./stub";
import { warnIgnoredOptions, optionInputs } from "./options";

/** Deadlines of a FirewallRule's waits, as durations ("90s", "10m"). Each change waits for the instance to be idle. */
export interface FirewallRuleTimeouts {
  /** Default: config `vmhost:createTimeout`, else 30m. */
  create?: pulumi.Input<string>;
  /** Default: config `vmhost:updateTimeout`, else 30m. */
  update?: pulumi.Input<string>;
  /** Default: config `vmhost:deleteTimeout`, else 20m. */
  delete?: pulumi.Input<string>;
}

/** The arguments of a {@link FirewallRule}. */
export interface FirewallRuleArgs {
  /** The uuid of the instance whose firewall holds the rule (e.g. `instance.id`). Changing it replaces the rule. */
  instanceId: pulumi.Input<string>;
  /** `"tcp"` or `"udp"`. Changes in place. */
  protocol: pulumi.Input<"tcp" | "udp">;
  /**
   * Destination port 1-65535 (`22` or `"22"`) or an inclusive range `"8000-9000"` (or `"8000:9000"`, the same
   * range: the API takes both and the rule is sent as written). Changes in place.
   */
  port: pulumi.Input<number | string>;
  /** Only packets from this address or CIDR network match (`"203.0.113.7"`, `"10.0.0.0/8"`); leave it out for any source. Changes in place. */
  sourceIp?: pulumi.Input<string>;
  /** `"accept"` or `"drop"` matching packets. Changes in place. */
  action: pulumi.Input<"accept" | "drop">;
  /** A note shown in the panel, at most 255 characters on one line. Changes in place. */
  description?: pulumi.Input<string>;
  /**
   * Adopt this existing rule (its id) of `instanceId` instead of creating one; the rule is then updated to match
   * these inputs. `pulumi import` does not work for dynamic resources. Only used at create.
   */
  adoptId?: pulumi.Input<string>;
  /** Deadlines of the waits. */
  timeouts?: pulumi.Input<FirewallRuleTimeouts>;
}

/**
 * One rule of an instance's firewall (id = the rule id).
 *
 * Everything but `instanceId` changes in place. Changes to rules of one instance, and every other operation on
 * that instance by this provider, run one at a time, so many rules can be declared side by side.
 *
 * @example
 * ```ts
 * import * as vmhost from "pulumi-vmhost";
 * const web = new vmhost.Instance("web", { ... });
 * new vmhost.FirewallRule("ssh-from-office", {
 *   instanceId: web.id, protocol: "tcp", port: 22, sourceIp: "203.0.113.0/24", action: "accept", description: "ssh",
 * });
 * new vmhost.FirewallRule("https", { instanceId: web.id, protocol: "tcp", port: 443, action: "accept" });
 * ```
 */
export class FirewallRule extends VmhostResource {
  /** The instance's uuid. */
  public readonly instanceId!: pulumi.Output<string>;
  /** `"tcp"` or `"udp"`. */
  public readonly protocol!: pulumi.Output<"tcp" | "udp">;
  /** The destination port or range as text, as the API reports it: `"22"`, `"8000-9000"` or `"8000:9000"`. */
  public readonly port!: pulumi.Output<string>;
  /** The matched source address or network; undefined = any source. */
  public readonly sourceIp!: pulumi.Output<string | undefined>;
  /** `"accept"` or `"drop"`. */
  public readonly action!: pulumi.Output<"accept" | "drop">;
  /** The rule's note. */
  public readonly description!: pulumi.Output<string | undefined>;
  /** The adopted rule id, when the resource adopted one. */
  public readonly adoptId!: pulumi.Output<string | undefined>;
  /** The wait deadlines in effect. */
  public readonly timeouts!: pulumi.Output<{ create?: string; update?: string; delete?: string } | undefined>;

  /**
   * @param name the Pulumi resource name.
   * @param args the rule's properties.
   * @param opts Pulumi resource options.
   */
  constructor(name: string, args: FirewallRuleArgs, opts?: pulumi.CustomResourceOptions) {
    // Every output is named in the props (undefined = "computed") so Pulumi fills the Output fields even
    // for optional inputs the program left out.
    super(
      providerStub("FirewallRule"),
      name,
      { sourceIp: undefined, description: undefined, adoptId: undefined, timeouts: undefined, ...args, ...optionInputs(opts) },
      opts,
      "vmhost",
      "FirewallRule",
    );
    warnIgnoredOptions(this, "FirewallRule", opts);
  }
}
