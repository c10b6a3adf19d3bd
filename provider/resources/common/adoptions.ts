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
import { formatDuration } from "../../duration";
import { deploymentActivity } from "./activity";
import { isUnknown } from "./check";
import { notingCreatedId, ProviderError } from "./errors";

/**
 * Where the adoption of each object declared with `adoptId` in this deployment stands (keys: lower-case ids):
 * `declared` by a Check, `adopting` while its create runs, `recorded` once the create answered or recorded its id,
 * `failed` when the create ended without recording it. One object, one adopter: a second adopting create of an
 * object is refused (audit: two new Instances with one adoptId both adopted it and renamed it back and forth).
 */
type AdoptionStage = "declared" | "adopting" | "recorded" | "failed";
const adoptions = new Map<string, AdoptionStage>();

/** Where the adoption of object `id` stands in this deployment; undefined when no resource of it adopts the object. */
export function adoptionStage(id: string): AdoptionStage | undefined {
  return adoptions.get(id.toLowerCase());
}

/** When each adoption was declared (its Check), by the clock of {@link deploymentActivity}. */
const declaredAt = new Map<string, number>();

/**
 * True while an adoption of `id` declared at Check may still be about to begin: its create follows the Check, but
 * not at once (the engine registers and steps it), and until then nothing of it runs. Within the quiet pause after
 * the Check, or while the deployment is not quiet (e2e renames, flaky: a create waiting for it saw the deployment
 * quiet in that gap and refused the VM as a stranger).
 */
export function adoptionMayBegin(id: string): boolean {
  if (adoptionStage(id) !== "declared") return false;
  const at = declaredAt.get(id.toLowerCase()) ?? Number.NEGATIVE_INFINITY;
  return !deploymentActivity.isQuiet() || deploymentActivity.clock.now() - at < deploymentActivity.quietMs;
}

/**
 * Objects that resources of this stack manage other than by adopting them with that very id (created, or adopted
 * under another id): noted at Diff, which the engine calls for every resource of the state the program still
 * declares. An `adoptId` naming one of them would make two resources own one object (removing either deletes it,
 * and the adopting one changes it to its own declaration), so adoption refuses it. Best effort: a resource
 * declared after the one that adopts may not be diffed yet, and `--target`/`--exclude` skip the Diff of the
 * resources they leave out.
 */
const managedByOthers = new Set<string>();

/**
 * Notes, at Diff, that the resource diffed manages object `id`, also when it adopted it: the engine never asks the
 * Diff of a resource it replaces on its own (`--replace`, a taint, replaceWith, deletedWith: pulumi/pulumi
 * pkg/resource/deploy/step_generator.go diff() answers those first), and a Diff never replaces an adopted object
 * into itself (common/replace-on-changes.ts), so a Diff and an adopting create of one object in one deployment are
 * always two resources (audit: an Instance adopting a VM that another Instance adopted in an earlier up took it).
 * One exception, an adopted PublicIp whose VM is replaced delete-before-replace (public-ip/diff.ts): its Diff answers
 * replace and the engine deletes it first; that delete of the adopter ends the note (withAdoptionsKept), before its
 * re-create adopts again.
 */
export function noteManaged(id: string): void {
  if (id) managedByOthers.add(id.toLowerCase());
}

/**
 * True when a resource of this deployment adopts object `id` (declared, adopting or recorded, not failed): the
 * deployment never deletes it.
 */
export function isAdoptedHere(id: string): boolean {
  const stage = adoptionStage(id);
  return stage !== undefined && stage !== "failed";
}

/** Forgets what was noted (tests that simulate a new provider process, i.e. a new deployment). */
export function forgetAdoptions(): void {
  adoptions.clear();
  declaredAt.clear();
  managedByOthers.clear();
}

/** True when `inputs` (a state's or the program's) adopt exactly object `id`. */
function adoptsItself(inputs: unknown, id: string): boolean {
  const adoptId = (inputs as { adoptId?: unknown } | undefined)?.adoptId;
  return typeof adoptId === "string" && adoptId.toLowerCase() === id.toLowerCase();
}

/** Wraps check, diff, create and delete of `resource`'s provider as described in the module comment. */
export function withAdoptionsKept<P extends pulumi.dynamic.ResourceProvider>(resource: string, provider: P): P {
  const wrapped: pulumi.dynamic.ResourceProvider = {
    ...provider,
    ...(provider.diff
      ? {
          diff: async (id, olds, news) => {
            // The other order of managedByOthers' refusal: the adoption was recorded first in this up, and the
            // resource that already manages the object is diffed after it (it waits for another resource:
            // dependsOn, or an input). Going on, it would change the adopted object to its own declaration (rename
            // audit: a VM renamed away by one resource and adopted by another's adoptId, both recorded it, and the
            // up reported success on a VM not as either declared). Also when this resource adopted the object in an
            // earlier up: a Diff never comes with an adopting create of the same resource (see noteManaged). A
            // backstop: the adopting create waits for the deployment to catch up first, so this is reached only
            // when this resource waits for something this provider does not see (another provider's resource).
            if (adoptionStage(id) === "recorded")
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
            if (typeof adoptId === "string" && !isUnknown(adoptId) && !adoptions.has(adoptId.toLowerCase()))
            {
              adoptions.set(adoptId.toLowerCase(), "declared");
              declaredAt.set(adoptId.toLowerCase(), deploymentActivity.clock.now());
            }
            return result;
          },
        }
      : {}),
    create: async (inputs) => {
      const adoptId = (inputs as { adoptId?: unknown } | undefined)?.adoptId;
      if (typeof adoptId !== "string") return provider.create(inputs);
      const key = adoptId.toLowerCase();
      const stage = adoptions.get(key);
      if (stage === "adopting" || stage === "recorded")
        throw new ProviderError(
          `adoptId: ${resource} ${adoptId} is adopted by another resource of this stack in this up; two resources would own one ` +
            "object, and removing either would delete it. Remove adoptId from one of them. Nothing was changed.",
        );
      adoptions.set(key, "adopting");
      let recorded = false;
      try {
        await waitForTheDeployment(resource, adoptId, (inputs as { timeouts?: { create?: string } }).timeouts);
        if (managedByOthers.has(key))
          throw new ProviderError(
            `adoptId: ${resource} ${adoptId} belongs to another resource of this stack; two resources would own one object, and ` +
              "removing either would delete it. Remove adoptId (to get a new one) or the other resource. Nothing was changed.",
          );
        // (recorded with its id, an adopted VM in Error say: as adopted as after a success)
        return await notingCreatedId(() => provider.create(inputs), (id) => {
          recorded = true;
          adoptions.set(key, "recorded");
          adoptions.set(id.toLowerCase(), "recorded");
        });
      } finally {
        if (!recorded) adoptions.set(key, "failed");
      }
    },
  };
  const remove = provider.delete?.bind(provider);
  if (remove) {
    wrapped.delete = async (id, props) => {
      const stage = adoptionStage(id);
      // (not when another resource's Diff showed it manages the object: that adoption will be refused, and the
      // object is this delete's, e.g. the old half of that resource's delete-before-replace; audit: skipped, the
      // old VM stayed beside its replacement in no state)
      if (stage === undefined || managedByOthers.has(id.toLowerCase())) {
        await remove(id, props);
        // An adopting resource deleted ahead of its VM's delete-before-replace (a PublicIp: public-ip/diff.ts) is
        // re-created next, adopting again: its own Diff's note must not refuse that as another resource's. Only the
        // adopter's: a resource with a fixed id (a pinned PublicIp) is re-created under the same id without adopting,
        // and still owns it (audit: a second PublicIp then adopted its address, two owners).
        if (adoptsItself(props, id)) managedByOthers.delete(id.toLowerCase());
        return;
      }
      // Deletes of resources the program no longer declares come after every create of the up (the engine's post
      // steps); only the old half of a delete-before-replace comes before its replacement's create, and that is
      // the adopting resource's own state. Any other delete meeting an adoption that did not record the object
      // must fail, or the engine drops this resource and the object is in no state (audit: `up
      // --continue-on-error`, whose deletes run although the adopting create failed).
      if (stage === "recorded" || ((stage === "declared" || stage === "adopting") && adoptsItself(props, id))) {
        progressLog(
          `${resource} ${id} is not deleted: a resource of this deployment adopted it (adoptId), so the program still declares it. ` +
            "This is the old half of a replacement (pulumi up --replace, or a replace the engine made for deletedWith) or of a " +
            "rename: an adopted object is never replaced. To get a new one, remove adoptId and run pulumi up.",
        );
        return;
      }
      throw new ProviderError(
        `${resource} ${id} was not deleted: another resource of this up declares adoptId: "${id}", and its adoption ` +
          (stage === "failed" ? "failed" : "has not been recorded") +
          ", so deleting it would lose what the program still declares. This resource stays in the state; fix the adopting " +
          "resource's error and run pulumi up again (the adoption then records it, and this delete leaves it alone).",
      );
    };
  }
  return wrapped as P;
}

/**
 * Before an adoption, lets the rest of the deployment catch up (common/activity.ts): a resource that manages the
 * object may be diffed late (it waits for a resource still running: dependsOn, inputs; the SDK registers it only
 * then), and it then learns of the adoption only once recorded (audit: both held the VM, and removing the adopter
 * from the program deleted it). The wait counts against the create's one deadline (context.ts resourceDeadline).
 */
async function waitForTheDeployment(resource: string, adoptId: string, timeouts: { create?: string } | undefined): Promise<void> {
  const deadline = resourceDeadline(timeouts, "create");
  if (!deploymentActivity.isQuiet())
    progressLog(`adopting ${resource} ${adoptId}: waiting until this up's other operations have ended (a resource that manages it may be diffed late)`);
  // (not a tracked call yet: define.ts tracks the create)
  await deploymentActivity.waitForOthers(deadline, false);
  if (deadline.expired())
    throw new ProviderError(
      `adoptId: timed out after ${formatDuration(deadline.totalMs)} (timeouts.create) waiting for this up's other operations to ` +
        `end before adopting ${resource} ${adoptId}, which an adoption does first so that a resource already managing it is ` +
        `known. Nothing was changed. Raise timeouts.create (e.g. timeouts: { create: "30m" }).`,
    );
}
