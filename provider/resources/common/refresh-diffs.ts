/**
 * Which Diff calls only show what a refresh found, and which plan the changes of a preview or an up.
 *
 * The engine calls Diff in both cases with the same arguments: a refresh reads the object and then diffs the
 * refreshed outputs against the inputs of the last up (pulumi/pulumi pkg/resource/deploy/step.go,
 * RefreshStep.Apply: `prov.Read`, then `diffResource` with the refreshed ID), and a preview or up checks the
 * program's inputs and diffs the state's outputs against them (pkg/resource/deploy/step_generator.go,
 * continueStepsFromImport: `prov.Check`, then `sg.diff` -> `diffResource`); with an unchanged program the inputs
 * are the same. A Diff that refuses (a disk the program declares smaller than the VM's, a snapshot renamed in the
 * panel) must fail the preview, but never the refresh: a failing refresh Diff fails `pulumi refresh`, and the
 * drift it should record never reaches the state.
 *
 * What tells them apart: a refresh Diff always comes right after a Read of the same id that found the object (one
 * Read, one Diff, per resource: an attachment's id is shared by two resources only as a mistake, so reads are
 * counted), while the Diff of a preview or up comes after a Check, never right after a Read of its own (a refresh
 * of the same deployment, `up --refresh`, reads and diffs the resource before its Check). So a Diff of an id with
 * a Read not yet answered by a Diff is the refresh's. A Read with no Diff after it (the engine's legacy refresh
 * diff, `PULUMI_ENABLE_LEGACY_REFRESH_DIFF`, or a resource read with `get`) leaves the next Diff lenient: the update
 * then refuses before any write, as it did before this check moved to Diff.
 */

/** Reads that found the object, per id (lower case), not yet followed by their Diff. */
const readsAwaitingDiff = new Map<string, number>();

/** Called when a Read found object `id` (the id the Read answered: the refresh diffs under it). */
export function noteRefreshRead(id: string | undefined): void {
  if (!id) return;
  const key = id.toLowerCase();
  readsAwaitingDiff.set(key, (readsAwaitingDiff.get(key) ?? 0) + 1);
}

/**
 * True when this Diff of `id` is the one that follows a Read (a refresh's: it only shows drift), false when it
 * plans a preview or up. Call once per Diff: it answers for that Read.
 */
export function isRefreshDiff(id: string): boolean {
  const key = id.toLowerCase();
  const waiting = readsAwaitingDiff.get(key) ?? 0;
  if (waiting === 0) return false;
  if (waiting === 1) readsAwaitingDiff.delete(key);
  else readsAwaitingDiff.set(key, waiting - 1);
  return true;
}

/** True when the next Diff of `id` is a refresh's (see {@link isRefreshDiff}), without answering for its Read. */
export function refreshDiffComes(id: string): boolean {
  return (readsAwaitingDiff.get(id.toLowerCase()) ?? 0) > 0;
}

/** Forgets the reads noted (see forgetDeployment in provider/registry.ts). */
export function forgetRefreshReads(): void {
  readsAwaitingDiff.clear();
}
