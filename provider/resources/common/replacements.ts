/**
 * Which existing objects the engine is replacing in this deployment, as seen by this provider process.
 *
 * A create guards against making a twin of an object it does not know (an instance with the same hostname
 * in the same location, left by an interrupted `up` or an unfinished reconciliation). A create-before-delete
 * replacement is the one legitimate twin: the old VM keeps its hostname until it is deleted after the new
 * one exists. The provider's create sees only the inputs, but the engine always calls Diff (which reports
 * the replace, with the old id) before the replacement's Create in the same provider process
 * (pulumi/pulumi pkg/resource/deploy/step_generator.go: generateSteps → diff → replace steps; the
 * dynamic-provider host serves one process per deployment), so Diff notes the old id here and Create
 * lets exactly that one stand beside the new one.
 */
class IdsByIdentity {
  private readonly ids = new Map<string, Set<string>>();

  /** `id` is one of the objects noted under identity `key`. */
  note(key: string, id: string): void {
    if (!id) return;
    const ids = this.ids.get(key) ?? new Set<string>();
    ids.add(id.toLowerCase());
    this.ids.set(key, ids);
  }

  /** True when `id` was noted under identity `key`. */
  has(key: string, id: string): boolean {
    return this.ids.get(key)?.has(id.toLowerCase()) ?? false;
  }

  /** The ids noted under identity `key`. */
  idsOf(key: string): string[] {
    return [...(this.ids.get(key) ?? [])];
  }

  /** Every id noted under an identity that starts with `prefix` (e.g. "Instance:": the VMs being replaced). */
  idsUnder(prefix: string): string[] {
    return [...this.ids].filter(([key]) => key.startsWith(prefix)).flatMap(([, ids]) => [...ids]);
  }

  /** Forgets that `id` was noted under identity `key`. */
  forget(key: string, id: string): void {
    this.ids.get(key)?.delete(id.toLowerCase());
  }

  /** Forgets everything (tests that simulate a new provider process). */
  clear(): void {
    this.ids.clear();
  }
}

/** An instance's identity (no two VMs of ours share one): its hostname in its location. */
export const instanceIdentity = (hostname: string, locationId: number): string => `Instance:${locationId}/${hostname}`;

/** Old objects of replacements: Diff notes the old id under the new object's identity. */
export class ReplacementsInProgress extends IdsByIdentity {
  /** True when `id` is the old object of a replacement to identity `key`. */
  isBeingReplaced(key: string, id: string): boolean {
    return this.has(key, id);
  }
}

/** The process-wide record, shared by every resource provider. */
export const replacementsInProgress = new ReplacementsInProgress();

/**
 * The part of {@link replacementsInProgress} that a Diff of this deployment reported as a replace (not only carried
 * in a state as an Instance's `replacing`, which names its old VM for good, also one that outlived it:
 * retainOnDelete). What is taken from an old object (a disk moved to the replacement) is taken only from these.
 */
export const replacedByThisDeployment = new IdsByIdentity();

/**
 * Objects that belong to resources of this stack, as this provider process has seen them: each object the
 * engine diffed (it diffs every resource of the state the program still declares, with its id) and each one
 * created here. A create that finds one of them under its identity meets a clash inside the stack (two
 * resources declaring one hostname), not a leftover of an interrupted run, so its error must not advise adopting
 * it: two resources would own one object, and deleting either would delete the other's.
 */
export const objectsOfThisStack = new IdsByIdentity();

/**
 * Objects of this stack that leave their identity in this deployment: Diff planned a rename (a VM's hostname
 * change), and it has not failed. A create of that hostname waits until the rename has freed the name (a program
 * renaming web-1 to web-old and declaring a new web-1 is valid; the engine runs both at once), instead of being
 * refused as a clash; a rename that fails is forgotten here, and the waiting create is then refused.
 */
export const leavingIdentity = new IdsByIdentity();

/**
 * VMs a create of this deployment let stand beside it under its identity because a replacement replaces them: the one
 * its own replacement replaces, and older ones an earlier replacement of the same resource replaced in an up that failed
 * before the engine's deletes (they wait, pending delete, for the end of an up without errors: pulumi/pulumi
 * pkg/resource/deploy/step_generator.go GenerateDeletes). The replacement records the older ones still standing
 * (`replacingEarlier`), so the next up's Diff notes them again (before, a third replacement met the first old VM as a
 * stranger, and every up was refused: the family of soak stop17c-466).
 */
export const standingBesideCreate = new IdsByIdentity();

/**
 * Objects this deployment replaces under a new identity (an Instance renamed with a replace-forcing change), noted
 * under their OLD identity: the old object keeps it until the engine deletes it at the end of the up, so a create of
 * that identity may stand beside it. Apart from {@link replacementsInProgress}, which names what each replacement
 * replaces (an Instance's `replacing` output): a new Instance taking the old name replaces nothing.
 */
export const replacedUnderOldIdentity = new IdsByIdentity();

/**
 * The instances this provider process created or cloned (one process serves one deployment). Whatever is on
 * them that no resource made here (a clone's copied firewall rules) belongs to no resource of any state.
 */
export const instancesMadeHere = new Set<string>();

/**
 * Ids of the objects resources of this stack hold, as this provider process has seen them (one process serves one
 * deployment): every id the engine diffed, read or updated, and every one created or recorded here. The look for
 * what an ambiguous create made (reconcile.ts), and the resolution of a create recorded as unconfirmed
 * (unconfirmed.ts), never take one of them: an object that appeared under the identity but is held by another
 * resource (a VM renamed into the hostname by this up, an identical rule another resource just made) is not the
 * one the write made. Best effort: a resource the engine has not reached yet (a refresh reads in parallel) is
 * not known here, which is why the Instance also compares what it asked for (its fingerprint).
 */
export const claimedByStack = new Set<string>();

/**
 * Per VM (lowercase uuid): the address a PublicIp of this stack made for it (not the user's: no publicNetworkId, no
 * adoptId) that its state records taken off the VM (`detached`: a refresh saw it taken off in the panel), as the
 * engine's Diffs of this deployment showed it. The address the VM holds instead is not the stack's, so a delete of that
 * VM that releases its address assigns this one back first (soak stop15c-139: a VM replaced delete-before-replace,
 * its PublicIp deletedWith it, released the user's reserved address swapped in in the panel, and the PublicIp's own
 * stayed reserved in no state). "" once that address went to the PublicIp's replacement: the VM's is still not ours.
 */
export const detachedStackAddressOfVm = new Map<string, string>();

/** Notes `id` (not a placeholder of an unconfirmed create) in {@link claimedByStack}. */
export function noteClaimed(id: string | undefined): void {
  if (id && !id.startsWith("unconfirmed-")) claimedByStack.add(id.toLowerCase());
}
