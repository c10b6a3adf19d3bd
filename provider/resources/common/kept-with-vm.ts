/**
 * Objects that belong to their VM (snapshots, firewall rules: the API's routes for them are the VM's, and deleting
 * the VM takes them) and that Pulumi never deletes on its own: adopted (`adoptId`), or a snapshot changed in the panel.
 *
 * The engine asks a dependent's Diff, with the inputs that come from a resource it deletes made unknown, whether it must
 * go first: before a delete-before-replace (pulumi/pulumi pkg/resource/deploy/step_generator.go
 * calculateDependentReplacements) and for the deletions of a `--target` run (determineAllowedResourcesToDeleteFromTargets).
 * Answering "it stays" let the engine delete the VM first, taking such an object with it, and the up then refused
 * "nothing was changed" (audit); "replace" would delete it too. But an unknown instanceId is not always a VM being
 * replaced (audit: the preview of an Instance that newly adopts the VM; a `destroy --target` of the VM with its
 * dependents, which the user asked for), so:
 * - when its VM is one this deployment replaces (its Instance's Diff said so: common/replacements.ts), the Diff fails,
 *   at preview and before the up deletes anything;
 * - otherwise the answer stays "no replace" and the object is noted against its VM: a delete of that VM in this
 *   deployment (`up --replace` of it, whose Diff the engine skips) fails instead, before the API call, unless the
 *   object was deleted first (a targeted destroy of both).
 */
import { isUnknown } from "./check";
import { ProviderError } from "./errors";
import { replacementsInProgress } from "./replacements";

/** VM id (lower case) -> object id (lower case) -> why the VM's delete must not take it. */
const keptWithVm = new Map<string, Map<string, string>>();

/** Forgets what was noted (see forgetDeployment in provider/registry.ts). */
export function forgetKeptWithVm(): void {
  keptWithVm.clear();
}

/**
 * Called by the Diff of such an object (`why`: "was adopted (adoptId)", ...; undefined when it is not one): see the
 * module comment. `wayOut`: what the user can do.
 */
export function refuseWhileItsVmIsUnknown(
  resource: "Snapshot" | "FirewallRule", id: string, olds: { instanceId?: unknown }, news: { instanceId?: unknown }, why: string | undefined, wayOut: string,
): void {
  if (why === undefined || !isUnknown(news.instanceId) || typeof olds.instanceId !== "string") return;
  const vm = olds.instanceId;
  const what = `${resource} ${id} ${why}, so Pulumi never deletes it on its own, and a VM's delete takes its ${resource === "Snapshot" ? "snapshots" : "firewall rules"} with it`;
  if (replacementsInProgress.idsUnder("Instance:").includes(vm.toLowerCase()))
    throw new ProviderError(`${what}: its instance ${vm} is being replaced in this run. Nothing was changed. ${wayOut}`);
  const kept = keptWithVm.get(vm.toLowerCase()) ?? new Map<string, string>();
  kept.set(id.toLowerCase(), `${what}. ${wayOut}`);
  keptWithVm.set(vm.toLowerCase(), kept);
}

/** The object was deleted on purpose (its own delete ran): its VM's delete no longer has to keep it. */
export function objectDeleted(id: string): void {
  for (const kept of keptWithVm.values()) kept.delete(id.toLowerCase());
}

/** Throws before VM `vmId` is deleted when an object noted against it would go with it (see the module comment). */
export function refuseDeletingVmWithKeptObjects(vmId: string): void {
  const kept = [...(keptWithVm.get(vmId.toLowerCase())?.values() ?? [])];
  if (kept.length === 0) return;
  throw new ProviderError(
    `instance ${vmId} was not deleted: this run deletes it (e.g. \`pulumi up --replace\`, which replaces it without asking the ` +
      `provider first) while the program keeps objects that go with it. ${kept.join(" ")} Nothing was changed.`,
  );
}
