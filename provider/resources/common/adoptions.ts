/**
 * Objects adopted in this deployment are never deleted by it.
 *
 * An adopted object's replacement adopts the SAME object again (its inputs still say `adoptId`), and then the
 * engine deletes the "old" resource, which is that object: the replacement of an adopted VM deleted the VM.
 * Each resource's Diff refuses replace-forcing changes of an adopted object (common/replace-on-changes.ts), but
 * the engine asks no Diff when it replaces on its own: `pulumi up --replace <urn>` (Diff answers "replace, id"
 * without the provider, and Check gets no olds), a resource replaced because its `deletedWith` or `replaceWith`
 * target is (pulumi/pulumi pkg/resource/deploy/step_generator.go, diff()). A renamed resource without an alias
 * ends the same way: the new name adopts the object, the old name is deleted.
 *
 * So a create that adopts an object notes its id, and a delete of a noted id in the same provider process (one
 * process serves one deployment: the dynamic-provider host) leaves the object alone, saying why: the program
 * still declares it, under the resource that adopted it. Check notes it too: with `deleteBeforeReplace` the
 * engine deletes the old resource BEFORE the replacement's create (step_generator.go, the delete-before-replace
 * steps; its Check runs first, when the resource registers), so a note made only at create came too late and
 * `up --replace` of an adopted VM with deleteBeforeReplace deleted it, then failed to adopt it. Deletes in any
 * other deployment (`pulumi destroy`, an up after the resource left the program) are untouched, and so is the
 * delete of an object another resource's Diff showed it manages (that adoption will be refused).
 *
 * An object another resource of the stack manages is never adopted (two resources would own it): the adopting
 * create first waits for the rest of the deployment (common/activity.ts), so that a managing resource diffed late
 * is known; a Diff that comes after an adoption was recorded refuses, as a backstop.
 */
import type * as pulumi from "@pulumi/pulumi";
import { progressLog, resourceDeadline } from "../../context";
import { deploymentActivity } from "./activity";
import { isUnknown } from "./check";
import { notingCreatedId, ProviderError } from "./errors";

const adoptedHere = new Set<string>();

/** Objects an adopting create of this deployment recorded (not only checked): what a late Diff must refuse. */
const adoptionsRecorded = new Set<string>();

/**
 * Objects that resources of this stack manage other than by adopting them with that very id (created, or adopted
 * under another id): noted at Diff, which the engine calls for every resource of the state the program still
 * declares. An `adoptId` naming one of them would make two resources own one object (removing either deletes it,
 * and the adopting one changes it to its own declaration), so adoption refuses it. Best effort: a resource
 * declared after the one that adopts may not be diffed yet, and `--target`/`--exclude` skip the Diff of the
 * resources they leave out.
 */
const managedByOthers = new Set<string>();

/** Notes, at Diff, that the resource whose state is `olds` manages object `id`. */
export function noteManaged(id: string, olds: unknown): void {
  if (id && !adoptsItself(olds, id)) managedByOthers.add(id.toLowerCase());
}

/** True when a resource of this deployment adopts (or adopted) object `id`: the deployment never deletes it. */
export function isAdoptedHere(id: string): boolean {
  return adoptedHere.has(id.toLowerCase());
}

/** Forgets what was noted (tests that simulate a new provider process, i.e. a new deployment). */
export function forgetAdoptions(): void {
  adoptedHere.clear();
  adoptionsRecorded.clear();
  managedByOthers.clear();
}

/** True when `inputs` (a state's or the program's) adopt exactly object `id`. */
function adoptsItself(inputs: unknown, id: string): boolean {
  const adoptId = (inputs as { adoptId?: unknown } | undefined)?.adoptId;
  return typeof adoptId === "string" && adoptId.toLowerCase() === id.toLowerCase();
}

/** Wraps check, diff, create and delete of `resource`'s provider as described in the module comment. */
export function withAdoptionsKept<P extends pulumi.dynamic.ResourceProvider>(resource: string, provider: P): P {
  const note = (inputs: unknown, id: string | undefined): void => {
    if (id && typeof (inputs as { adoptId?: unknown } | undefined)?.adoptId === "string") {
      adoptedHere.add(id.toLowerCase());
      adoptionsRecorded.add(id.toLowerCase());
    }
  };
  const wrapped: pulumi.dynamic.ResourceProvider = {
    ...provider,
    ...(provider.diff
      ? {
          diff: async (id, olds, news) => {
            // The other order of managedByOthers' refusal: the adoption was recorded first in this up, and the
            // resource that already manages the object is diffed after it (it waits for another resource:
            // dependsOn, or an input). Going on, it would change the adopted object to its own declaration (rename
            // audit: a VM renamed away by one resource and adopted by another's adoptId, both recorded it, and the
            // up reported success on a VM not as either declared). A backstop: the adopting create waits for the
            // deployment to catch up first, so this is reached only when this resource waits for something this
            // provider does not see (another provider's resource).
            if (adoptionsRecorded.has(id.toLowerCase()) && !adoptsItself(olds, id) && !adoptsItself(news, id))
              throw new ProviderError(
                `${resource} ${id} belongs to this resource, and another resource of this stack adopts it in this up (adoptId: "${id}"), ` +
                  "so both may hold it in the state now: removing either from the program would delete it. Nothing was changed here. " +
                  "Take it out of the adopting resource's state without deleting it (`pulumi state delete <its urn>`), then remove " +
                  "its adoptId; if it wants a new object under this one's old name, give it dependsOn on this resource.",
              );
            return provider.diff!(id, olds, news);
          },
        }
      : {}),
    ...(provider.check
      ? {
          check: async (olds, news) => {
            const result = await provider.check!(olds, news);
            const adoptId = (result.inputs as { adoptId?: unknown } | undefined)?.adoptId;
            if (typeof adoptId === "string" && !isUnknown(adoptId)) adoptedHere.add(adoptId.toLowerCase());
            return result;
          },
        }
      : {}),
    create: async (inputs) => {
      const adoptId = (inputs as { adoptId?: unknown } | undefined)?.adoptId;
      // A resource that manages the object may be diffed late (it waits for a resource still running: dependsOn,
      // inputs; the SDK registers it only then), and then it only learns of the adoption once recorded (audit: both
      // held the VM, and removing the adopter from the program deleted it). So an adoption first lets the rest of the
      // deployment catch up (common/activity.ts), and decides on what the Diffs noted meanwhile.
      if (typeof adoptId === "string") {
        const deadline = resourceDeadline((inputs as { timeouts?: { create?: string } }).timeouts, "create");
        await deploymentActivity.waitForOthers(deadline, false); // (not a tracked call yet: define.ts tracks the create)
      }
      if (typeof adoptId === "string" && managedByOthers.has(adoptId.toLowerCase()))
        throw new ProviderError(
          `adoptId: ${resource} ${adoptId} belongs to another resource of this stack; two resources would own one object, and ` +
            "removing either would delete it. Remove adoptId (to get a new one) or the other resource. Nothing was changed.",
        );
      // (recorded with its id, an adopted VM in Error say: as adopted as after a success)
      return notingCreatedId(() => provider.create(inputs), (id) => note(inputs, id));
    },
  };
  const remove = provider.delete?.bind(provider);
  if (remove) {
    wrapped.delete = async (id, props) => {
      // (not when another resource's Diff showed it manages the object: that adoption will be refused, and the
      // object is this delete's, e.g. the old half of that resource's delete-before-replace; audit: skipped, the
      // old VM stayed beside its replacement in no state)
      if (isAdoptedHere(id) && !managedByOthers.has(id.toLowerCase())) {
        progressLog(
          `${resource} ${id} is not deleted: a resource of this deployment adopted it (adoptId), so the program still declares it. ` +
            "This is the old half of a replacement (pulumi up --replace, or a replace the engine made for deletedWith) or of a " +
            "rename: an adopted object is never replaced. To get a new one, remove adoptId and run pulumi up.",
        );
        return;
      }
      return remove(id, props);
    };
  }
  return wrapped as P;
}
