/**
 * PublicIp diff decisions. Pure.
 *
 * - instanceId: replace (an address of another instance is another resource). Also for an adopted address while
 *   the instanceId is unknown (replacesWhileUnknown): in an up that is the engine asking whether the PublicIp must
 *   go before a resource it depends on is replaced delete-before-replace (its VM, or one its instanceId is computed
 *   from). "Replace" makes the engine delete the PublicIp first, which takes the address off and leaves it in the
 *   account; "no" let the VM's delete release the user's adopted address (audit). The PublicIp's re-create, if the
 *   program still declares it, puts that address on its VM (provider.ts, adoptedOffReplacedVm). An up with a known
 *   other instanceId (create-before-delete) is refused at Diff, as for every adopted object (provider.ts).
 * - publicNetworkId: when set and different from the address the resource holds, replace. The id IS the
 *   address uuid, and Pulumi cannot change a resource's id in an update, so a different address is a new
 *   resource. Create-before-delete is safe here: the new resource's changePublicIp swaps the address in one
 *   call, and the old resource's delete only blanks the address if the instance still holds IT.
 *   Setting publicNetworkId to the address the instance already holds (pinning it) is no replacement.
 * - A replacement that assigns the SAME pinned address the state holds (instanceId changed, publicNetworkId kept;
 *   or a replaceOnChanges replace) asks for deleteBeforeReplace: a reserved address is on one VM at a time, and
 *   create-before-delete made the new resource's create ask for the address while the old resource still held it
 *   on its VM; the API refused ("already assigned to another instance") at every up when that VM stays (audit).
 *   The old resource's delete takes the address off its VM (it stays reserved), then the new one's create assigns
 *   it. The engine honours a provider's DeleteBeforeReplace unless the resource option sets it (pulumi/pulumi
 *   pkg/resource/deploy/step_generator.go: `deleteBeforeReplace := diff.DeleteBeforeReplace`, overridden by
 *   goal.DeleteBeforeReplace), and the Node dynamic-provider host forwards it from diff's result
 *   (sdk/nodejs/cmd/dynamic-provider/index.ts, diff: `resp.setDeletebeforereplace(result.deleteBeforeReplace)`).
 *   With the option `deleteBeforeReplace: false` the create says so (provider.ts, create), except when the old
 *   VM is being replaced too: create then takes the address off that VM first (common/pinned-address.ts).
 *   Unset = "any address": never a change.
 * - rdns: in place (updateRdns). Unset = not managed: never a change, and never cleared.
 * - detached (refresh found the address off the instance): in place, the update assigns it back.
 * - timeouts, adoptId: recorded in place with no write (update only reads the address back), as in every
 *   resource: adoptId steers create only, but the state keeps what the program says.
 */
import { isUnknown } from "../common/check";
import type { ResourceDiff } from "../common/replace-on-changes";
import type { PublicIpInputs, PublicIpOutputs } from "./inputs";

/** One step of an in-place PublicIp update, in the order they run. */
export type PublicIpUpdateStep = { kind: "rdns"; rdns: string };

function differs(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) !== JSON.stringify(b ?? null);
}

/** Decides what changing a PublicIp from `olds` (state outputs) to `news` (checked inputs) means. */
export function diffPublicIp(olds: PublicIpOutputs, news: PublicIpInputs): ResourceDiff {
  const replaces: string[] = [];
  const changed: string[] = [];
  if (isUnknown(news.instanceId) || news.instanceId !== olds.instanceId) replaces.push("instanceId");
  if (news.publicNetworkId !== undefined) {
    if (isUnknown(news.publicNetworkId)) replaces.push("publicNetworkId");
    else if (news.publicNetworkId !== olds.publicIpId) replaces.push("publicNetworkId");
    else if (news.publicNetworkId !== olds.publicNetworkId) changed.push("publicNetworkId");
  } else if (olds.publicNetworkId !== undefined) {
    // no longer pinned to that address: keep the address, only the record changes
    changed.push("publicNetworkId");
  }
  if (news.rdns !== undefined && (isUnknown(news.rdns) || news.rdns !== olds.rdns)) changed.push("rdns");
  if (differs(news.timeouts, olds.timeouts)) changed.push("timeouts");
  if (differs(news.adoptId, olds.adoptId)) changed.push("adoptId");
  // changedKeys: every property that differs, for replaceOnChanges
  const changedKeys = [...replaces, ...changed];
  // (also on a diff without replaces: a replace replaceOnChanges adds keeps it, common/replace-on-changes.ts)
  const deleteBeforeReplace = keepsPinnedAddress(olds, news);
  if (replaces.length > 0) return { changes: true, replaces, deleteBeforeReplace, changedKeys, replacesWhileUnknown: ["instanceId"] };
  // (not an input: no changed key, so replaceOnChanges never turns assigning it back into a replacement)
  return { changes: changed.length > 0 || olds.detached === true, replaces: [], ...(deleteBeforeReplace ? { deleteBeforeReplace } : {}), changedKeys };
}

/**
 * True when a replacement of `olds` by `news` would assign the very address the state holds: `news` pins it
 * (publicNetworkId, known) and it is the state's id. Then the old resource must go first (see the module comment).
 */
export function keepsPinnedAddress(olds: PublicIpOutputs, news: PublicIpInputs): boolean {
  const pinned = news.publicNetworkId;
  return typeof pinned === "string" && !isUnknown(pinned) && typeof olds.publicIpId === "string" && pinned.toLowerCase() === olds.publicIpId.toLowerCase();
}

/** The API steps of an in-place update (only rdns has one). */
export function planPublicIpUpdate(olds: PublicIpOutputs, news: PublicIpInputs): PublicIpUpdateStep[] {
  if (news.rdns !== undefined && news.rdns !== olds.rdns) return [{ kind: "rdns", rdns: news.rdns }];
  return [];
}
