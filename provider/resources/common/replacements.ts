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
export class ReplacementsInProgress {
  private readonly oldIds = new Map<string, Set<string>>();

  /** Diff reported that the object `oldId` is replaced by one with identity `key`. */
  note(key: string, oldId: string): void {
    if (!oldId) return;
    const ids = this.oldIds.get(key) ?? new Set<string>();
    ids.add(oldId.toLowerCase());
    this.oldIds.set(key, ids);
  }

  /** True when `id` is the old object of a replacement to identity `key`. */
  isBeingReplaced(key: string, id: string): boolean {
    return this.oldIds.get(key)?.has(id.toLowerCase()) ?? false;
  }

  /** Forgets everything (tests that simulate a new provider process). */
  clear(): void {
    this.oldIds.clear();
  }
}

/** The process-wide record, shared by every resource provider. */
export const replacementsInProgress = new ReplacementsInProgress();
