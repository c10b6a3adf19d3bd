/**
 * BlockStorageAttachment diff decisions. Pure.
 *
 * - blockStorageId, instanceId: replace, DELETE FIRST. A block storage is attached to one instance at a
 *   time: moving a disk to another instance must detach it before attaching it again.
 * - timeouts, adoptId: recorded in place with no write (update only reads the attachment back), as in every
 *   resource: adoptId steers create only, but the state keeps what the program says.
 */
import { isUnknown } from "../common/check";
import type { ResourceDiff } from "../common/replace-on-changes";
import type { BlockStorageAttachmentInputs, BlockStorageAttachmentOutputs } from "./inputs";

/** Decides what changing an attachment from `olds` (state outputs) to `news` (checked inputs) means. */
export function diffBlockStorageAttachment(
  olds: BlockStorageAttachmentOutputs,
  news: BlockStorageAttachmentInputs,
): ResourceDiff {
  const replaces: string[] = [];
  if (isUnknown(news.blockStorageId) || news.blockStorageId !== olds.blockStorageId) replaces.push("blockStorageId");
  if (isUnknown(news.instanceId) || news.instanceId !== olds.instanceId) replaces.push("instanceId");
  const recorded = (["timeouts", "adoptId"] as const).filter((k) => JSON.stringify(news[k] ?? null) !== JSON.stringify(olds[k] ?? null));
  // changedKeys: every property that differs, for replaceOnChanges
  const changedKeys = [...replaces, ...recorded];
  if (replaces.length > 0) return { changes: true, replaces, deleteBeforeReplace: true, changedKeys };
  return { changes: recorded.length > 0, replaces: [], changedKeys };
}
