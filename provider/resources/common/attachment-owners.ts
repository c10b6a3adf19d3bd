/**
 * One attachment, one owner: a disk attachment or a network membership is declared by exactly one resource of the
 * stack.
 *
 * A BlockStorageAttachment's or VswitchAttachment's create finds the attachment already in place when an earlier up
 * was interrupted right after the attach (its state was never written), and then records it without a write, so a
 * retried up needs no hand adoption. The same path also took an attachment that ANOTHER resource of the stack
 * declares (a second BlockStorageAttachment of the same disk on the same VM, a VswitchAttachment on a VM whose
 * Instance declares `vswitchId`): each "created" with no write, and removing either from the program later detached
 * what the other still declared, the up reporting success and the next refresh drift (audit F1).
 *
 * Who holds what, per deployment (one provider process serves one deployment: the dynamic-provider host):
 * - a resource of the state that the program still declares with the same attachment: noted at its Check (with
 *   olds), confirmed by its Diff when that does not replace it (pulumi/pulumi pkg/resource/deploy/step_generator.go);
 * - a create of this deployment, from its start (synchronously, so two creates running at once are told apart);
 * - for VswitchAttachments, an Instance that declares `vswitchId` (noted at its Diff or create, which always come
 *   before the Diff or create of an attachment that takes `instanceId` from it). One whose state declared it and the
 *   program no longer does leaves the VM on the network: a VswitchAttachment created in the same up takes it over,
 *   and its log names that Instance.
 * A create meeting another holder is refused before any write; a Diff after a create that took the attachment in
 * this up is refused too, as a backstop. A delete (of a resource the program no longer declares: the engine runs
 * those after every Check and Diff of the up) leaves an attachment another holder still declares. Two resources of
 * the state holding one attachment (left by an earlier version) cannot be told apart (same id, same inputs): not
 * refused, but removing either leaves the attachment to the other.
 *
 * Not a holder: a resource whose Diff replaces it (its replacement, created before the old one is deleted when
 * `deleteBeforeReplace` is not set, may take the attachment in place: common/fixed-ids.ts keeps the old half's delete
 * from undoing it), and any resource the engine replaces without asking Diff (`pulumi up --replace`, deletedWith,
 * replaceWith: diff() answers those itself and Check gets no olds), whose replacement likewise takes the attachment.
 * Best effort: `--target`/`--exclude` skip the Diffs of what they leave out, and a resource diffed after a create
 * that took over is refused only then (the take-over first waits for the rest of the deployment: see
 * {@link beforeTakingOver}).
 */
import type * as pulumi from "@pulumi/pulumi";
import { progressLog } from "../../context";
import type { Deadline } from "../../wait/poll";
import { deploymentActivity } from "./activity";
import { isUnknown } from "./check";
import { notingCreatedId, ProviderError } from "./errors";
import { refreshDiffComes } from "./refresh-diffs";

/** What one attachment is: `key` (resource + what it joins, lower case), and its words for messages. */
export interface AttachmentKey {
  readonly key: string;
  /** e.g. `block storage <uuid> on instance <uuid>` */
  readonly what: string;
  /** The inputs that name it, e.g. `blockStorageId and instanceId`. */
  readonly fields: string;
  /** The input a check failure names (the one told apart from the instance's other attachments). */
  readonly property: string;
}

/**
 * Attachments that resources of the state hold, as the program still declares them: noted at Check (the engine
 * checks, with the state's inputs as olds, every resource of the state that the program registers: pulumi/pulumi
 * pkg/resource/deploy/step_generator.go) when the program declares the same attachment, then `diffed` once their
 * Diff kept it (a Diff that replaces drops the note). Not at Diff alone: a refresh diffs every resource of the
 * state, also one the program no longer declares (step.go, RefreshStep.Apply), and two attachments of one
 * disk have one id, so a second Diff cannot be told from the same resource's refresh Diff.
 */
const heldByState = new Map<string, { diffed: boolean; id?: string }>();

/** Attachments a create of this deployment is making (`creating`) or made or recorded (`made`). */
const createdHere = new Map<string, { stage: "creating" | "made" }>();

/** Attachments whose own resource a Diff of this deployment replaces under the same key (see the module comment). */
const replacedHere = new Set<string>();

/**
 * Attachments that the Check of a resource without olds declared in this deployment: a new resource, or the replacement
 * of one (the engine checks it again, without olds, once its Diff replaced it; `pulumi up --replace` checks it only so:
 * pkg/resource/deploy/step_generator.go, continueStepsFromImport and continueStepsFromDiff). Each resource checks so at
 * most once per deployment, so a second such Check of one attachment is a second resource declaring it.
 */
const checkedWithoutOlds = new Set<string>();

/** instance uuid (lower case) -> the networks (lower case) VswitchAttachments of this deployment declare at Check. */
const networksAtCheck = new Map<string, Set<string>>();

/** instance uuid (lower case) -> the `vswitchId` its Instance declares in this deployment (null: none). */
const instanceNetworks = new Map<string, string | null>();

/**
 * VswitchAttachment keys of the networks an Instance of this stack declared (`vswitchId`): in its state (the olds of
 * its Diff), or in this deployment (its Diff's news, its create). A network moved from an Instance's `vswitchId` to a
 * VswitchAttachment in one up is still joined when the attachment is created (the Instance no longer manages it and
 * leaves it): the take-over log then names that Instance, not an interrupted up.
 */
const declaredByInstance = new Map<string, "state" | "this up">();

/** Forgets what was noted (see forgetDeployment in provider/registry.ts). */
export function forgetAttachmentOwners(): void {
  heldByState.clear();
  createdHere.clear();
  replacedHere.clear();
  instanceNetworks.clear();
  declaredByInstance.clear();
  checkedWithoutOlds.clear();
  networksAtCheck.clear();
}

const known = (v: unknown): v is string => typeof v === "string" && v !== "" && !isUnknown(v);

/** A BlockStorageAttachment's key, from its inputs or outputs; undefined while either uuid is unknown. */
export function blockStorageAttachmentKey(bag: Record<string, unknown> | undefined): AttachmentKey | undefined {
  const disk = bag?.blockStorageId;
  const vm = bag?.instanceId;
  if (!known(disk) || !known(vm)) return undefined;
  return {
    key: `BlockStorageAttachment:${disk.toLowerCase()}@${vm.toLowerCase()}`,
    what: `block storage ${disk} on instance ${vm}`,
    fields: "blockStorageId and instanceId",
    property: "blockStorageId",
  };
}

/** A VswitchAttachment's key, from its inputs or outputs; undefined while either uuid is unknown. */
export function vswitchAttachmentKey(bag: Record<string, unknown> | undefined): AttachmentKey | undefined {
  const vm = bag?.instanceId;
  const vswitch = bag?.vswitchId;
  if (!known(vm) || !known(vswitch)) return undefined;
  return {
    key: `VswitchAttachment:${vm.toLowerCase()}/${vswitch.toLowerCase()}`,
    what: `instance ${vm} on private network ${vswitch}`,
    fields: "instanceId and vswitchId",
    property: "vswitchId",
  };
}

function twoOwners(resource: string, k: AttachmentKey, other: "state" | "created" | "checked", id?: string): string {
  const who =
    other === "state"
      ? `another ${resource} of this stack (id ${id ?? "?"}, already in the state)`
      : other === "checked"
      ? `another ${resource} of this program`
      : `another ${resource} of this stack, created in this up`;
  return (
    `${resource}: ${k.what} (${k.fields}) is already declared by ${who}. Two resources would own one attachment, and ` +
    `removing either from the program would undo it for the other too. Declare each attachment once: remove one of the two ` +
    `${resource}s from the program. Nothing was changed.`
  );
}

/**
 * At a VswitchAttachment's Check: for a new one (`isNew`: not the state's of the same membership, whose Diff refuses
 * it), the VM's Instance declares `vswitchId` (its Diff came first: the attachment takes `instanceId` from it); for any,
 * another VswitchAttachment of this deployment puts the same VM on another network (a VM is on one at a time: the
 * second one's create refuses, after the first one's join). Notes this one's network.
 */
function oneNetworkAtCheck(inputs: Record<string, unknown> | undefined, isNew: boolean): { property: string; reason: string } | undefined {
  const byInstance = isNew ? ownedByInstance(inputs) : undefined;
  if (byInstance) return { property: "vswitchId", reason: byInstance };
  const vm = String(inputs?.instanceId).toLowerCase();
  const network = String(inputs?.vswitchId).toLowerCase();
  const networks = networksAtCheck.get(vm) ?? new Set<string>();
  networksAtCheck.set(vm, networks);
  const other = [...networks].find((n) => n !== network);
  networks.add(network);
  if (!other) return undefined;
  return {
    property: "vswitchId",
    reason:
      `VswitchAttachment: another VswitchAttachment of this stack puts instance ${String(inputs?.instanceId)} on private network ${other}, ` +
      `and this one on ${String(inputs?.vswitchId)}; an instance is on one private network at a time, so the second join would be ` +
      "refused after the first one was made. Declare one VswitchAttachment per instance (remove one of the two). Nothing was changed.",
  };
}

/** The refusal of a VswitchAttachment on a VM whose Instance declares `vswitchId`, or undefined. */
function ownedByInstance(inputs: Record<string, unknown> | undefined): string | undefined {
  const vm = inputs?.instanceId;
  if (!known(vm)) return undefined;
  const declared = instanceNetworks.get(vm.toLowerCase());
  if (!declared) return undefined;
  return (
    `VswitchAttachment: the Instance of instance ${vm} declares vswitchId: "${declared}" in this stack, so that Instance owns the ` +
    `VM's private network, and this VswitchAttachment (instanceId ${vm}, vswitchId ${String(inputs?.vswitchId)}) would be a second ` +
    "owner: removing either from the program would take the VM off the network. Declare the network once: remove this " +
    "VswitchAttachment (the Instance's vswitchId keeps the VM on its network), or remove vswitchId from the Instance and keep " +
    "the attachment. Nothing was changed."
  );
}

/**
 * The Instance's side: notes which private network each Instance of this deployment declares (`vswitchId`), at its
 * Diff (when it does not replace the VM) and at its create.
 */
export function withInstanceNetworksNoted<P extends pulumi.dynamic.ResourceProvider>(provider: P): P {
  const declared = (id: string, bag: Record<string, unknown> | undefined, where: "state" | "this up"): void => {
    const k = vswitchAttachmentKey({ instanceId: id, vswitchId: bag?.vswitchId });
    if (k && !declaredByInstance.has(k.key)) declaredByInstance.set(k.key, where);
  };
  const note = (id: string | undefined, inputs: Record<string, unknown> | undefined): void => {
    if (!id) return;
    const v = inputs?.vswitchId;
    if (v !== undefined && v !== "" && !known(v)) return; // unknown in a preview
    instanceNetworks.set(id.toLowerCase(), known(v) ? v.toLowerCase() : null);
    declared(id, inputs, "this up");
  };
  const wrapped: pulumi.dynamic.ResourceProvider = { ...provider };
  const diff = provider.diff?.bind(provider);
  if (diff)
    wrapped.diff = async (id, olds, news) => {
      // (not a refresh's Diff, whose "news" are the state's inputs: `up --refresh` refreshes in the same deployment;
      // see address-owners.ts)
      const refreshing = refreshDiffComes(id);
      const result = await diff(id, olds, news);
      if (refreshing) return result;
      declared(id, olds as Record<string, unknown>, "state");
      if (!result.replaces?.length) note(id, news as Record<string, unknown>);
      return result;
    };
  const create = provider.create.bind(provider);
  wrapped.create = (inputs) => notingCreatedId(() => create(inputs), (id) => note(id, inputs as Record<string, unknown>));
  return wrapped as P;
}

/**
 * Wraps diff, create and delete of an attachment resource's provider as described in the module comment. `keyOf`
 * names the attachment from inputs or outputs.
 */
export function withOneOwner<P extends pulumi.dynamic.ResourceProvider>(
  resource: "BlockStorageAttachment" | "VswitchAttachment",
  keyOf: (bag: Record<string, unknown> | undefined) => AttachmentKey | undefined,
  provider: P,
): P {
  const elsewhere = resource === "VswitchAttachment" ? ownedByInstance : () => undefined;
  const wrapped: pulumi.dynamic.ResourceProvider = { ...provider };
  const check = provider.check?.bind(provider);
  if (check)
    wrapped.check = async (olds, news) => {
      const result = await check(olds, news);
      if (result.failures?.length) return result;
      const inputs = result.inputs as Record<string, unknown> | undefined;
      const k = keyOf(inputs);
      if (!k) return result;
      const withOlds = olds !== undefined && olds !== null && Object.keys(olds).some((key) => key !== "__provider");
      if (withOlds && keyOf(olds as Record<string, unknown>)?.key === k.key) {
        if (!heldByState.has(k.key)) heldByState.set(k.key, { diffed: false });
      } else if (!withOlds) {
        // What create refuses (a second owner), said at Check, so at preview (which never creates): another resource
        // checked without olds declares it too, or one of the state diffed and kept it. (Not one of the state that the
        // engine replaces without Diff, deletedWith: it was checked with olds and never diffed, and this is its new half.
        // Nor the Check with olds of one whose attachment changes: its Diff replaces it, and its new half is checked again
        // without olds, counted then.)
        const twice = checkedWithoutOlds.has(k.key);
        checkedWithoutOlds.add(k.key);
        if (twice || heldByState.get(k.key)?.diffed)
          return { failures: [{ property: k.property, reason: twoOwners(resource, k, twice ? "checked" : "state", heldByState.get(k.key)?.id) }] };
      }
      // A Check with olds of another attachment than the state's is the first of a replaced resource's two Checks: its
      // replacement is checked again without olds, from the program's raw inputs (ignoreChanges not applied:
      // step_generator.go continueStepsFromDiff), and that Check notes and judges its network. Noted here too, the
      // network ignoreChanges kept (the state's) counted as a second VswitchAttachment's (audit: a false refusal).
      if (resource !== "VswitchAttachment" || (withOlds && keyOf(olds as Record<string, unknown>)?.key !== k.key)) return result;
      const failure = oneNetworkAtCheck(inputs, !withOlds);
      return failure ? { failures: [failure] } : result;
    };
  const diff = provider.diff?.bind(provider);
  if (diff)
    wrapped.diff = async (id, olds, news) => {
      const result = await diff(id, olds, news);
      const k = keyOf(news as Record<string, unknown>);
      const held = k && heldByState.get(k.key);
      if (!k || !held) return result; // not checked with this attachment in this deployment (a refresh's Diff), or unknown
      if (result.replaces?.length) {
        heldByState.delete(k.key);
        if (keyOf(olds as Record<string, unknown>)?.key === k.key) replacedHere.add(k.key);
        return result;
      }
      const refused = elsewhere(news as Record<string, unknown>);
      if (refused) throw new ProviderError(refused);
      // (a create still running does not count: the resource of the state comes first, and that create, if it finds
      // the attachment in place, is refused once it has waited for the deployment: see beforeTakingOver)
      if (createdHere.get(k.key)?.stage === "made") throw new ProviderError(twoOwners(resource, k, "created"));
      held.diffed = true;
      held.id = id;
      return result;
    };
  const create = provider.create.bind(provider);
  wrapped.create = async (inputs) => {
    const k = keyOf(inputs as Record<string, unknown>);
    if (!k) return create(inputs);
    const refused = elsewhere(inputs as Record<string, unknown>);
    if (refused) throw new ProviderError(refused);
    // (a resource of the state checked but never diffed is one the engine replaces without asking Diff: --replace,
    // deletedWith, replaceWith; its replacement takes the attachment in place, and common/fixed-ids.ts keeps it)
    const held = heldByState.get(k.key);
    if (held?.diffed) throw new ProviderError(twoOwners(resource, k, "state", held.id));
    if (createdHere.has(k.key)) throw new ProviderError(twoOwners(resource, k, "created"));
    const mine = { stage: "creating" as "creating" | "made" };
    createdHere.set(k.key, mine);
    try {
      return await notingCreatedId(() => create(inputs), () => {
        mine.stage = "made";
      });
    } finally {
      if (mine.stage === "creating") createdHere.delete(k.key); // a create that recorded nothing holds nothing
    }
  };
  const remove = provider.delete?.bind(provider);
  if (remove)
    wrapped.delete = async (id, props) => {
      const k = keyOf(props as Record<string, unknown>);
      if (k && (heldByState.has(k.key) || createdHere.get(k.key)?.stage === "made")) {
        progressLog(
          `${resource} ${id} is left in place: another ${resource} of this stack still declares ${k.what}, so undoing it would ` +
            "undo what that one declares. (Two resources held it; this one is gone from the state now.)",
        );
        return;
      }
      if (k && resource === "VswitchAttachment") {
        const vm = String((props as Record<string, unknown>).instanceId).toLowerCase();
        const vswitch = String((props as Record<string, unknown>).vswitchId).toLowerCase();
        if (instanceNetworks.get(vm) === vswitch) {
          progressLog(
            `VswitchAttachment ${id} is left in place: the Instance of instance ${vm} declares vswitchId: "${vswitch}" in this stack, ` +
              "so the VM stays on that network, as the Instance declares.",
          );
          return;
        }
      }
      return remove(id, props);
    };
  return wrapped as P;
}

/**
 * Called by an attachment's create (not its update) that finds the attachment already in place and was not asked
 * to adopt it (`adoptId`): normal after an up interrupted right after the attach, so it is taken over, saying so.
 * First, unless this deployment replaces the resource in place (its old half holds it: no one else's), it lets the
 * rest of the deployment catch up (common/activity.ts), so that a resource of the state holding it, diffed late (it
 * waits for something still running), is known; it then refuses. A VswitchAttachment's network that the VM's Instance
 * declared as `vswitchId` (in its state or earlier in this deployment: moved to this attachment in one up) is taken
 * over from that Instance. `deadline`: the create's.
 */
export async function beforeTakingOver(
  resource: "BlockStorageAttachment" | "VswitchAttachment",
  k: AttachmentKey,
  deadline: Deadline,
): Promise<void> {
  if (replacedHere.has(k.key)) {
    progressLog(`${resource}: ${k.what} is in place already, held by the ${resource} this one replaces: kept as it is`);
    return;
  }
  if (!deploymentActivity.isQuiet()) await deploymentActivity.waitForOthers(deadline, true);
  const held = heldByState.get(k.key);
  if (held?.diffed) throw new ProviderError(twoOwners(resource, k, "state", held.id));
  if (held) {
    progressLog(`${resource}: ${k.what} is in place already, held by the ${resource} this one replaces (a replace without Diff): kept as it is`);
    return;
  }
  const byInstance = resource === "VswitchAttachment" ? declaredByInstance.get(k.key) : undefined;
  if (byInstance) {
    progressLog(
      `${resource}: ${k.what} is in place already, joined by the Instance of that VM, which declared this network as its ` +
        `vswitchId ${byInstance === "state" ? "in the state" : "earlier in this up"} and no longer does: this ${resource} takes ` +
        "it over from that Instance as it is, without a write (the VM stays on the network).",
    );
    return;
  }
  progressLog(
    `${resource}: ${k.what} is in place already, made by no resource this up has seen (an up interrupted right after ` +
      `it, or a change outside Pulumi): this ${resource} adopts it as it is, without a write. If another stack manages it, ` +
      "remove it there. If another resource of this stack declares it (`--target` and `--exclude` keep the resources they " +
      "leave out from the provider's sight), two resources now hold it: remove one from the program and run `pulumi up` " +
      "without --target or --exclude (a targeted delete would undo the attachment the other one declares).",
  );
}
