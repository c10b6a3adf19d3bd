/**
 * The Snapshot dynamic provider: check, diff, create (take or adopt), read, update (provider-only
 * inputs), delete.
 *
 * - Taking and deleting a snapshot are operations on the instance: they go through `runInstanceOperation`
 *   (per-instance lock, wait until idle, busy answers retried), so a snapshot declared beside an address,
 *   a disk and firewall rules on one VM never collides with them.
 * - Once createSnapshot has answered a uuid, every later failure (an `Error` status, a deadline) is a
 *   `ResourceInitError` carrying that uuid: Pulumi records the snapshot, which bills, instead of forgetting it.
 * - createSnapshot goes through `writeExactlyOnce` (common/reconcile.ts): never re-sent blindly; after an
 *   ambiguous failure a new snapshot with our name is taken as ours, with reads that survive transient
 *   failures until the deadline. A snapshot with our name that this resource does not know (left by an
 *   interrupted up) stops the create, naming it and adoptId; the old snapshot of a replacement is known
 *   from Diff (common/replacements.ts).
 */
import type * as pulumi from "@pulumi/pulumi";
import { NotFoundError, type Snapshot as ApiSnapshot, type VmHostClient } from "../../api";
import { systemClock } from "../../clock";
import { getClient, progressLog, resourceDeadline } from "../../context";
import { expectedDuration, learnFromWait, runInstanceOperation, sharedPollSchedule } from "../../wait/instance";
import { sharedReadFor } from "../../wait/shared-read";
import { Deadline, pollUntil } from "../../wait/poll";
import { sameUuid } from "../common/fields";
import { defineResourceProvider } from "../common/define";
import { errorText, ProviderError, ResourceInitError } from "../common/errors";
import { readPersistently, writeExactlyOnce } from "../common/reconcile";
import { claimedByStack, replacementsInProgress } from "../common/replacements";
import { ignoredInputs } from "../common/ignore-changes";
import { declarationsKept, diffSnapshot, snapshotUpdateRefusal } from "./diff";
import { isDependentsQuestion } from "../common/asked-diffs";
import { isAdoptedIn } from "../common/replace-on-changes";
import { objectDeleted, refuseWhileItsVmIsUnknown } from "../common/kept-with-vm";
import { inputsSchema, type SnapshotInputs, type SnapshotOutputs } from "./inputs";
import { declaring, isKnownProgressWord, snapshotOutputs, snapshotProgress, type Carried } from "./model";

/**
 * Operation kinds whose usual durations are learned per host (wait/durations.ts): polling is fast around them.
 * No fixed guess: a 30 s guess made every wait sleep 27 s before its second poll, whatever the host.
 */
const KIND_CREATE = "snapshot-create";
const KIND_DELETE = "snapshot-delete";

/** The instance's snapshots, or undefined when the instance itself is gone (404/410). */
async function listOrGone(client: VmHostClient, instanceId: string): Promise<ApiSnapshot[] | undefined> {
  try {
    return await client.snapshots.list(instanceId);
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

/**
 * The instance's snapshot list as the snapshot waits poll it: one read per poll interval shared by every wait on
 * that instance (several snapshots of one VM in one up), wait/shared-read.ts.
 */
function sharedSnapshotList(client: VmHostClient, instanceId: string) {
  return sharedReadFor(client, `snapshots:${instanceId.toLowerCase()}`, () => listOrGone(client, instanceId));
}

/** Waits until the snapshot is settled: Ready -> its record; Error -> WaitFailedError; gone -> WaitFailedError. */
async function waitReady(client: VmHostClient, instanceId: string, id: string, deadline: Deadline): Promise<ApiSnapshot> {
  const started = systemClock.now();
  const shared = sharedSnapshotList(client, instanceId);
  const expectedMs = expectedDuration(client, `${KIND_CREATE}-ready`);
  // When the last list that showed the snapshot still being made was answered: it became Ready after that.
  let runningSeenAt: number | undefined;
  let saidUnknown = false;
  const ready = await pollUntil<ApiSnapshot>({
    what: `snapshot ${id} of instance ${instanceId} to be Ready`,
    deadline,
    expectedMs,
    log: progressLog,
    schedule: sharedPollSchedule(),
    poll: async () => {
      const list = await shared.read();
      if (list === undefined) return { failed: true, message: `instance ${instanceId} no longer exists` };
      const snapshot = list.find((s) => sameUuid(s.id, id));
      if (!snapshot) return { failed: true, message: `snapshot ${id} disappeared from instance ${instanceId}'s list` };
      const progress = snapshotProgress(snapshot.status);
      if (progress === "ready") return { done: true, value: snapshot };
      if (progress === "failed") return { failed: true, message: `the API reports status ${snapshot.status}` };
      if (!isKnownProgressWord(snapshot.status) && !saidUnknown) {
        saidUnknown = true;
        progressLog(
          `snapshot ${id}: status "${snapshot.status}" is not a word this provider knows as finished or failed, so it waits until the status ` +
            "changes or timeouts.create ends; please report the word with your host's name",
        );
      }
      runningSeenAt = systemClock.now();
      return { done: false, status: snapshot.status };
    },
  });
  learnFromWait(client, `${KIND_CREATE}-ready`, { started, expectedMs, runningSeenAt, endedAt: systemClock.now(), intervalMs: shared.intervalMs });
  return ready;
}

/** The snapshots of the instance named `name` (none when the instance is gone). */
async function snapshotsNamed(client: VmHostClient, instanceId: string, name: string): Promise<string[]> {
  return ((await listOrGone(client, instanceId)) ?? []).filter((s) => s.name === name).map((s) => s.id);
}

/** The identity no two snapshots of ours share: the name on an instance. */
const identityKey = (instanceId: string, name: string): string => `Snapshot:${instanceId.toLowerCase()}/${name}`;

/** The identity a replacement snapshot is taken under: one that keeps the name is taken before the old one is deleted. */
export const snapshotReplacementIdentity = (news: Record<string, unknown>): string | undefined =>
  typeof news.instanceId === "string" && typeof news.name === "string" ? identityKey(news.instanceId, news.name) : undefined;

/**
 * Sends createSnapshot exactly once (common/reconcile.ts) and returns the new snapshot's uuid. A failure
 * AFTER the API answered (waiting for the instance to settle) is thrown as a ResourceInitError with the
 * uuid, so the snapshot is recorded.
 */
async function takeSnapshot(client: VmHostClient, inputs: SnapshotInputs, deadline: Deadline): Promise<string> {
  const key = identityKey(inputs.instanceId, inputs.name);
  return writeExactlyOnce({
    what: `snapshot "${inputs.name}" of instance ${inputs.instanceId}`,
    identity: key,
    deadline,
    requestBoundMs: client.requestTimeoutMs,
    howToFind: `getSnapshots({ instanceId: "${inputs.instanceId}" })`,
    candidates: () => snapshotsNamed(client, inputs.instanceId, inputs.name),
    // A snapshot of the name with another description was taken by someone else (a colleague in the panel, at the
    // moment this request's answer was lost): never taken for this one (multistack audit: it was, and this stack's
    // destroy deleted it).
    madeByThisWrite: async (id) =>
      (await readPersistently(`the snapshots of instance ${inputs.instanceId}`, deadline, () => listOrGone(client, inputs.instanceId)))
        ?.find((s) => sameUuid(s.id, id))?.description === inputs.description,
    // `pulumi up --replace` (create-before-delete) lands here too: the engine skips Diff for it (pulumi/pulumi
    // pkg/resource/deploy/step_generator.go, diff() and isTargetedReplace) and gives Check no olds, so the old snapshot is
    // not in replacementsInProgress and cannot be told from a leftover of an interrupted up (taking a second one beside a
    // leftover would orphan it). So the refusal names deleteBeforeReplace, with which the old one is deleted first.
    refuseBeside: (existing) => {
      const strangers = existing.filter((id) => !replacementsInProgress.isBeingReplaced(key, id));
      if (strangers.length === 0) return;
      // Held by another Snapshot of this stack: a clash, never a case for adoptId (two resources would own it).
      const ofThisStack = strangers.filter((id) => claimedByStack.has(id.toLowerCase()));
      if (ofThisStack.length > 0)
        throw new ProviderError(
          `name: snapshot ${ofThisStack[0]} named "${inputs.name}" of instance ${inputs.instanceId} belongs to another Snapshot of this ` +
            "stack, so no second one was taken: give this Snapshot another name.",
        );
      throw new ProviderError(
        `name: instance ${inputs.instanceId} already has a snapshot named "${inputs.name}" (${strangers.join(", ")}) that this resource ` +
          `does not manage, so no second one was taken. It may be left by an interrupted pulumi up. To manage it, set adoptId: ` +
          `"${strangers[0]}" (never on a snapshot another Snapshot of this stack declares: with \`--target\` or \`--exclude\` the ` +
          `provider cannot tell which those are); otherwise delete it or choose another name. (Replacing this Snapshot with \`pulumi up --replace\` keeping ` +
          "its name needs the resource option deleteBeforeReplace: true: the engine tells the provider nothing of a --replace, so its old " +
          "snapshot cannot be told from one left behind.)",
      );
    },
    send: async () => {
      let answeredId: string | undefined;
      try {
        await runInstanceOperation(
          client,
          inputs.instanceId,
          { what: `snapshot "${inputs.name}" of instance ${inputs.instanceId}`, deadline, kind: KIND_CREATE },
          async () => {
            const answer = await client.snapshots.create(inputs.instanceId, { name: inputs.name, description: inputs.description });
            answeredId = answer.snap_uuid;
            return answer;
          },
        );
        return answeredId;
      } catch (error) {
        if (answeredId !== undefined) throw await initError(client, inputs, answeredId, error);
        throw error;
      }
    },
  });
}

/**
 * The error that records a snapshot which exists but did not become Ready, with its truest outputs. `carried`: what
 * the outputs carry from the inputs (update's keeps the declarations ignoreChanges hides).
 */
async function initError(
  client: VmHostClient, inputs: SnapshotInputs, id: string, error: unknown, carried: Carried = declaring(inputs),
): Promise<ResourceInitError> {
  const last = (await listOrGone(client, inputs.instanceId).catch(() => undefined))?.find((s) => sameUuid(s.id, id));
  const properties = last ? snapshotOutputs(carried, last) : { ...inputs, ...carried };
  return new ResourceInitError(`snapshot ${id} of instance ${inputs.instanceId} did not become Ready: ${errorText(error)}`, id, properties, [errorText(error)], {
    cause: error,
  });
}

/**
 * The snapshot `inputs` adopt, from the instance's snapshot list (undefined: the instance is gone), or why it cannot
 * be adopted as declared: it must exist, and its name and description must equal the inputs (a snapshot cannot be
 * changed, and an adopted one is never replaced). What create refuses before any write, and the preview with it.
 */
function snapshotToAdopt(list: ApiSnapshot[] | undefined, inputs: SnapshotInputs, adoptId: string): { found: ApiSnapshot } | { refusal: string } {
  if (list === undefined) return { refusal: `cannot adopt snapshot ${adoptId}: instance ${inputs.instanceId} does not exist` };
  const found = list.find((s) => s.id.toLowerCase() === adoptId.toLowerCase());
  if (!found)
    return {
      refusal:
        `cannot adopt snapshot ${adoptId}: instance ${inputs.instanceId} has no such snapshot (see getSnapshots({ instanceId: ` +
        `"${inputs.instanceId}" })): set adoptId to one of its snapshots, or remove adoptId to take a new snapshot`,
    };
  const mismatches: string[] = [];
  if (found.name !== inputs.name) mismatches.push(`name is ${JSON.stringify(found.name)}`);
  if (found.description !== inputs.description) mismatches.push(`description is ${JSON.stringify(found.description)}`);
  if (mismatches.length > 0)
    return {
      refusal:
        `cannot adopt snapshot ${adoptId} as declared: its ${mismatches.join(" and its ")}. A snapshot cannot be changed, so set these ` +
        `inputs to its values (otherwise the next up would replace the adopted snapshot).`,
    };
  return { found };
}

/** Finds the snapshot to adopt and returns its id as the API spells it (see {@link snapshotToAdopt}). */
async function adoptSnapshot(client: VmHostClient, inputs: SnapshotInputs, adoptId: string): Promise<string> {
  const adopted = snapshotToAdopt(await listOrGone(client, inputs.instanceId), inputs, adoptId);
  if ("refusal" in adopted) throw new ProviderError(adopted.refusal);
  return adopted.found.id;
}

/**
 * Why create would refuse to adopt (adoptId) the snapshot `inputs` declare, or undefined: for the preview's check
 * (common/preflight.ts), one read of the instance's snapshots, made only for a new Snapshot with adoptId.
 */
export async function snapshotAdoptionRefusal(client: VmHostClient, inputs: SnapshotInputs): Promise<string | undefined> {
  if (inputs.adoptId === undefined) return undefined;
  const adopted = snapshotToAdopt(await listOrGone(client, inputs.instanceId), inputs, inputs.adoptId);
  return "refusal" in adopted ? adopted.refusal : undefined;
}

/** The Snapshot provider (registered as `providers.Snapshot`). */
export const snapshotProvider = defineResourceProvider<SnapshotInputs, SnapshotOutputs>({
  inputsSchema,
  // (one of the name with another description is someone else's: named, never taken; see takeSnapshot)
  findUnconfirmed: async (recorded) => {
    if (!recorded.instanceId || !recorded.name) return [];
    const named = ((await listOrGone(getClient(), recorded.instanceId)) ?? []).filter((s) => s.name === recorded.name);
    const fits = (s: ApiSnapshot) => recorded.description === undefined || s.description === recorded.description;
    return { fitting: named.filter(fits).map((s) => s.id), unlike: named.filter((s) => !fits(s)).map((s) => s.id) };
  },
  // (the inputs ignoreChanges keeps as the state has them: neither a change nor a new declaration, diff.ts)
  diff: (olds, news, id, refresh) => {
    const adopted = isAdoptedIn(olds, news, id);
    const refusal = snapshotUpdateRefusal(id, olds, news, ignoredInputs(news));
    const panel = refusal !== undefined;
    refuseWhileItsVmIsUnknown(
      "Snapshot", id, olds, news,
      adopted ? "was adopted (adoptId)" : panel ? "was changed in the panel (its name or description)" : undefined,
      adopted
        ? "Keep the VM in this up (no change that replaces it), or remove adoptId: this snapshot then goes with the old VM and a new one is taken of the new VM."
        : isDependentsQuestion(id)
        // (the engine's question before a delete-before-replace, asked with the last up's inputs: common/asked-diffs.ts)
        ? "Keep the VM in this up (no change that replaces it), or declare the snapshot's name and description as they are now and run " +
          "pulumi up once without the change that replaces the VM (it records them, nothing is sent to the API; the VM is replaced " +
          "delete-before-replace, and the engine asks about its snapshots with what the last up declared): it is then replaced with the VM."
        : "Keep the VM in this up (no change that replaces it), or declare the snapshot's name and description as they are now: it is then replaced with the VM.",
    );
    // A name or description changed in the panel: the update refuses it before any write, and so does the Diff of a
    // preview or up (preview calls Check and Diff, never Update: pulumi/pulumi pkg/resource/deploy/step_generator.go),
    // so a `pulumi preview --refresh` on a pull request fails as the up after the merge would. Not the Diff of a
    // refresh, which shows the panel's value as drift and records it (common/refresh-diffs.ts, diff.ts).
    if (refusal && !refresh) throw new ProviderError(refusal);
    return diffSnapshot(olds, news, id, ignoredInputs(news));
  },

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
      return { id, outs: snapshotOutputs(declaring(inputs), snapshot) };
    } catch (error) {
      throw await initError(client, inputs, id, error);
    }
  },

  async read(id: string, props: SnapshotOutputs): Promise<pulumi.dynamic.ReadResult<Partial<SnapshotOutputs>>> {
    if (!props?.instanceId) throw new ProviderError(`cannot read snapshot ${id}: the state has no instanceId`);
    const list = await listOrGone(getClient(), props.instanceId);
    const snapshot = list?.find((s) => sameUuid(s.id, id));
    if (!snapshot) return {}; // the snapshot (or its instance) is gone
    // (declaredName and declaredDescription are carried as the state has them: the panel's values go to name and
    // description only, so the next diff sees that the panel, not the program, changed them; diff.ts)
    const outs = snapshotOutputs(props, snapshot);
    // No \`inputs\`: the engine would store them as the resource's inputs, and every later refresh diffs against
    // them (RefreshStep.Apply, pulumi/pulumi pkg/resource/deploy/step.go): from the second refresh on, drift stayed
    // hidden, and a change undone in the panel showed as drift. The inputs of the last up stay (see Instance read).
    return { id, props: outs };
  },

  /**
   * Only provider-only inputs (timeouts, adoptId) change in place, and the declared name and description once the program
   * declares what the panel set: nothing to send, just record them.
   */
  async update(id: string, olds: SnapshotOutputs, news: SnapshotInputs): Promise<pulumi.dynamic.UpdateResult<SnapshotOutputs>> {
    // A name or description changed in the panel: never replaced (it would delete this restore point), refused before any call
    const ignored = ignoredInputs(news);
    const refusal = snapshotUpdateRefusal(id, olds, news, ignored);
    if (refusal) throw new ProviderError(refusal);
    // name and description as the program now declares them (the diff let no other update through: the snapshot has
    // them), except those ignoreChanges keeps: there news has the state's value, not the program's, and recording it
    // would make the panel's value look declared once the option is removed (diff.ts, declarationsKept)
    const carried: Carried = { ...declaring(news), instanceId: olds.instanceId, ...declarationsKept(olds, ignored) };
    const client = getClient();
    const list = await listOrGone(client, news.instanceId);
    let snapshot = list?.find((s) => sameUuid(s.id, id));
    if (!snapshot) throw new ProviderError(`snapshot ${id} of instance ${news.instanceId} no longer exists: run pulumi refresh (it leaves the state), then pulumi up to take a new one`);
    // The update an init error forces (or a provider-only change) must not report an unfinished or failed snapshot
    // as done. One still being taken (its create ran out of time) is waited for, as the create would have.
    if (snapshotProgress(snapshot.status) === "pending") {
      try {
        // (the wait of its create, so timeouts.create bounds it: a Snapshot has no update deadline of its own)
        snapshot = await waitReady(client, news.instanceId, id, resourceDeadline(news.timeouts, "create"));
      } catch (error) {
        throw await initError(client, news, id, error, carried);
      }
    }
    const outs = snapshotOutputs(carried, snapshot);
    // A failed one: the error records what was seen (status included), so the next diff replaces it (diff.ts); an
    // adopted one is never replaced, so the user decides.
    if (snapshotProgress(snapshot.status) === "failed") {
      const message =
        news.adoptId === undefined
          ? `snapshot ${id} of instance ${news.instanceId} is in status ${snapshot.status}: its take failed and it cannot be repaired; \`pulumi up\` again takes a new one in its place and deletes it`
          : `snapshot ${id} of instance ${news.instanceId} (adopted) is in status ${snapshot.status}, and an adopted snapshot is never replaced ` +
            "(the new one would adopt it again): delete it (pulumi destroy, or in the panel), or remove adoptId so that up takes a new one";
      throw new ResourceInitError(message, id, outs, [message]);
    }
    return { outs };
  },

  async delete(id: string, props: SnapshotOutputs): Promise<void> {
    objectDeleted(id); // (deleted on purpose: its VM's delete need not keep it, common/kept-with-vm.ts)
    const client = getClient();
    const deadline = resourceDeadline(props.timeouts, "delete");
    const present = async () => {
      const list = await listOrGone(client, props.instanceId);
      return list?.find((s) => sameUuid(s.id, id));
    };
    if (!(await present())) return; // already gone (or its instance is): nothing to do
    try {
      await runInstanceOperation(
        client,
        props.instanceId,
        { what: `deletion of snapshot ${id} of instance ${props.instanceId}`, deadline, kind: KIND_DELETE },
        () => client.snapshots.delete(props.instanceId, id), // resolves undefined on 404: already gone
      );
    } catch (error) {
      // the instance vanished meanwhile: its snapshots went with it
      if (!(await listOrGone(client, props.instanceId))) return;
      throw error;
    }
    const started = systemClock.now();
    const shared = sharedSnapshotList(client, props.instanceId);
    const expectedMs = expectedDuration(client, `${KIND_DELETE}-gone`);
    // When the last list that still showed the snapshot was answered: it went after that.
    let presentSeenAt: number | undefined;
    let failedWith: string | undefined;
    await pollUntil<void>({
      what: `snapshot ${id} of instance ${props.instanceId} to be deleted`,
      deadline,
      expectedMs,
      log: progressLog,
      schedule: sharedPollSchedule(),
      poll: async () => {
        const snapshot = (await shared.read())?.find((s) => sameUuid(s.id, id));
        if (!snapshot) return { done: true, value: undefined };
        if (snapshotProgress(snapshot.status) === "failed") {
          failedWith = snapshot.status;
          return { failed: true, message: `the API reports status ${snapshot.status}` };
        }
        presentSeenAt = systemClock.now();
        return { done: false, status: snapshot.status };
      },
    }).catch((e: unknown) => {
      // (audit: "… to be deleted failed: the API reports status Error" said neither that the snapshot is still
      // there, billing, nor what to do)
      if (failedWith === undefined) throw e;
      throw new ProviderError(
        `snapshot ${id} of instance ${props.instanceId} was not deleted: the API reports status ${failedWith} for it after its delete, ` +
          "and it is still listed (it may bill). It stays in the stack: the next `pulumi destroy` (or `pulumi up`, for a snapshot " +
          "the program no longer declares) sends the delete again; or delete it in the host's panel and run `pulumi refresh`.",
        { cause: e },
      );
    });
    learnFromWait(client, `${KIND_DELETE}-gone`, { started, expectedMs, runningSeenAt: presentSeenAt, endedAt: systemClock.now(), intervalMs: shared.intervalMs });
  },
});
