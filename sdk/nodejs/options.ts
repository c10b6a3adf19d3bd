/**
 * Resource options our resources cannot honour, reported to the user instead of silently ignored.
 *
 * Pulumi's `customTimeouts` never reaches a dynamic provider: the engine applies it only to providers that
 * implement it over gRPC, and the dynamic-provider host's create/update/delete receive no timeout
 * (@pulumi/pulumi `cmd/dynamic-provider/index.js`, createRPC/updateRPC/deleteRPC read only the properties).
 * The resource classes see their options, so they warn here and point at the `timeouts` input, which does
 * set the waits' deadlines.
 */
import * as pulumi from "@pulumi/pulumi";

type TimeoutKind = "create" | "update" | "delete";

/**
 * The warning for a resource given `customTimeouts`, with the equivalent `timeouts` input built from the
 * values it was given (only the kinds the resource has); undefined when there is nothing to say.
 */
export function customTimeoutsWarning(
  resourceKind: string,
  customTimeouts: pulumi.CustomTimeouts | undefined,
  kinds: readonly TimeoutKind[] = ["create", "update", "delete"],
): string | undefined {
  if (!customTimeouts) return undefined;
  const given = kinds.filter((k) => typeof customTimeouts[k] === "string" && customTimeouts[k] !== "");
  const suggestion = (given.length ? given : kinds).map((k) => `${k}: ${JSON.stringify(customTimeouts[k] || "30m")}`).join(", ");
  return (
    `customTimeouts is ignored by vmhost.${resourceKind} (dynamic providers never receive it): ` +
    `set the timeouts input instead, e.g. timeouts: { ${suggestion} }`
  );
}

/** Logs {@link customTimeoutsWarning} on the resource, when it applies. */
export function warnIgnoredOptions(
  resource: pulumi.Resource,
  resourceKind: string,
  opts: pulumi.CustomResourceOptions | undefined,
  kinds?: readonly TimeoutKind[],
): void {
  const warning = customTimeoutsWarning(resourceKind, opts?.customTimeouts, kinds);
  if (warning) void pulumi.log.warn(warning, resource);
}

/**
 * Resource options the provider applies itself, passed along as inputs. `replaceOnChanges`: the engine applies
 * it only to the keys a provider's diff reports as changed, which the Node dynamic-provider host never passes
 * on, so with a dynamic provider it would do nothing; the provider compares the listed paths and reports them
 * as replaces (provider/resources/common/replace-on-changes.ts). `ignoreChanges`: the engine still applies it
 * (old inputs kept for those paths), and the provider also keeps the state's refreshed values for them, so a
 * change made outside Pulumi is kept after a refresh instead of undone (provider/resources/common/ignore-changes.ts).
 */
export function optionInputs(opts: pulumi.CustomResourceOptions | undefined): { __replaceOnChanges?: string[]; __ignoreChanges?: string[] } {
  return {
    ...(opts?.replaceOnChanges?.length ? { __replaceOnChanges: [...opts.replaceOnChanges] } : {}),
    ...(opts?.ignoreChanges?.length ? { __ignoreChanges: [...opts.ignoreChanges] } : {}),
  };
}

/**
 * Paths that the real engine's ParsePropertyPath reads as the single key `"*"` (a bare `*`, `[*]`, `["*"]`):
 * pulumi/pulumi sdk/go/common/resource/properties_path.go.
 */
const WHOLE_INPUTS_WILDCARDS: ReadonlySet<string> = new Set(["*", "[*]", '["*"]']);

/**
 * The `ignoreChanges` list to hand the ENGINE (the provider gets the program's own list as `__ignoreChanges`).
 *
 * The engine applies ignoreChanges before Check by resetting each path of the new inputs to the old inputs
 * (pkg/resource/deploy/step_generator.go processIgnoreChanges -> PropertyPath.Reset in
 * sdk/go/common/resource/properties_path.go). For `*` as the whole path Reset copies every key of the old inputs
 * and DELETES every key of the new inputs that the old ones lack. Our hidden option inputs are keys like any other:
 * with `["*"]` added to an existing resource (its old inputs have no `__ignoreChanges`), the new `__ignoreChanges`
 * was deleted and the provider never learnt of the option (the panel's changes were undone by the next
 * `up --refresh`); widening `["cpu"]` to `["*"]` kept the old `["cpu"]`.
 *
 * So a `*` path is replaced by the resource's own top-level property names (`names`: every key the resource class
 * registers, i.e. every declared input, and outputs, which are absent from the inputs on both sides), without the
 * `__*` keys. For a top-level name Reset takes the old value when the old inputs have the key and otherwise deletes
 * it from the new inputs, exactly what `*` does for that key; keys not listed (`__ignoreChanges`,
 * `__replaceOnChanges`, `__provider`) keep the program's value. So `ignoreChanges: ["*"]` still means "every
 * declared property stays as in the state" for the engine, and the provider receives the option unchanged.
 * Other paths (`*` deeper in a path included) are passed as they are: Reset never reaches a `__*` key through them
 * (those inputs hold lists of strings or a string).
 */
export function engineIgnoreChanges(ignoreChanges: readonly string[] | undefined, names: readonly string[]): string[] | undefined {
  if (!ignoreChanges?.some((p) => WHOLE_INPUTS_WILDCARDS.has(p))) return ignoreChanges ? [...ignoreChanges] : undefined;
  const declared = names.filter((k) => !k.startsWith("__"));
  return [...new Set(ignoreChanges.flatMap((p) => (WHOLE_INPUTS_WILDCARDS.has(p) ? declared : [p])))];
}

/**
 * The refusal of the `import` resource option (undefined when it is not set).
 *
 * Under the real engine it cannot work for a dynamic-provider resource: ImportStep.Apply
 * (pkg/resource/deploy/step.go) calls the provider's Read with the id alone, no inputs and no state, while the
 * dynamic-provider host finds the provider's code in the `__provider` property of those, and fails with
 * "code must be a string, not undefined". Refused rather than translated into `adoptId`: an import takes the object
 * as it is and fails on any difference, while an adoption makes it as declared (in-place changes are written), and
 * removing the `import` option afterwards, as Pulumi's workflow says, would then change the `adoptId` input.
 */
export function importOptionError(typeName: string, name: string, opts: pulumi.CustomResourceOptions | undefined): string | undefined {
  const id = opts?.import;
  if (id === undefined || id === null || id === "") return undefined;
  const shown = typeof id === "string" ? JSON.stringify(id) : '"<id>"';
  return `${typeName} ${name}: the import resource option does not work for dynamic-provider resources; use adoptId: ${shown} instead`;
}

/**
 * Why a Snapshot or FirewallRule that adopts (`adoptId`) must not have the resource option `deletedWith`, or undefined.
 * The API deletes a VM's snapshots and firewall rules with it, and with `deletedWith` the engine deletes the resource
 * with its VM without asking the provider anything, also when the VM is replaced (pulumi/pulumi
 * pkg/resource/deploy/step_generator.go: calculateDependentReplacements and diff() replace it without a Diff, and
 * step.go isDeletedWith skips its Delete): the provider cannot keep the adopted object it never deletes on its own
 * (audit: a replace of the VM lost the user's adopted snapshot, the preview showing only a replace). Refused where
 * both are visible: in the program, as the constructor gets them (a `deletedWith` a transformation adds later is not
 * seen; an `adoptId` given as an Output counts as adopting, its value being unknown here).
 */
export function adoptedDeletedWithError(typeName: string, name: string, props: pulumi.Inputs, opts: pulumi.CustomResourceOptions | undefined): string | undefined {
  if (!["vmhost.Snapshot", "vmhost.FirewallRule"].includes(typeName)) return undefined;
  if (props.adoptId === undefined || props.adoptId === null || !opts?.deletedWith) return undefined;
  const what = typeName === "vmhost.Snapshot" ? "snapshot" : "firewall rule";
  return (
    `${typeName} ${name}: adoptId with the resource option deletedWith: the engine would delete this adopted ${what} with the ` +
    `resource deletedWith names, also when that one is replaced, without asking the provider (the VM's delete takes its ${what}s), ` +
    `and Pulumi never deletes an adopted object on its own. Remove deletedWith (the ${what}'s own delete then runs, and a replace of ` +
    `the VM is refused while it holds the ${what}), or remove adoptId (an adoptId given as an Output counts as adopting: pass ` +
    `undefined itself when not adopting).`
  );
}
