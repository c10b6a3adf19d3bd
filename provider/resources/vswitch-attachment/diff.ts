/**
 * VswitchAttachment diff decisions. Pure.
 *
 * - instanceId, vswitchId: replace, DELETE FIRST. An instance is on one private network at a time, and
 *   create refuses an instance that is on another network (it may belong to someone else), so the old
 *   attachment must be detached before the new one attaches.
 * - timeouts, adoptId: recorded in place with no write (update only reads the attachment back), as in every
 *   resource: adoptId steers create only, but the state keeps what the program says.
 */
import { isUnknown } from "../common/check";
import type { ResourceDiff } from "../common/replace-on-changes";
import type { VswitchAttachmentInputs, VswitchAttachmentOutputs } from "./inputs";

/** Decides what changing a VswitchAttachment from `olds` (state outputs) to `news` (checked inputs) means. */
export function diffVswitchAttachment(olds: VswitchAttachmentOutputs, news: VswitchAttachmentInputs): ResourceDiff {
  const replaces: string[] = [];
  if (isUnknown(news.instanceId) || news.instanceId !== olds.instanceId) replaces.push("instanceId");
  if (isUnknown(news.vswitchId) || news.vswitchId !== olds.vswitchId) replaces.push("vswitchId");
  const recorded = (["timeouts", "adoptId"] as const).filter((k) => JSON.stringify(news[k] ?? null) !== JSON.stringify(olds[k] ?? null));
  // changedKeys: every property that differs, for replaceOnChanges
  const changedKeys = [...replaces, ...recorded];
  if (replaces.length > 0) return { changes: true, replaces, deleteBeforeReplace: true, changedKeys };
  return { changes: recorded.length > 0, replaces: [], changedKeys };
}
