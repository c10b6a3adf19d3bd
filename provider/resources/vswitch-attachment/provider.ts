/**
 * The VswitchAttachment dynamic provider (id = `<instance uuid>/<vswitch uuid>`).
 *
 * The instance detail names its private network by NAME (`private_network`), so every read resolves that
 * name against the vswitch list (model.ts). Operations on the instance go through `runInstanceOperation`
 * (per-instance lock, wait until idle, busy answers retried).
 *
 * Ownership rule: create never moves an instance off ANOTHER private network (it may be the Instance's
 * `vswitchId` or another attachment); delete only detaches the instance from THIS network.
 */
import type * as pulumi from "@pulumi/pulumi";
import { NotFoundError, type InstanceDetail, type VmHostClient } from "../../api";
import { getClient, progressLog, resourceDeadline } from "../../context";
import { runInstanceOperation } from "../../wait/instance";
import { beforeTakingOver, vswitchAttachmentKey } from "../common/attachment-owners";
import { defineResourceProvider } from "../common/define";
import { errorText, ProviderError, ResourceInitError, wasRefused } from "../common/errors";
import { leavePrivateNetwork } from "../common/private-network";
import { diffVswitchAttachment } from "./diff";
import { attachmentId, inputsSchema, parseAttachmentId, type VswitchAttachmentInputs, type VswitchAttachmentOutputs } from "./inputs";
import { inputsFromState, membershipAdoptionRefusal, resolveAttachment, vswitchAttachmentOutputs, type AttachmentState, type VswitchRecord } from "./model";


const listsInFlight = new WeakMap<VmHostClient, Promise<VswitchRecord[]>>();

/**
 * The account's private networks, one list request shared by the reads that ask while it is in flight: a refresh
 * reads every attachment at once, and each read listed them again (fleet audit: 94 requests for 79 resources, where
 * refresh's goal is one per resource). Nothing is kept once it is answered: a later read lists again.
 */
function sharedVswitchList(client: VmHostClient): Promise<VswitchRecord[]> {
  let list = listsInFlight.get(client);
  if (!list) {
    const started = client.network.listVswitches();
    list = started;
    listsInFlight.set(client, started);
    const done = () => {
      if (listsInFlight.get(client) === started) listsInFlight.delete(client);
    };
    started.then(done, done);
  }
  return list;
}

/**
 * The vswitch list, with our vswitch in it when it exists: it is looked up by uuid when the list does not
 * show it (a host that pages or filters the list), so a missing entry really means "deleted".
 */
async function vswitchesWith(client: VmHostClient, vswitchId: string, list: Promise<VswitchRecord[]> = client.network.listVswitches()): Promise<VswitchRecord[]> {
  const listed = await list;
  if (listed.some((v) => v.uuid.toLowerCase() === vswitchId)) return listed;
  const detail = await client.network.findVswitch(vswitchId);
  return detail ? [...listed, detail] : listed;
}

/** Where the instance stands relative to our vswitch, on a fresh detail. */
function stateOf(detail: InstanceDetail, vswitchId: string, vswitches: VswitchRecord[]): AttachmentState {
  return resolveAttachment(detail.private_network, vswitchId, vswitches);
}

/** Reads the attachment; undefined when the instance, the network or the membership is gone. */
async function readOutputs(client: VmHostClient, inputs: VswitchAttachmentInputs): Promise<VswitchAttachmentOutputs | undefined> {
  // (asked together: the list is shared by the reads asking while it is in flight, e.g. every attachment a refresh reads)
  const list = sharedVswitchList(client);
  list.catch(() => undefined); // (unused when the instance is gone; a failure then is not this read's)
  const detail = await client.instances.find(inputs.instanceId);
  if (!detail) return undefined;
  const state = stateOf(detail, inputs.vswitchId, await vswitchesWith(client, inputs.vswitchId, list));
  return state.kind === "attached" ? vswitchAttachmentOutputs(inputs, state.vswitch) : undefined;
}

/** `viaUpdate`: called by {@link update} for a resource the state already holds (no take-over to announce). */
async function create(inputs: VswitchAttachmentInputs, viaUpdate = false): Promise<pulumi.dynamic.CreateResult<VswitchAttachmentOutputs>> {
  const client = getClient();
  const deadline = resourceDeadline(inputs.timeouts, "create");
  const { instanceId, vswitchId } = inputs;
  const id = attachmentId(instanceId, vswitchId);

  const detail = await client.instances.find(instanceId);
  if (!detail) throw new ProviderError(`instance ${instanceId} does not exist (instanceId must be the uuid of an existing instance)`);
  const vswitches = await vswitchesWith(client, vswitchId);
  const initial = stateOf(detail, vswitchId, vswitches);
  if (!vswitches.some((v) => v.uuid.toLowerCase() === vswitchId)) {
    throw new ProviderError(`private network ${vswitchId} does not exist (vswitchId must be the uuid of a vswitch; see getVswitches)`);
  }

  if (inputs.adoptId !== undefined) {
    const refusal = membershipAdoptionRefusal(instanceId, vswitchId, initial);
    if (refusal) throw new ProviderError(refusal);
  } else {
    const elsewhere = (network: string) =>
      new ProviderError(
        `instance ${instanceId} is on private network "${network}"; an instance is on one private network at a time, and this ` +
          "attachment does not move it off a network it does not own. Take it off that network first (in the host's panel if it was " +
          "moved there, or by removing vswitchId from the Instance or the other VswitchAttachment that declares it), then run up again",
      );
    if (initial.kind === "elsewhere") throw elsewhere(initial.network);
    if (initial.kind === "attached" && !viaUpdate) {
      // Already a member: normal after an up interrupted right after the join, so it is taken over without a write,
      // once no other resource of this stack holds it (common/attachment-owners.ts: it is then refused; else logged).
      const key = vswitchAttachmentKey(inputs as unknown as Record<string, unknown>);
      if (key) await beforeTakingOver("VswitchAttachment", key, deadline);
    }
    let updateAnswered = false;
    let updateUnanswered = false; // an attempt failed other than by a definite refusal: it may have been done
    try {
      await runInstanceOperation(
        client,
        instanceId,
        {
          what: `instance ${instanceId} to join private network ${vswitchId}`,
          deadline,
          until: (d) => stateOf(d, vswitchId, vswitches).kind === "attached",
        },
        async () => {
          // Decided again under the instance lock, on a fresh read.
          const now = stateOf(await client.instances.get(instanceId), vswitchId, vswitches);
          if (now.kind === "attached") return; // already a member (a retried up, see above): nothing to do
          if (now.kind === "elsewhere") throw elsewhere(now.network);
          try {
            await client.network.updatePrivateNetwork(instanceId, { vswitch: vswitchId });
          } catch (e) {
            if (!wasRefused(e)) updateUnanswered = true;
            throw e;
          }
          updateAnswered = true;
        },
      );
    } catch (error) {
      if (error instanceof ProviderError) throw error;
      // The membership may have been made before the failure (wait timeout, failed status): record it. Once the API
      // accepted the change it is recorded whatever the read says: a join still running at the deadline ends later,
      // and a host showing the membership in a way not understood must not leave the VM on a network no state knows
      // (simulator audit: the WaitTimeoutError was thrown plain). Refresh drops the record if it never happens.
      const readBack = await readOutputs(client, inputs).then((outs) => ({ outs }), () => undefined);
      const known = vswitches.find((v) => v.uuid.toLowerCase() === vswitchId);
      const fromInputs = vswitchAttachmentOutputs(inputs, known ?? { uuid: vswitchId, name: "" });
      if (readBack?.outs || updateAnswered) {
        const message = readBack?.outs || !readBack
          ? `instance ${instanceId} joined private network ${vswitchId}, then: ${errorText(error)}`
          : `the API accepted instance ${instanceId} joining private network ${vswitchId}, but the instance does not show it (${errorText(error)}). ` +
            "It is recorded in the stack so that it is not lost: the next pulumi up finishes the join, pulumi refresh drops the record if it " +
            "never happened.";
        throw new ResourceInitError(message, id, readBack?.outs ?? fromInputs, [errorText(error)], { cause: error });
      }
      // The join was sent, its answer lost (not a refusal), and the read-back failed too: it may have been done on
      // the host. Recorded under its fixed id rather than forgotten (a VM on the network that no state knows of):
      // unlike a create that makes a new object (common/unconfirmed.ts: a placeholder id, then a search), the id is
      // known before the write, so every later call just looks: refresh drops the record when the VM is not on the
      // network, the update an initialization failure forces at the next up joins it when it is not (see update),
      // and destroy leaves the network only when the VM is on it.
      if (!readBack && updateUnanswered) {
        throw new ResourceInitError(
          `the request for instance ${instanceId} to join private network ${vswitchId} got no answer (${errorText(error)}), and reading ` +
            "the instance back failed too, so it is not known whether it joined. It is recorded in the stack under its id so that it is " +
            "not lost: the next pulumi up joins it if it has not, pulumi refresh drops the record if it has not, pulumi destroy takes " +
            "it off the network if it has.",
          id,
          fromInputs,
          [errorText(error)],
          { cause: error },
        );
      }
      throw error;
    }
  }

  let outs: VswitchAttachmentOutputs | undefined;
  try {
    outs = await readOutputs(client, inputs);
  } catch (error) {
    // The membership exists; only the read after it failed: record it so a retry does not start over.
    const known = vswitches.find((v) => v.uuid.toLowerCase() === vswitchId);
    throw new ResourceInitError(
      `instance ${instanceId} joined private network ${vswitchId}, but reading it back failed: ${errorText(error)}`,
      id,
      vswitchAttachmentOutputs(inputs, known ?? { uuid: vswitchId, name: "" }),
      [errorText(error)],
      { cause: error },
    );
  }
  if (!outs) throw new ProviderError(`instance ${instanceId} left private network ${vswitchId} while it was being attached (changed out of band?)`);
  return { id, outs };
}

async function read(id: string, props: VswitchAttachmentOutputs): Promise<pulumi.dynamic.ReadResult<Partial<VswitchAttachmentOutputs>>> {
  // The id names both uuids; state written by an older version might lack the inputs, so the id is the source.
  const parsed = parseAttachmentId(id);
  const inputs = inputsFromState({ ...props, ...(parsed ?? {}) });
  const outs = await readOutputs(getClient(), inputs);
  if (!outs) return {};
  return { id, props: outs, inputs };
}

async function update(
  _id: string,
  _olds: VswitchAttachmentOutputs,
  news: VswitchAttachmentInputs,
): Promise<pulumi.dynamic.UpdateResult<VswitchAttachmentOutputs>> {
  // Only timeouts and adoptId change in place (everything else replaces): no write when the VM is on the network.
  const outs = await readOutputs(getClient(), news);
  if (outs) return { outs };
  // Not on it: joined as the program declares, by the create's path (which never moves the VM off another network).
  // This is how the update an initialization failure forces at the next up (pulumi/pulumi
  // pkg/resource/deploy/step_generator.go: a resource with init errors is updated even without changes) finishes a
  // join whose outcome stayed unknown (see create); a VM taken off the network out of band since is joined again.
  progressLog(`instance ${news.instanceId} is not on private network ${news.vswitchId}: joining it, as declared`);
  return { outs: (await create(news, true)).outs };
}

async function remove(id: string, props: VswitchAttachmentOutputs): Promise<void> {
  const client = getClient();
  const { instanceId, vswitchId } = parseAttachmentId(id) ?? props;
  const deadline = resourceDeadline(props.timeouts, "delete");
  const detail = await client.instances.find(instanceId);
  if (!detail) return; // instance gone: so is its membership
  const vswitches = await vswitchesWith(client, vswitchId);
  // Only leave OUR network: an instance on another network (or none) is not ours to touch.
  if (stateOf(detail, vswitchId, vswitches).kind !== "attached") return;
  try {
    await runInstanceOperation(
      client,
      instanceId,
      {
        what: `instance ${instanceId} to leave private network ${vswitchId}`,
        deadline,
        until: (d) => stateOf(d, vswitchId, vswitches).kind !== "attached",
      },
      async () => {
        if (stateOf(await client.instances.get(instanceId), vswitchId, vswitches).kind !== "attached") return;
        await leavePrivateNetwork(client, instanceId);
      },
    );
  } catch (error) {
    if (error instanceof NotFoundError || !(await client.instances.find(instanceId))) return;
    throw error;
  }
}

/** The VswitchAttachment dynamic provider: `providers.VswitchAttachment` of `pulumi-vmhost/provider`. */
export const vswitchAttachmentProvider = defineResourceProvider<VswitchAttachmentInputs, VswitchAttachmentOutputs>({
  inputsSchema,
  diff: diffVswitchAttachment,
  create: (inputs) => create(inputs),
  read,
  update,
  delete: remove,
});
