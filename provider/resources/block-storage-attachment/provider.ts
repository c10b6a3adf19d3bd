/**
 * The BlockStorageAttachment dynamic provider (id = the block storage uuid).
 *
 * Reading: the account's block storage list (`listBlockStorages`, client code only) says which instance a
 * disk is attached to. A host without that route answers 404 for it; then the only view left is the spec's
 * list of AVAILABLE disks of the instance's location (`listBlockStorageOptions`): a disk that is not listed
 * there is taken as attached to our instance. That fallback cannot tell "attached elsewhere" or "deleted"
 * from "attached here"; the docs say so.
 *
 * Attach and detach are operations on the instance: they go through `runInstanceOperation` (per-instance
 * lock, wait until idle, busy answers retried). The instance detail does not list disks, so after the call
 * we poll the block storage view until it shows the change.
 */
import type * as pulumi from "@pulumi/pulumi";
import { ApiError, NotFoundError, RouteNotFoundError, type InstanceDetail, type VmHostClient } from "../../api";
import { getClient, progressLog, resourceDeadline } from "../../context";
import { runInstanceOperation, sharedPollSchedule } from "../../wait/instance";
import { sharedReadFor } from "../../wait/shared-read";
import { Deadline, pollUntil } from "../../wait/poll";
import { defineResourceProvider } from "../common/define";
import { errorText, ProviderError, ResourceInitError, wasRefused } from "../common/errors";
import { replacedByThisDeployment } from "../common/replacements";
import { beforeTakingOver, blockStorageAttachmentKey } from "../common/attachment-owners";
import { diffBlockStorageAttachment } from "./diff";
import { inputsSchema, type BlockStorageAttachmentInputs, type BlockStorageAttachmentOutputs } from "./inputs";
import {
  attachedElsewhereRefusal,
  blockStorageAttachmentOutputs,
  diskAdoptionRefusal,
  diskStateFromList,
  diskStateFromOptions,
  inputsFromState,
  type DiskState,
} from "./model";


/** True when the call failed because the host has no such route (404/405 on a path without ids). */
function routeMissing(error: unknown): boolean {
  return error instanceof NotFoundError || error instanceof RouteNotFoundError || (error instanceof ApiError && error.status === 405);
}

/**
 * The disk's state relative to the instance (`locationId`: the instance's location, for the fallback).
 * `precise` is false when only the fallback view was available.
 */
async function diskState(
  client: VmHostClient,
  blockStorageId: string,
  instanceId: string,
  locationId: number,
  list: () => ReturnType<VmHostClient["storage"]["list"]> = () => client.storage.list(),
): Promise<{ state: DiskState; precise: boolean }> {
  try {
    return { state: diskStateFromList(blockStorageId, instanceId, await list()), precise: true };
  } catch (error) {
    if (!routeMissing(error)) throw error;
  }
  return { state: diskStateFromOptions(blockStorageId, await client.storage.listOptions({ locationId })), precise: false };
}

/** Reads the attachment; undefined when the instance is gone or the disk is not attached to it. */
async function readOutputs(
  client: VmHostClient,
  inputs: BlockStorageAttachmentInputs,
  known: Partial<BlockStorageAttachmentOutputs> = {},
): Promise<BlockStorageAttachmentOutputs | undefined> {
  const detail = await client.instances.find(inputs.instanceId);
  if (!detail) return undefined;
  const { state } = await diskState(client, inputs.blockStorageId, inputs.instanceId, detail.location_id);
  return state.kind === "attached" ? blockStorageAttachmentOutputs(inputs, state, known) : undefined;
}

/** Polls the block storage view until `done(state)`; the deadline and the error name the disk and the instance. */
async function waitForDisk(
  client: VmHostClient,
  what: string,
  deadline: Deadline,
  blockStorageId: string,
  instanceId: string,
  locationId: number,
  done: (state: DiskState) => boolean,
): Promise<DiskState> {
  // Every disk wait of the process reads one shared block storage list per poll interval (wait/shared-read.ts).
  const shared = sharedReadFor(client, "storage", () => client.storage.list());
  return pollUntil({
    what,
    deadline,
    log: progressLog,
    schedule: sharedPollSchedule(),
    poll: async () => {
      const { state } = await diskState(client, blockStorageId, instanceId, locationId, () => shared.read());
      return done(state) ? { done: true, value: state } : { done: false, status: state.kind };
    },
  });
}

/**
 * Takes disk `id` off `holder` when `holder` is a VM this deployment replaces (known from its Diff:
 * common/replacements.ts) in the location of `instanceId`, so that the attachment to `instanceId` can be made;
 * true when it did. Why: an attachment declared with `deletedWith: vm` is replaced with the VM without Diff,
 * create-before-delete (pulumi/pulumi pkg/resource/deploy/step_generator.go, diff(): "marked for replacement because
 * ... its DeletedWith resource is being replaced"), so its create runs while the old VM, to be deleted at the end of
 * this up, still holds the disk; refusing failed that up (the next one, after the old VM was gone, succeeded). The
 * old attachment's delete is skipped by the engine (step.go, isDeletedWith: its VM is deleted in this up) and would
 * leave the moved disk anyway (common/fixed-ids.ts); the old VM's delete, even with removeBlockStorage, deletes
 * only the disks still attached to it. Under the old VM's lock, on a fresh read; it then waits until the disk shows
 * detached. Never a disk of a VM that stays (the ownership rule in the error of `create`).
 */
async function takeDiskFromReplacedVm(
  client: VmHostClient, id: string, holder: string, instance: InstanceDetail, deadline: Deadline,
): Promise<boolean> {
  const old = holder.toLowerCase();
  const instanceId = instance.uuid;
  const locationId = instance.location_id;
  // Only from a VM whose replace a Diff of this deployment reported, not from any VM a replacement once named
  // (`replacing` is carried on): an outlived one (retainOnDelete) keeps its disks (audit). Any such VM, not only the
  // one this instance replaces: two Instances replaced together may swap disks (multi-Instance audit: refused at
  // every up, the disk staying on the old VM until an up without errors deleted it).
  if (!replacedByThisDeployment.idsUnder("Instance:").includes(old) || old === instanceId.toLowerCase()) return false;
  const oldDetail = await client.instances.find(holder);
  if (!oldDetail || oldDetail.location_id !== locationId) return false; // a disk attaches only in its own location
  progressLog(
    `block storage ${id} is attached to instance ${holder}, which this up replaces: it is detached there first so that instance ` +
      `${instanceId} (its replacement) gets it; the old VM is deleted once its replacement stands`,
  );
  const what = `block storage ${id} to be detached from instance ${holder} (being replaced)`;
  await runInstanceOperation(client, holder, { what, deadline, failOnErrorStatus: false }, async () => {
    const { state } = await diskState(client, id, instanceId, locationId);
    if (state.kind !== "elsewhere" || state.instanceId.toLowerCase() !== old) return; // moved meanwhile: nothing to take
    await client.storage.detach(id);
  });
  await waitForDisk(client, what, deadline, id, instanceId, locationId, (s) => s.kind !== "elsewhere" || s.instanceId.toLowerCase() !== old);
  // Left detached if the attach below fails: the next up attaches it, while putting it back on a VM this up deletes
  // (perhaps with removeBlockStorage) would risk its data.
  return true;
}

/** `viaUpdate`: called by {@link update} for a resource the state already holds (no take-over to announce). */
async function create(inputs: BlockStorageAttachmentInputs, viaUpdate = false): Promise<pulumi.dynamic.CreateResult<BlockStorageAttachmentOutputs>> {
  const client = getClient();
  const deadline = resourceDeadline(inputs.timeouts, "create");
  const { blockStorageId: id, instanceId } = inputs;

  const detail = await client.instances.find(instanceId);
  if (!detail) throw new ProviderError(`instance ${instanceId} does not exist (instanceId must be the uuid of an existing instance)`);
  const locationId = detail.location_id;
  let { state, precise } = await diskState(client, id, instanceId, locationId);
  if (state.kind === "elsewhere" && inputs.adoptId === undefined && (await takeDiskFromReplacedVm(client, id, state.instanceId, detail, deadline))) {
    ({ state, precise } = await diskState(client, id, instanceId, locationId));
  }
  if (state.kind === "missing") {
    throw new ProviderError(`block storage ${id} does not exist (blockStorageId must be the uuid of a block storage; getBlockStorages lists them)`);
  }
  if (state.kind === "elsewhere") throw new ProviderError(attachedElsewhereRefusal(id, state.instanceId));
  const notAdoptable = inputs.adoptId !== undefined ? diskAdoptionRefusal(id, instanceId, state) : undefined;
  if (notAdoptable) throw new ProviderError(notAdoptable);

  // The precise view says "attached here": nothing to do (a retried up), once no other resource of this stack holds
  // it (common/attachment-owners.ts: it is then refused; else taken over, logged). The fallback view's "attached" only
  // means "not available", which may be attached elsewhere or missing: attach anyway and let the API answer
  // (re-attaching to the same instance is harmless; another instance or no such disk is refused).
  const mustAttach = state.kind === "detached" || (!precise && inputs.adoptId === undefined);
  if (!mustAttach && state.kind === "attached" && inputs.adoptId === undefined && !viaUpdate) {
    const key = blockStorageAttachmentKey(inputs as unknown as Record<string, unknown>);
    if (key) await beforeTakingOver("BlockStorageAttachment", key, deadline);
  }
  if (mustAttach) {
    const what = `block storage ${id} to be attached to instance ${instanceId}`;
    let attachAnswered = false;
    let attachUnanswered = false; // an attempt failed other than by a definite refusal: it may have been done
    try {
      await runInstanceOperation(client, instanceId, { what, deadline }, async () => {
        try {
          const answer = await client.storage.attach(id, { instanceId });
          attachAnswered = true;
          return answer;
        } catch (e) {
          if (!wasRefused(e)) attachUnanswered = true;
          throw e;
        }
      });
      await waitForDisk(client, what, deadline, id, instanceId, locationId, (s) => s.kind === "attached");
    } catch (error) {
      // Attached before the failure (a wait or read failing after the call): record it with its id. The fallback
      // view cannot tell "attached here" from "refused", so there an attach counts when the API accepted it, or
      // when the disk was listed as available before it (no longer listed after our attach: ours; an attach
      // whose answers were all lost left it attached in no state, and an Instance deleted with
      // removeBlockStorage then deleted the data disk: audit).
      if (attachAnswered || precise || state.kind === "detached") {
        const known = { name: state.kind === "detached" ? state.name : undefined, sizeGb: state.kind === "detached" ? state.sizeGb : undefined };
        // Read back: attached -> record it. The read failing too (an outage) after the API accepted the attach ->
        // record it with what we know; a read that answers "not attached" means the attach did not take.
        const readBack = await readOutputs(client, inputs, known).then((outs) => ({ outs }), () => undefined);
        const recorded = readBack ? readBack.outs : attachAnswered ? blockStorageAttachmentOutputs(inputs, known) : undefined;
        if (recorded) {
          throw new ResourceInitError(`block storage ${id} was attached to instance ${instanceId}, then: ${errorText(error)}`, id, recorded, [
            errorText(error),
          ], { cause: error });
        }
        // The attach was sent, its answer lost (not a refusal), and the read-back failed too: it may have been done on
        // the host. Recorded under its fixed id rather than forgotten (a disk attached that no state knows of, which
        // an Instance deleted with removeBlockStorage would delete): unlike a create that makes a new object
        // (common/unconfirmed.ts: a placeholder id, then a search), the id is known before the write, so every later
        // call just looks: refresh drops the record when the disk is not attached here, the update an initialization
        // failure forces at the next up attaches it when it is not (see update), and destroy detaches it only from
        // this instance.
        if (!readBack && attachUnanswered) {
          throw new ResourceInitError(
            `the request to attach block storage ${id} to instance ${instanceId} got no answer (${errorText(error)}), and reading it back ` +
              "failed too, so it is not known whether it is attached. It is recorded in the stack under its id so that it is not lost: " +
              "the next pulumi up attaches it if it is not, pulumi refresh drops the record if it is not, pulumi destroy detaches it if it is.",
            id,
            blockStorageAttachmentOutputs(inputs, known),
            [errorText(error)],
            { cause: error },
          );
        }
      }
      throw error;
    }
  }

  const known = state.kind === "detached" || state.kind === "attached" ? { name: state.name, sizeGb: state.sizeGb } : {};
  let outs: BlockStorageAttachmentOutputs | undefined;
  try {
    outs = await readOutputs(client, inputs, known);
  } catch (error) {
    // The disk is attached; only the read after it failed: record it so a retry does not start over.
    throw new ResourceInitError(
      `block storage ${id} was attached to instance ${instanceId}, but reading it back failed: ${errorText(error)}`,
      id,
      blockStorageAttachmentOutputs(inputs, known),
      [errorText(error)],
      { cause: error },
    );
  }
  if (!outs) throw new ProviderError(`block storage ${id} left instance ${instanceId} while it was being attached (changed out of band?)`);
  return { id, outs };
}

async function read(
  id: string,
  props: BlockStorageAttachmentOutputs,
): Promise<pulumi.dynamic.ReadResult<Partial<BlockStorageAttachmentOutputs>>> {
  const inputs = inputsFromState({ ...props, blockStorageId: id });
  // name/size from state fill in what the fallback view cannot see.
  const outs = await readOutputs(getClient(), inputs, { name: props.name, sizeGb: props.sizeGb });
  if (!outs) return {};
  return { id, props: outs, inputs };
}

async function update(
  _id: string,
  olds: BlockStorageAttachmentOutputs,
  news: BlockStorageAttachmentInputs,
): Promise<pulumi.dynamic.UpdateResult<BlockStorageAttachmentOutputs>> {
  // Only timeouts and adoptId change in place (everything else replaces): no write when the disk is attached here.
  const outs = await readOutputs(getClient(), news, { name: olds.name, sizeGb: olds.sizeGb });
  if (outs) return { outs };
  // Not attached here: attached as the program declares, by the create's path (which never takes a disk from another
  // VM). This is how the update an initialization failure forces at the next up (pulumi/pulumi
  // pkg/resource/deploy/step_generator.go: a resource with init errors is updated even without changes) finishes an
  // attach whose outcome stayed unknown (see create); a disk detached out of band since is attached again.
  progressLog(`block storage ${news.blockStorageId} is not attached to instance ${news.instanceId}: attaching it, as declared`);
  return { outs: (await create(news, true)).outs };
}

async function remove(id: string, props: BlockStorageAttachmentOutputs): Promise<void> {
  const client = getClient();
  const instanceId = props.instanceId;
  const deadline = resourceDeadline(props.timeouts, "delete");
  const detail = await client.instances.find(instanceId);
  if (!detail) return; // instance gone: the disk was detached (or deleted) with it
  const locationId = detail.location_id;
  const { state } = await diskState(client, id, instanceId, locationId);
  // Only detach from OUR instance: a disk detached, deleted or attached elsewhere is not ours to touch.
  if (state.kind !== "attached") return;
  const what = `block storage ${id} to be detached from instance ${instanceId}`;
  try {
    await runInstanceOperation(client, instanceId, { what, deadline }, async () => {
      // Looked at again once the VM is idle: the wait (an operation started in the panel, a busy answer) may have
      // been long, and the detach takes the disk off whatever VM holds it (audit: a disk moved to another VM in the
      // meantime was detached from that VM).
      if ((await diskState(client, id, instanceId, locationId)).state.kind !== "attached") return;
      try {
        await client.storage.detach(id);
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error; // 404: the disk is gone, so is the attachment
      }
    });
    await waitForDisk(client, what, deadline, id, instanceId, locationId, (s) => s.kind !== "attached");
  } catch (error) {
    if (!(await client.instances.find(instanceId))) return;
    throw error;
  }
}

/** The BlockStorageAttachment dynamic provider: `providers.BlockStorageAttachment` of `pulumi-vmhost/provider`. */
export const blockStorageAttachmentProvider = defineResourceProvider<BlockStorageAttachmentInputs, BlockStorageAttachmentOutputs>({
  inputsSchema,
  diff: diffBlockStorageAttachment,
  create: (inputs) => create(inputs),
  read,
  update,
  delete: remove,
});
