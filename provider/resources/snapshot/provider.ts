/**
 * The Snapshot dynamic provider: check, diff, create (take or adopt), read, update (provider-only
 * inputs), delete.
 *
 * - Taking and deleting a snapshot are operations on the instance: they go through `runInstanceOperation`
 *   (per-instance lock, wait until idle, busy answers retried), so a snapshot declared beside an address,
 *   a disk and firewall rules on one VM never collides with them.
 * - Once createSnapshot has answered a uuid, every later failure (an `Error` status, a deadline) is a
 *   `ResourceInitError` carrying that uuid: Pulumi records the snapshot, which bills, instead of forgetting it.
 * - createSnapshot is never re-sent blindly: after an ambiguous failure (reset, timeout after sending) the
 *   snapshots listed before sending are compared with the list after, and a new one with our name is adopted.
 */
import type * as pulumi from "@pulumi/pulumi";
import { AmbiguousRequestError, NotFoundError, type Snapshot as ApiSnapshot, type VmHostClient } from "../../api";
import { getClient, progressLog, resourceDeadline } from "../../context";
import { runInstanceOperation } from "../../wait/instance";
import { Deadline, pollUntil } from "../../wait/poll";
import { defineResourceProvider } from "../common/define";
import { ProviderError, ResourceInitError } from "../common/errors";
import { diffSnapshot } from "./diff";
import { inputsSchema, type SnapshotInputs, type SnapshotOutputs } from "./inputs";
import { snapshotInputsOf, snapshotOutputs, snapshotProgress } from "./model";

/** Usual durations (polling is fast around them); not deadlines. */
const EXPECTED_CREATE_MS = 30_000;
const EXPECTED_DELETE_MS = 10_000;

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** The instance's snapshots, or undefined when the instance itself is gone (404/410). */
async function listOrGone(client: VmHostClient, instanceId: string): Promise<ApiSnapshot[] | undefined> {
  try {
    return await client.snapshots.list(instanceId);
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

/** Waits until the snapshot is settled: Ready -> its record; Error -> WaitFailedError; gone -> WaitFailedError. */
async function waitReady(client: VmHostClient, instanceId: string, id: string, deadline: Deadline): Promise<ApiSnapshot> {
  return pollUntil<ApiSnapshot>({
    what: `snapshot ${id} of instance ${instanceId} to be Ready`,
    deadline,
    expectedMs: EXPECTED_CREATE_MS,
    log: progressLog,
    poll: async () => {
      const list = await listOrGone(client, instanceId);
      if (list === undefined) return { failed: true, message: `instance ${instanceId} no longer exists` };
      const snapshot = list.find((s) => s.id === id);
      if (!snapshot) return { failed: true, message: `snapshot ${id} disappeared from instance ${instanceId}'s list` };
      const progress = snapshotProgress(snapshot.status);
      if (progress === "ready") return { done: true, value: snapshot };
      if (progress === "failed") return { failed: true, message: `the API reports status ${snapshot.status}` };
      return { done: false, status: snapshot.status };
    },
  });
}

/**
 * Sends createSnapshot and returns the new snapshot's uuid. An ambiguous failure is reconciled against the
 * list taken before sending. A failure AFTER the API answered (waiting for the instance to settle) is
 * thrown as a ResourceInitError with the uuid, so the snapshot is recorded.
 */
async function takeSnapshot(client: VmHostClient, inputs: SnapshotInputs, deadline: Deadline): Promise<string> {
  const before = new Set(((await listOrGone(client, inputs.instanceId)) ?? []).map((s) => s.id));
  let answeredId: string | undefined;
  try {
    await runInstanceOperation(
      client,
      inputs.instanceId,
      { what: `snapshot "${inputs.name}" of instance ${inputs.instanceId}`, deadline, expectedMs: EXPECTED_CREATE_MS },
      async () => {
        const answer = await client.snapshots.create(inputs.instanceId, { name: inputs.name, description: inputs.description });
        answeredId = answer.snap_uuid;
        return answer;
      },
    );
    return answeredId!;
  } catch (error) {
    if (answeredId !== undefined) throw await initError(client, inputs, answeredId, error);
    if (!(error instanceof AmbiguousRequestError)) throw error;
    // The request may have reached the API: adopt a snapshot that appeared with our name, never send twice.
    const appeared = ((await listOrGone(client, inputs.instanceId)) ?? []).filter((s) => !before.has(s.id) && s.name === inputs.name);
    if (appeared.length === 1) {
      progressLog(`createSnapshot failed ambiguously (${error.message}); adopting snapshot ${appeared[0]!.id} that appeared with name "${inputs.name}"`);
      return appeared[0]!.id;
    }
    throw new ProviderError(
      `createSnapshot for instance ${inputs.instanceId} failed ambiguously and ${appeared.length === 0 ? "no" : "more than one"} ` +
        `new snapshot named "${inputs.name}" is listed: ${error.message}. Check getSnapshots and adopt one with adoptId if it exists.`,
      { cause: error },
    );
  }
}

/** The error that records a snapshot which exists but did not become Ready, with its truest outputs. */
async function initError(client: VmHostClient, inputs: SnapshotInputs, id: string, error: unknown): Promise<ResourceInitError> {
  const last = (await listOrGone(client, inputs.instanceId).catch(() => undefined))?.find((s) => s.id === id);
  const properties = last ? snapshotOutputs(inputs, last) : { ...inputs };
  return new ResourceInitError(`snapshot ${id} of instance ${inputs.instanceId} did not become Ready: ${errorText(error)}`, id, properties, [errorText(error)], {
    cause: error,
  });
}

/**
 * Finds the snapshot to adopt and returns its id as the API spells it; its name and description must equal
 * the inputs (otherwise the next up would replace the adopted snapshot).
 */
async function adoptSnapshot(client: VmHostClient, inputs: SnapshotInputs, adoptId: string): Promise<string> {
  const list = await listOrGone(client, inputs.instanceId);
  if (list === undefined) throw new ProviderError(`cannot adopt snapshot ${adoptId}: instance ${inputs.instanceId} does not exist`);
  const found = list.find((s) => s.id.toLowerCase() === adoptId.toLowerCase());
  if (!found) throw new ProviderError(`cannot adopt snapshot ${adoptId}: instance ${inputs.instanceId} has no such snapshot (see getSnapshots)`);
  const mismatches: string[] = [];
  if (found.name !== inputs.name) mismatches.push(`name is ${JSON.stringify(found.name)}`);
  if (found.description !== inputs.description) mismatches.push(`description is ${JSON.stringify(found.description)}`);
  if (mismatches.length > 0) {
    throw new ProviderError(
      `cannot adopt snapshot ${adoptId} as declared: its ${mismatches.join(" and its ")}. A snapshot cannot be changed, so set these ` +
        `inputs to its values (otherwise the next up would replace the adopted snapshot).`,
    );
  }
  return found.id;
}

/** The Snapshot provider (registered as `providers.Snapshot`). */
export const snapshotProvider = defineResourceProvider<SnapshotInputs, SnapshotOutputs>({
  inputsSchema,
  diff: diffSnapshot,

  async create(inputs: SnapshotInputs): Promise<pulumi.dynamic.CreateResult<SnapshotOutputs>> {
    const client = getClient();
    const deadline = resourceDeadline(inputs.timeouts, "create");
    let id: string;
    if (inputs.adoptId !== undefined) {
      id = await adoptSnapshot(client, inputs, inputs.adoptId);
    } else {
      id = await takeSnapshot(client, inputs, deadline);
    }
    // From here the snapshot exists: any failure records it (with its id) instead of forgetting it.
    try {
      const snapshot = await waitReady(client, inputs.instanceId, id, deadline);
      return { id, outs: snapshotOutputs(inputs, snapshot) };
    } catch (error) {
      throw await initError(client, inputs, id, error);
    }
  },

  async read(id: string, props: SnapshotOutputs): Promise<pulumi.dynamic.ReadResult<Partial<SnapshotOutputs>>> {
    if (!props?.instanceId) throw new ProviderError(`cannot read snapshot ${id}: the state has no instanceId`);
    const list = await listOrGone(getClient(), props.instanceId);
    const snapshot = list?.find((s) => s.id === id);
    if (!snapshot) return {}; // the snapshot (or its instance) is gone
    const outs = snapshotOutputs(props, snapshot);
    return { id, props: outs, inputs: snapshotInputsOf(outs) } ;
  },

  /** Only provider-only inputs (timeouts, adoptId) change in place: nothing to send, just record them. */
  async update(id: string, olds: SnapshotOutputs, news: SnapshotInputs): Promise<pulumi.dynamic.UpdateResult<SnapshotOutputs>> {
    const list = await listOrGone(getClient(), news.instanceId);
    const snapshot = list?.find((s) => s.id === id);
    if (!snapshot) throw new ProviderError(`snapshot ${id} of instance ${news.instanceId} no longer exists; run pulumi refresh`);
    return { outs: snapshotOutputs({ instanceId: olds.instanceId, adoptId: news.adoptId, timeouts: news.timeouts }, snapshot) };
  },

  async delete(id: string, props: SnapshotOutputs): Promise<void> {
    const client = getClient();
    const deadline = resourceDeadline(props.timeouts, "delete");
    const present = async () => {
      const list = await listOrGone(client, props.instanceId);
      return list?.find((s) => s.id === id);
    };
    if (!(await present())) return; // already gone (or its instance is): nothing to do
    try {
      await runInstanceOperation(
        client,
        props.instanceId,
        { what: `deletion of snapshot ${id} of instance ${props.instanceId}`, deadline, expectedMs: EXPECTED_DELETE_MS },
        () => client.snapshots.delete(props.instanceId, id), // resolves undefined on 404: already gone
      );
    } catch (error) {
      // the instance vanished meanwhile: its snapshots went with it
      if (!(await listOrGone(client, props.instanceId))) return;
      throw error;
    }
    await pollUntil<void>({
      what: `snapshot ${id} of instance ${props.instanceId} to be deleted`,
      deadline,
      expectedMs: EXPECTED_DELETE_MS,
      log: progressLog,
      poll: async () => {
        const snapshot = await present();
        if (!snapshot) return { done: true, value: undefined };
        if (snapshotProgress(snapshot.status) === "failed") return { failed: true, message: `the API reports status ${snapshot.status}` };
        return { done: false, status: snapshot.status };
      },
    });
  },
});
