/**
 * Diff of a Snapshot: pure. A snapshot cannot be changed, so every property the API stores replaces it;
 * `adoptId` and `timeouts` only steer the provider and change without an API call.
 */
import { isUnknown } from "../common/check";
import type { ResourceDiff } from "../common/replace-on-changes";
import type { SnapshotInputs, SnapshotOutputs } from "./inputs";
import { snapshotProgress } from "./model";

/** Properties whose change takes a new snapshot (and deletes the old one). */
export const SNAPSHOT_REPLACE_PROPERTIES = ["instanceId", "name", "description"] as const;
/** Properties that change without any API call (recorded by `update`). */
export const SNAPSHOT_LOCAL_PROPERTIES = ["adoptId", "timeouts"] as const;

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/**
 * Compares the state (outputs of the last create/read) with the checked inputs. A value unknown during
 * preview counts as a change, and as a replacement when its property replaces. `changedKeys` names each
 * property that differs (for replaceOnChanges).
 *
 * A snapshot in a failed status (its take failed: recorded with an init error, or seen so by a refresh) holds no
 * usable image and cannot be repaired in place: it is replaced (`status` in `replaces`), the new one taken
 * before the failed one is deleted. Without this the init error's forced update recorded it and the up
 * reported success with the snapshot in Error (soak, not-as-declared). Not an adopted one: its replacement
 * would adopt the same snapshot again and the engine would then delete it; update refuses that one instead.
 */
export function diffSnapshot(olds: Partial<SnapshotOutputs>, news: Partial<SnapshotInputs>, id?: string): ResourceDiff {
  const differs = (key: keyof SnapshotInputs): boolean => isUnknown(news[key]) || !same(olds[key], news[key]);
  const replaces: string[] = SNAPSHOT_REPLACE_PROPERTIES.filter(differs);
  const changedKeys = [...replaces, ...SNAPSHOT_LOCAL_PROPERTIES.filter(differs)];
  // (adoptId naming another snapshot, e.g. the one an interrupted create of the replacement made: that one is taken)
  const adoptsThis = typeof news.adoptId === "string" && (id === undefined || news.adoptId.toLowerCase() === id.toLowerCase());
  if (typeof olds.status === "string" && snapshotProgress(olds.status) === "failed" && !adoptsThis) replaces.push("status");
  return { changes: changedKeys.length > 0 || replaces.length > 0, replaces, deleteBeforeReplace: false, changedKeys };
}
