/**
 * Attachments whose id is fixed by what they join are never undone by the deployment that made or took them.
 *
 * A BlockStorageAttachment's id is the disk's uuid and a VswitchAttachment's is `<instance uuid>/<vswitch uuid>`:
 * a second create of the same attachment finds it in place ("attached here: nothing to do") and answers the SAME
 * id. The engine makes exactly that second create without asking the provider's Diff in two cases:
 * - `pulumi up --replace <urn>`: diff() answers "replace, blame the id" itself (pulumi/pulumi
 *   pkg/resource/deploy/step_generator.go, diff() and isTargetedReplace) and replaces create-before-delete unless
 *   the resource option deleteBeforeReplace is set; the old resource is deleted after the new one is created;
 * - a resource renamed without an alias: the new name is created, the old one deleted at the end of the up
 *   (step_generator.go, GenerateDeletes).
 * The delete of the "old" resource then came with the very id the create had just answered, and detached the disk
 * (took the VM off the network) that the program still declares: the up reported success, the next refresh drift.
 *
 * So a create of such a resource notes the id it answered (or recorded with an initialization failure), and a delete
 * of a noted id in the same provider process leaves the object alone, saying why. One process serves one deployment
 * (the dynamic-provider host), so `pulumi destroy`, or an up after the resource left the program, still deletes.
 * Where the engine deletes first (deleteBeforeReplace, and every replace these resources' own Diff asks for:
 * changing instanceId, blockStorageId or vswitchId), the delete runs before the create has noted anything.
 * The same rule as for adopted objects (adoptions.ts), for objects whose identity the resource does not choose.
 */
import type * as pulumi from "@pulumi/pulumi";
import { progressLog } from "../../context";
import { notingCreatedId } from "./errors";

/** `<resource>:<id>` (id lower-cased) of every attachment a create of this deployment made or took. */
const madeOrTakenHere = new Set<string>();

const keyOf = (resource: string, id: string): string => `${resource}:${id.toLowerCase()}`;

/** True when a create of `resource` in this deployment made or took the object `id` (see the module comment). */
export function isMadeOrTakenHere(resource: string, id: string): boolean {
  return madeOrTakenHere.has(keyOf(resource, id));
}

/** Forgets what was noted (see forgetDeployment in provider/registry.ts: a harness serving several runs from one process). */
export function forgetFixedIds(): void {
  madeOrTakenHere.clear();
}

/**
 * Wraps create and delete of `resource`'s provider as described in the module comment. Only for resources whose id
 * a second create of the same declaration answers again (fixed ids); a resource whose creates make new objects
 * never answers an id twice, so it gains nothing from this. `fixedBy` says what fixes the id, for the log line.
 *
 * Also the PublicIp: pinned to a reserved address (publicNetworkId, or a detached one it assigns back), its id is
 * that address, and a second create finds it on the VM and answers it again; the old half's delete then took the
 * address off the VM the program still declares it on (audit: `up --replace` of a pinned PublicIp reported success,
 * the next refresh showed it detached). Its unpinned creates add a new address each time, never an id answered
 * before: `isFixed` notes only the creates whose inputs fix the id.
 */
export function withFixedIdsKept<P extends pulumi.dynamic.ResourceProvider>(
  resource: string, provider: P, fixedBy = "what it joins", isFixed: (inputs: Record<string, unknown>) => boolean = () => true,
): P {
  const note = (id: string | undefined): void => {
    if (id) madeOrTakenHere.add(keyOf(resource, id));
  };
  const wrapped: pulumi.dynamic.ResourceProvider = {
    ...provider,
    create: (inputs) =>
      isFixed((inputs ?? {}) as Record<string, unknown>) ? notingCreatedId(() => provider.create(inputs), note) : provider.create(inputs),
  };
  const remove = provider.delete?.bind(provider);
  if (remove) {
    wrapped.delete = async (id, props) => {
      if (isMadeOrTakenHere(resource, id)) {
        progressLog(
          `${resource} ${id} is left in place: this deployment's create of the same ${resource} answered this id, so the program still ` +
            "declares it. This is the old half of a replacement the engine made without asking the provider (pulumi up --replace, " +
            `or a replace for deletedWith) or of a rename without an alias; its id is fixed by ${fixedBy}, so old and new are one object.`,
        );
        return;
      }
      return remove(id, props);
    };
  }
  return wrapped as P;
}
