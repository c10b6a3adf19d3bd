/**
 * Diff of a Snapshot: pure. A snapshot cannot be changed (the API has no call that renames or edits one), so a
 * change of `instanceId`, `name` or `description` in the PROGRAM replaces it; `adoptId` and `timeouts` only steer
 * the provider and change without an API call.
 *
 * A name or description changed in the PANEL never replaces it: that would take a new snapshot of the disk as it
 * is now and delete this restore point, and an unattended `pulumi up --refresh` (examples/ci, on every merge)
 * would do it without anyone asking (audit F2). The diff gets the state's outputs and the program's inputs, never
 * the inputs of the last up, and after a refresh the outputs hold the panel's values; so the outputs also carry
 * what the program declared (`declaredName`, `declaredDescription`: set by create and update, kept by read), and a
 * change made in the panel is refused by `update` (see diffSnapshot).
 */
import { isUnknown } from "../common/check";
import type { ResourceDiff } from "../common/replace-on-changes";
import type { SnapshotInputs, SnapshotOutputs } from "./inputs";
import { snapshotProgress } from "./model";

/** Properties whose change in the program takes a new snapshot (and deletes the old one). */
export const SNAPSHOT_REPLACE_PROPERTIES = ["instanceId", "name", "description"] as const;
/** Properties that change without any API call (recorded by `update`). */
export const SNAPSHOT_LOCAL_PROPERTIES = ["adoptId", "timeouts"] as const;
/** The properties the panel can change, and the outputs that keep what the program declared for them. */
export const SNAPSHOT_DECLARED = { name: "declaredName", description: "declaredDescription" } as const;
type Labelled = keyof typeof SNAPSHOT_DECLARED;

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/** A property the program declares one way while the snapshot has another, and the program did not change it. */
interface PanelChange {
  key: Labelled;
  /** What the snapshot has (the panel's value, as the last refresh read it). */
  has: unknown;
  /** What the program declares now. */
  declares: unknown;
  /** What the program declared when the snapshot was taken or last updated; undefined for a state without it. */
  declared: unknown;
}

/** How the program's inputs meet the state: what replaces, what only needs recording, what the panel changed. */
interface Comparison {
  failed: boolean;
  replaces: string[];
  recorded: string[];
  panelChanges: PanelChange[];
}

function compare(olds: Partial<SnapshotOutputs>, news: Partial<SnapshotInputs>, id: string | undefined, ignored: ReadonlySet<string>): Comparison {
  const differs = (key: keyof SnapshotInputs): boolean => isUnknown(news[key]) || !same(olds[key], news[key]);
  // (adoptId naming another snapshot, e.g. the one an interrupted create of the replacement made: that one is taken)
  const adoptsThis = typeof news.adoptId === "string" && (id === undefined || news.adoptId.toLowerCase() === id.toLowerCase());
  const failed = typeof olds.status === "string" && snapshotProgress(olds.status) === "failed" && !adoptsThis;
  const replaces: string[] = differs("instanceId") ? ["instanceId"] : [];
  const recorded: string[] = [];
  const panelChanges: PanelChange[] = [];
  for (const key of ["name", "description"] as const) {
    // Listed in ignoreChanges: the provider put the state's value (the panel's, after a refresh) where the program's
    // was (common/ignore-changes.ts), so what the program declares is not seen here. Nothing to compare, and nothing to
    // record: taking the panel's value for a new declaration made every panel rename drift (an update at
    // `preview --refresh --expect-no-changes`, also after `pulumi refresh`) until an up recorded it, and once the
    // option was removed again, the program's unchanged name looked like a rename in the program and replaced the
    // snapshot. The recorded declaration stays (see declarationsKept), so then the panel's change is refused as without it.
    if (ignored.has(key)) continue;
    const declared = olds[SNAPSHOT_DECLARED[key]];
    if (isUnknown(news[key])) replaces.push(key); // preview: the up decides once the value is known
    else if (same(olds[key], news[key])) {
      if (typeof declared === "string" && !same(declared, news[key])) recorded.push(key);
    } else if (failed || (typeof declared === "string" && same(olds[key], declared))) replaces.push(key);
    else panelChanges.push({ key, has: olds[key], declares: news[key], declared });
  }
  return { failed, replaces, recorded, panelChanges: failed ? [] : panelChanges };
}

/**
 * Compares the state (outputs of the last create/read) with the checked inputs. A value unknown during
 * preview counts as a change, and as a replacement when its property replaces. `changedKeys` names each
 * property that differs (for replaceOnChanges).
 *
 * `name` and `description`, compared with the snapshot's values and with the ones the program declared before:
 * - listed in ignoreChanges (`ignored`: common/ignore-changes.ts, ignoredInputs): never a change, and the recorded
 *   declaration is kept ({@link declarationsKept}): the program's value is not seen, only the state's;
 * - the program's value is the snapshot's: nothing to do; when the recorded declaration differs (the program now
 *   declares what was set in the panel), an update records it (no API call), so a later change in the panel is still
 *   told from one in the program;
 * - the snapshot still has what the program declared before, and the program declares something else: a change in
 *   the program, a replace (the documented ForceNew, shown by the preview);
 * - the snapshot has something else than was declared (changed in the panel), or the state does not record the
 *   declaration (written before it was recorded, so a change in the panel cannot be ruled out): a change, never a
 *   replace, whatever else differs, and no changedKeys (replaceOnChanges must not turn it into one); `update` refuses
 *   it before any API call ({@link snapshotUpdateRefusal}), naming the property, the snapshot's value and the ways
 *   out. Someone changed this restore point by hand: only a deliberate `--replace` deletes it.
 *
 * Why this diff does not fail itself: the engine also calls Diff to show what a refresh found (pulumi/pulumi
 * pkg/resource/deploy/step.go, RefreshStep.Apply: the refreshed outputs against the last up's inputs), and a failing
 * Diff fails the refresh, so the panel's name would never reach the state, and a plain `up` of a program that
 * declares it would then look like a rename in the program, and replace the snapshot. The provider's diff refuses
 * it (the refusal of {@link snapshotUpdateRefusal}) only when it is not that refresh's Diff (common/refresh-diffs.ts),
 * so the preview of a pull request fails as the up after the merge would.
 *
 * A snapshot in a failed status (its take failed: recorded with an init error, or seen so by a refresh) holds no
 * usable image and cannot be repaired in place: it is replaced (`status` in `replaces`), the new one taken
 * before the failed one is deleted, whatever its name. Without this the init error's forced update recorded it and
 * the up reported success with the snapshot in Error (soak, not-as-declared). Not an adopted one: its replacement
 * would adopt the same snapshot again and the engine would then delete it; update refuses that one instead.
 */
export function diffSnapshot(
  olds: Partial<SnapshotOutputs>, news: Partial<SnapshotInputs>, id?: string, ignored: ReadonlySet<string> = new Set(),
): ResourceDiff {
  const { failed, replaces, recorded, panelChanges } = compare(olds, news, id, ignored);
  if (panelChanges.length > 0) return { changes: true, replaces: [], deleteBeforeReplace: false, changedKeys: [] };
  const differs = (key: keyof SnapshotInputs): boolean => isUnknown(news[key]) || !same(olds[key], news[key]);
  const changedKeys = [...replaces, ...recorded, ...SNAPSHOT_LOCAL_PROPERTIES.filter(differs)];
  if (failed) replaces.push("status");
  return { changes: changedKeys.length > 0 || replaces.length > 0, replaces, deleteBeforeReplace: false, changedKeys };
}

/**
 * The declarations an update keeps from the state: those of the properties listed in ignoreChanges, whose value in the
 * inputs is the state's, not the program's (see compare). Spread over `declaring(news)`; none recorded stays none.
 */
export function declarationsKept(olds: Partial<SnapshotOutputs>, ignored: ReadonlySet<string>): Partial<Pick<SnapshotOutputs, "declaredName" | "declaredDescription">> {
  const kept: Partial<Pick<SnapshotOutputs, "declaredName" | "declaredDescription">> = {};
  for (const key of ["name", "description"] as const) if (ignored.has(key)) kept[SNAPSHOT_DECLARED[key]] = olds[SNAPSHOT_DECLARED[key]];
  return kept;
}

/**
 * Why `update` must not run, or undefined: a name or description that differs from the snapshot's was changed in the
 * panel (or the state cannot tell), see {@link diffSnapshot}. Checked before any API call.
 */
export function snapshotUpdateRefusal(
  id: string, olds: Partial<SnapshotOutputs>, news: Partial<SnapshotInputs>, ignored: ReadonlySet<string> = new Set(),
): string | undefined {
  const { panelChanges } = compare(olds, news, id, ignored);
  return panelChanges.length > 0 ? panelChangeRefusal(id, olds, panelChanges, same(olds.name, news.name)) : undefined;
}

/**
 * Why the snapshot is not replaced: its name or description was changed outside Pulumi; what to do instead.
 * `keepsName`: the program declares the snapshot's present name, so a `--replace` would meet it (snapshot/provider.ts).
 */
export function panelChangeRefusal(
  id: string | undefined,
  olds: Partial<SnapshotOutputs>,
  changes: readonly PanelChange[],
  keepsName: boolean,
): string {
  const what = id ? `snapshot ${id}` : "the snapshot";
  const parts = changes.map((c) => {
    const program = c.declared === undefined || same(c.declared, c.declares)
      ? `the program declares ${JSON.stringify(c.declares)}`
      : `the program now declares ${JSON.stringify(c.declares)} (at its last up: ${JSON.stringify(c.declared)})`;
    return `its ${c.key} is ${JSON.stringify(c.has)} and ${program}`;
  });
  const unrecorded = changes.some((c) => c.declared === undefined);
  const cause = unrecorded
    ? "The state was written by an earlier version of pulumi-vmhost and does not record what the program declared, so a change made outside Pulumi (in the panel) cannot be ruled out."
    : "It was changed outside Pulumi (in the panel).";
  const declareThese = changes.map((c) => `${c.key}: ${JSON.stringify(c.has)}`).join(", ");
  return (
    `${what} of instance ${olds.instanceId ?? "?"}: ${parts.join(", and ")}. ${cause} A snapshot cannot be renamed or edited, so ` +
    "making it as declared would take a new snapshot of the disk as it is now and delete this one, a restore point: refused, nothing " +
    `was changed. To keep it, declare ${declareThese} (nothing is sent to the API), or list ${changes.map((c) => JSON.stringify(c.key)).join(", ")} ` +
    "in the resource option ignoreChanges to accept such changes from the panel. To take a new snapshot deliberately and delete this " +
    "one, run `pulumi up --replace <urn of this Snapshot>`" +
    (keepsName ? " (keeping the name takes the resource option deleteBeforeReplace: true for that run)." : ".")
  );
}
