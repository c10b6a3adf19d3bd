/**
 * The Instance dynamic provider: check, diff, create (create / clone / adopt), read, update, delete.
 *
 * Safety rules (design.md §5) and how they are kept here:
 * - Once the API has answered an instance uuid, every later failure is a `ResourceInitError` carrying the id
 *   and the truest outputs we can read, so Pulumi records the VM instead of forgetting a machine that bills.
 * - A create or clone is sent through `writeExactlyOnce` (common/reconcile.ts): an ambiguous failure is
 *   reconciled BEFORE any retry, with reads that survive transient failures until the deadline.
 * - A create never makes a twin: an instance with the same hostname in the same location that this stack
 *   does not know (left by an interrupted `up`, or by a reconciliation that could not finish) stops the
 *   create with a message naming it and `adoptId`. The one legitimate twin, the old VM of a
 *   create-before-delete replacement, is known from Diff (common/replacements.ts).
 * - An adopted VM is never replaced: a replace-forcing difference is refused in Diff (no API call), since the
 *   "replacement" would re-adopt the same VM and the engine would then delete it.
 * - A VM in status Error is repaired by `up` (started, then stopped again if declared stopped) or the update fails
 *   naming the status; it is never reported as converged. Deleting it always works.
 * - Every operation on the VM goes through `runInstanceOperation` (per-instance lock, wait until idle, busy
 *   answers retried, wait until settled), so parallel resources on one VM never collide. One deadline per
 *   create/update/delete bounds all of it.
 */
import type * as pulumi from "@pulumi/pulumi";
import {
  AmbiguousRequestError, BusyError, ForbiddenError, MethodNotAllowedError, NotFoundError, PaymentRequiredError, ResponseFormatError, RouteNotFoundError,
  UnauthorizedError, ValidationError, type VmHostClient,
} from "../../api";
import type { InstanceDetail } from "../../api/schemas/instances";
import { systemClock } from "../../clock";
import { getClient, progressLog, resourceDeadline } from "../../context";
import { hostnameListingFor } from "../../wait/hostname-listing";
import { isFailureStatus, READ_STATUS_WORDS, runInstanceOperation, sendWhenNotBusy, unknownStatusGraceMs, waitForInstanceGone, waitForInstanceSettled, WaitFailedError, waitUntilIdle, waitUntilIdleStatus } from "../../wait/instance";
import { isTransientPollError, pollUntil, retryUntilDeadline, type Deadline } from "../../wait/poll";
import { defineResourceProvider } from "../common/define";
import { deploymentActivity, QUIET_MS } from "../common/activity";
import { adoptionMayBegin, adoptionStage } from "../common/adoptions";
import { askedAddressesFor, droppingNoteOnceRecorded, noteNames, type AddressNote } from "../common/asked-addresses";
import { vmPinningAddress } from "../common/address-owners";
import { instanceLock } from "../common/lock";
import { refuseDeletingVmWithKeptObjects } from "../common/kept-with-vm";
import { deletedOutsidePulumi, errorClause, errorText, ProviderError, ResourceInitError } from "../common/errors";
import { dedicatedTierRefusal, templateMinimums } from "../common/preflight";
import { leavePrivateNetwork } from "../common/private-network";
import { acceptedLookPauses, answeredWith2xx, readPersistently, twinsLandedAfterResend, UnconfirmedWriteError, writeExactlyOnce } from "../common/reconcile";
import { isUnconfirmedId } from "../common/unconfirmed";
import { detachedStackAddressOfVm, instanceIdentity, instancesMadeHere, leavingIdentity, objectsOfThisStack, replacedByThisDeployment, replacedUnderOldIdentity, replacementsInProgress, standingBesideCreate } from "../common/replacements";
import { putAddressBack, takeAddressFromReplacedVm } from "../common/pinned-address";
import { isUnknown } from "../common/check";
import { isAdoptedIn, knownKeys, replacesRequestedByOption } from "../common/replace-on-changes";
import { statusMeaning } from "../../api/normalize";
import { adoptionRefusal, describeStep, diffInstance, diskShrinkRefusal, planInstanceUpdate, plannedAddress, type UpdateStep } from "./diff";
import { checkInstanceInputs, createMode, inputsSchema, type InstanceInputs, type InstanceOutputs } from "./inputs";
import { adoptionMismatches, inputsFromState, powerStateOf, resolveVswitchId, toOutputs, type VswitchRef } from "./model";

// ---------------------------------------------------------------------------------------------- outputs

async function vswitchRefs(client: VmHostClient): Promise<VswitchRef[]> {
  return (await client.network.listVswitches()).map((v) => ({ uuid: v.uuid, name: v.name, networkIp: v.network_ip, location: v.location?.name ?? null }));
}

/** The outputs of an instance for the user's declared inputs (resolves the private network only when managed). */
async function outputsFor(
  client: VmHostClient, detail: InstanceDetail, declared: Partial<InstanceInputs>, reservedPublicIpId: string | null | undefined,
  made: string | null | undefined,
): Promise<InstanceOutputs> {
  let vswitchId: string | undefined;
  if (declared.vswitchId !== undefined)
    vswitchId = detail.private_network === null ? "" : resolveVswitchId(detail.private_network, await vswitchRefs(client), detail.location ?? undefined);
  const outs = toOutputs(detail, declared, vswitchId);
  // The address this resource took off the VM stays reserved in the account (the API cannot release an
  // unassigned address): remembered so the next `publicIp: true` reuses it and delete releases it.
  const reserved = reservedPublicIpId && detail.public_ip?.ip_id !== reservedPublicIpId ? reservedPublicIpId : undefined;
  return withMade(reserved ? { ...outs, reservedPublicIpId: reserved } : outs, made);
}

/**
 * `outs` with `madePublicIpId` (see madeAddressOf). Undefined = not known yet (the API was asked for an address and
 * the VM does not show it yet): neither it nor `publicIpId` is recorded, so the next operation takes the address the
 * VM then holds as the one the API gave (a state without either is read that way).
 */
function withMade<T extends Record<string, unknown>>(outs: T, made: string | null | undefined): T {
  if (made !== undefined) return { ...outs, madePublicIpId: made };
  const { madePublicIpId: _made, publicIpId: _seen, ...rest } = outs;
  return rest as T;
}

/**
 * The address the API gave this resource (the `madePublicIpId` output), from a state: the only address the
 * resource keeps to reuse or releases with its VM. An address that appeared on the VM out of band (a reserved
 * address of the user's swapped in, or one added in the panel) or one the program pins is never it (soak: the
 * user's reserved address, swapped in in the panel, was released by the VM's delete, and the resource's own
 * stayed reserved in no state).
 *
 * A state written before this output (undefined, not null) keeps the earlier rule, so an existing stack neither
 * leaks nor releases differently: the address it kept reserved, else the address the state records when the
 * program manages it and does not pin it. A state that never saw the VM's address (no `publicIpId`: a create
 * whose report could not read the VM) takes `seen`, the address the VM holds now; undefined while that is unknown.
 */
function madeAddressOf(state: Partial<InstanceOutputs>, seen: string | null | undefined, noted?: AddressNote): string | null | undefined {
  const ruled = madeAddressByState(state, seen);
  if (ruled !== null || noted === undefined) return ruled;
  // A note of this machine (common/asked-addresses.ts) the state could not record: an add of this resource's no run
  // recorded (the address the VM holds is the one it asked for), or the API's address a removed PublicIp left to this
  // Instance (that address only). Undefined until the VM is read; never the address the program pins (the user's).
  if (seen === undefined) return undefined;
  const same = (a: unknown) => typeof a === "string" && typeof seen === "string" && a.toLowerCase() === seen.toLowerCase();
  if (typeof seen !== "string" || seen === "" || same(state.publicNetworkId) || same(state.usersPublicIpId)) return null;
  return noted.address === undefined || same(noted.address) ? seen : null;
}

function madeAddressByState(state: Partial<InstanceOutputs>, seen: string | null | undefined): string | null | undefined {
  if (state.madePublicIpId !== undefined) return state.madePublicIpId;
  if (state.reservedPublicIpId) return state.reservedPublicIpId;
  if (!managesAddress(state)) return null;
  const recorded = state.publicIpId === undefined ? seen : state.publicIpId;
  if (recorded === undefined) return undefined;
  return typeof recorded === "string" && recorded !== "" && recorded !== state.publicNetworkId ? recorded : null;
}

/**
 * The note of this machine about VM `id`'s address that no state holds yet (common/asked-addresses.ts). With `held`
 * (the detail's `public_ip`: the VM was read), resolved to the address the VM holds when the note names it, else to
 * none: a note is never taken for an address it does not name (audit: the user's address, put on in the panel after
 * a killed add had answered, became the resource's).
 */
function addressNoteOf(client: VmHostClient, id: string, held?: InstanceDetail["public_ip"]): AddressNote | undefined {
  const note = askedAddressesFor(client.baseUrl).noteOf(id, "Instance");
  if (note === undefined || held === undefined) return note;
  return { address: held?.ip_id && noteNames(note, held) ? held.ip_id : "" };
}

/**
 * Outputs for an error report: fresh if the API answers, else `lastKnown` (never throws).
 *
 * `lastKnown` must hold only values the VM was SEEN with (an update passes its old outputs), never the declared
 * ones as if observed: the next up plans from the recorded outputs, and a resize recorded as done that never
 * happened would never be sent again. A create has seen nothing yet and passes its declared values; the status
 * "Unknown" recorded with them makes the next diff show a change and the next update plan from a fresh read
 * (see `planFromTruth`), never from these values.
 */
async function bestEffortOutputs(
  client: VmHostClient, id: string, declared: Partial<InstanceInputs>, reservedPublicIpId: string | null | undefined,
  lastKnown: Record<string, unknown>, ctx: StepContext,
): Promise<Record<string, unknown>> {
  try {
    const detail = await client.instances.find(id);
    if (detail) return notSeenAtRestIfBusy(await outputsFor(client, detail, declared, reservedPublicIpId, madeAsOf(ctx, detail)), detail);
  } catch {
    // the report must not hide the original failure
  }
  // Not read: what the address may now be reserved is kept too (over-remembering is harmless: a take-back or
  // reuse of an address that is not reserved is refused by the API, or skipped when the VM holds it).
  const { reservedPublicIpId: _old, ...rest } = lastKnown;
  return withMade({ ...rest, status: "Unknown", ...(reservedPublicIpId ? { reservedPublicIpId } : {}) }, madeAsOf(ctx, undefined));
}

/**
 * Outputs of a VM read while an operation runs on it show the VM before the operation ends (a tier change still
 * shows the old tier), so an error report that recorded them as they are handed the next up a false end state: a
 * program asking for that old value again planned nothing, and the operation then finished on the value no longer
 * declared (soak: an up reported success with the VM on tier 3, tier 2 declared). Status "Unknown" marks them as
 * not seen at rest: the next diff shows a change, and the update waits for the VM to be idle and plans from what
 * it became (planFromTruth). A refresh keeps the mark while the operation still runs (read).
 */
function notSeenAtRestIfBusy<T extends { status: string }>(outs: T, detail: Pick<InstanceDetail, "operation_flag">): T {
  return detail.operation_flag !== 0 ? { ...outs, status: "Unknown" } : outs;
}

/**
 * The steps of an update, planned from the state, or from a fresh read when the state's values were not
 * observed: status "Unknown" is written by an error report that could not read the VM (for a create, with the
 * declared values). Planning from those could skip a step the VM never got (a clone's resize) and report it
 * converged. Answers the detail it read, so the first step does not read it again.
 */
async function planFromTruth(
  client: VmHostClient, id: string, olds: Partial<InstanceOutputs>, news: Partial<InstanceInputs>, deadline: Deadline,
): Promise<{ steps: UpdateStep[]; current?: InstanceDetail }> {
  if (olds.status !== "Unknown") return { steps: planInstanceUpdate(olds, news) };
  // An operation of an earlier run may still be running: planned from what it left, not from the VM half-way.
  const current =
    (await waitUntilIdle(client, id, { what: `instance ${id} to finish its running operation before planning`, deadline })) ??
    (await client.instances.get(id));
  const made = madeAddressOf(olds, current.public_ip?.ip_id ?? null, addressNoteOf(client, id, current.public_ip)) ?? null;
  const seen = await outputsFor(client, current, inputsFromState(olds as Record<string, unknown>), olds.reservedPublicIpId, made);
  progressLog(`instance ${id}: its last recorded status is Unknown (it could not be read after a failure); planning from a fresh read`);
  return { steps: planInstanceUpdate(seen, news), current };
}

/**
 * A refusal that comes back the same at every run until the user changes something outside the program: the key
 * (401, 403), the account's credit or quota (402), the base URL or a route (404 for the route, 405). Its message names
 * the fix; "`pulumi up` retries what is left" alone read as if running again would do (facts audit).
 */
function needsFixFirst(e: unknown): boolean {
  return [UnauthorizedError, ForbiddenError, PaymentRequiredError, RouteNotFoundError, MethodNotAllowedError].some((kind) => e instanceof kind);
}

// ---------------------------------------------------------------------------------------------- update steps

/** True when the detail already shows what the step asks for (the step is then skipped, or its wait ends). */
function satisfied(step: UpdateStep, d: InstanceDetail, vswitches: readonly VswitchRef[]): boolean {
  switch (step.kind) {
    case "repair": return !isFailureStatus(d.status);
    case "changeTier": return d.tier_id === step.tierId;
    case "resize": return d.cpu === step.cpu && d.memory === step.memory && d.storage === step.storage && d.is_cpu_dedicated === step.dedicatedCpu;
    case "hostname": return d.hostname === step.hostname;
    case "password": return false; // write-only: never visible
    case "publicAddress":
      if (step.action === "add") return d.public_ip !== null;
      if (step.giveBack) return d.public_ip?.ip_id !== step.giveBack;
      if (step.action === "remove") return d.public_ip === null;
      return d.public_ip?.ip_id === step.publicNetworkId;
    case "privateNetwork":
      if (step.vswitchId === "") return d.private_network === null;
      return d.private_network !== null && resolveVswitchId(d.private_network, vswitches, d.location ?? undefined) === step.vswitchId;
    case "power": return powerStateOf(d.status) === step.state;
  }
}

/**
 * The address this resource made (madeAddressOf), as a candidate for "taken off by this resource", when the
 * program manages the address (publicIp or publicNetworkId declared); null otherwise.
 *
 * An earlier update may have taken it off and died before its outputs were written (the process killed, the
 * answer lost): the engine then still holds the old outputs, and this run finds the step already satisfied and
 * skips it. Deciding "reserved, ours to release" from whether this run's call returned would forget the address
 * for good. The made address compared with the fresh detail decides instead: outputsFor keeps the candidate
 * only when the VM no longer holds it. An address the program does not manage is never claimed: it may belong
 * to a PublicIp resource.
 */
function addressOfState(made: string | null | undefined, news: Partial<InstanceInputs>): string | null {
  if (plannedAddress(news) === undefined) return null;
  return made ?? null;
}

/** What update steps carry from one to the next: the address this resource keeps reserved for reuse. */
interface StepContext {
  /** See the `reservedPublicIpId` output: null once reused or released. */
  reservedPublicIpId: string | null;
  /**
   * See the `madePublicIpId` output (madeAddressOf): the address the API gave this resource, null when none, undefined
   * while not known. Only it is ever kept as `reservedPublicIpId`.
   */
  made: string | null | undefined;
  /** The API was asked for an address (a create with one, addPublicIp): the address the VM then holds is the made one. */
  madePending?: boolean;
  /**
   * The host answered the add 2xx without the address: it took the request, and a host that queues the work adds the
   * address later, maybe after this operation gave up. Until the VM shows one, what the API gave is unknown, not none
   * (soak: recorded as none, the address that came later was never the stack's, left reserved after the destroy).
   */
  addTaken?: boolean;
  /**
   * The reserved address the program pinned before this update (the state's `publicNetworkId`): the user's own,
   * reserved before it was pinned. Swapped off, it goes back to the account as it was, and is never kept as this
   * resource's to release (soak: swapped for another reserved address, it was then released with the VM, and a
   * program pinning it again was refused at every up).
   */
  pinnedBefore?: string | null;
  /**
   * A password request was sent (maybe done, maybe not: its answer lost, or the wait after it failed). The VM's
   * password is then unknown, and recorded so (unset): recording the old one, a program declaring that old
   * password again planned nothing, and the VM kept the one sent (soak).
   */
  passwordSent?: boolean;
}

/**
 * Adds a public address to a VM without one. The address this resource removed earlier (still reserved in
 * the account, and billing) is assigned back first, so toggling `publicIp` never piles up reserved
 * addresses; when it is no longer usable (released, taken, another location) a new one is added.
 */
async function addPublicAddress(client: VmHostClient, id: string, ctx: StepContext): Promise<unknown> {
  if (ctx.reservedPublicIpId) {
    const reserved = ctx.reservedPublicIpId;
    try {
      const answer = await client.network.changePublicIp(id, { publicNetwork: reserved });
      ctx.reservedPublicIpId = null;
      progressLog(`instance ${id}: reusing its earlier public address ${reserved}`);
      return answer;
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      progressLog(`instance ${id}: its earlier public address ${reserved} cannot be reused (${errorText(e)}); adding a new one`);
      ctx.reservedPublicIpId = null;
      if (ctx.made === reserved) ctx.made = null; // no longer this VM's: released, or held by another VM
    }
  }
  // Marked before the call: an answer lost after the host did it still makes the address the VM then holds ours.
  // Noted outside this process too: a run killed before its outputs were written leaves the engine the old ones.
  ctx.madePending = true;
  const notes = askedAddressesFor(client.baseUrl);
  notes.note(id, "Instance");
  const answer = await client.network.addPublicIp(id);
  if (answer.ip_address) notes.answered(id, "Instance", answer.ip_address);
  return answer;
}

/**
 * The made address as of `detail` (see StepContext.made): when the API was asked for one, the address the VM holds;
 * undefined while that is unknown (not read, or the VM still busy with no address).
 */
function madeAsOf(ctx: StepContext, detail: InstanceDetail | undefined): string | null | undefined {
  if (!ctx.madePending) return ctx.made;
  if (detail?.public_ip) return detail.public_ip.ip_id;
  return detail !== undefined && detail.operation_flag === 0 && !ctx.addTaken ? (ctx.made ?? null) : undefined;
}

async function send(client: VmHostClient, id: string, step: UpdateStep, ctx: StepContext, before: InstanceDetail): Promise<unknown> {
  switch (step.kind) {
    case "repair": return client.instances.start(id);
    case "changeTier": return client.instances.changeTier(id, { tierId: step.tierId });
    case "resize":
      return client.instances.resize(id, { cpu: step.cpu, memory: step.memory, storage: step.storage, useDedicatedCpu: step.dedicatedCpu });
    case "hostname": return client.instances.updateHostname(id, { hostname: step.hostname });
    case "password":
      ctx.passwordSent = true;
      return client.instances.setPassword(id, { password: step.password });
    case "publicAddress": {
      if (step.action === "add") return addPublicAddress(client, id, ctx);
      // Removing (a blank public_network) or swapping leaves the old address reserved in the account: remember it.
      // Remembered BEFORE the call, not once it answered: a 5xx after the host did it, a run of resets, or a
      // process killed mid-call would otherwise leave the address reserved (billing) with no state knowing it.
      // Whether it really came off is decided from the fresh detail (outputsFor keeps it only when the VM no
      // longer holds it), so a call that did nothing records nothing.
      // Only the address the API gave this resource is kept (see madeAddressOf): one put on the VM out of band (the
      // user's reserved address swapped in, one added in the panel) goes back to the account and is forgotten (soak:
      // the user's address, recorded by a refresh and taken off by `publicIp: false`, was released by the delete).
      const previous = before.public_ip?.ip_id ?? null;
      if (previous && previous === ctx.pinnedBefore) {
        // the user's reserved address: back to the account as it was
      } else if (previous && previous !== step.publicNetworkId && previous === ctx.made) ctx.reservedPublicIpId = previous;
      else if (previous && previous !== step.publicNetworkId)
        // Not ours to release, and the API cannot release an address that is on no VM. Said, not hidden.
        progressLog(
          `instance ${id}: address ${before.public_ip?.ip_address ?? previous} (${previous}) comes off and stays reserved in your account (it may ` +
            "bill): this instance's state does not know it as given by the API (it was put on the VM outside Pulumi, or added by an `up` " +
            "that could not record it), so it is not kept to reuse or released with the VM. Release it in the host's panel, or assign it " +
            "to a VM deleted with its address.",
        );
      return client.network.changePublicIp(id, { publicNetwork: step.action === "remove" ? null : step.publicNetworkId! });
    }
    case "privateNetwork": return step.vswitchId === "" ? leavePrivateNetwork(client, id) : client.network.updatePrivateNetwork(id, { vswitch: step.vswitchId });
    case "power": return step.state === "running" ? client.instances.start(id) : client.instances.stop(id);
  }
}

/**
 * Runs `operation` (an update step), and once more when it pins a reserved address (`publicNetworkId`) that the host
 * refused (422: held by another VM) and the rest of the deployment has since caught up (common/activity.ts): the
 * address may be on a VM this up replaces (taken off it: common/pinned-address.ts) or on one whose update in this up
 * pins another address (audit: two Instances passing an address on failed whenever the taker ran first, saying
 * "change the program", and only the next up went through). The 422 changed nothing, so a second one is the answer.
 * Outside the VM's lock: what is waited for may need it.
 */
async function sendAgainOnceAddressMayBeFree<T>(
  client: VmHostClient, step: UpdateStep, deadline: Deadline, operation: () => Promise<T>, swap?: { id: string; pinnedBefore?: string | null },
): Promise<T> {
  try {
    return await operation();
  } catch (e) {
    if (step.kind !== "publicAddress" || step.action !== "assign" || !(e instanceof ValidationError)) throw e;
    const gaveUp = swap ? await giveUpPinnedAddressAnotherTakes(client, swap.id, swap.pinnedBefore, step.publicNetworkId!, deadline) : false;
    const waited = await deploymentActivity.waitForOthers(deadline);
    // Also when nothing else runs: a replacement recorded half-way (its `replacing`, noted by its Diff) pins an
    // address its old VM holds, and that VM is deleted only at the end of an up that succeeds (step_generator.go
    // GenerateDeletes), so nothing else would ever free it (soak-145: refused at every up, stuck).
    const takenFrom = await takeAddressFromReplacedVm(client, step.publicNetworkId!, "this instance", deadline);
    if (!waited && !gaveUp && takenFrom === undefined) throw e;
    try {
      return await operation();
    } catch (again) {
      // The swap did not complete (the other Instance's update failed, a third VM holds the wanted address): the VM
      // gets back the address it gave up, while that is still free (audit: left with no address, the user's in the account).
      if (gaveUp && swap?.pinnedBefore) await takeBackPinnedAddress(client, swap.id, swap.pinnedBefore, step.publicNetworkId!, deadline);
      throw again;
    }
  }
}

/**
 * After a swap that did not complete, VM `id` gets back `address` (the one it gave up) or, when the other side took that
 * one already and only this VM's resend failed (a network error), the `wanted` one it declares, which is then free
 * (audit: left with none). Best effort: said when neither can be assigned.
 */
async function takeBackPinnedAddress(client: VmHostClient, id: string, address: string, wanted: string, deadline: Deadline): Promise<void> {
  for (const candidate of [address, wanted]) {
    try {
      await runInstanceOperation(
        client,
        id,
        { what: `instance ${id} to take reserved address ${candidate}`, deadline, until: (d) => d.public_ip !== null },
        async () => {
          if ((await client.instances.get(id)).public_ip !== null) return;
          await client.network.changePublicIp(id, { publicNetwork: candidate });
        },
      );
      progressLog(`instance ${id}: the swap did not complete here; it holds the reserved address ${candidate}`);
      return;
    } catch (e) {
      if (!(e instanceof ValidationError)) {
        progressLog(`instance ${id}: the swap did not complete, and assigning reserved address ${candidate} failed (${errorText(e)}): \`pulumi up\` again assigns what the program pins`);
        return;
      }
    }
  }
  progressLog(`instance ${id}: the swap did not complete, and neither ${address} nor ${wanted} could be assigned (other VMs hold them): \`pulumi up\` again assigns what the program pins`);
}

/** The ways out when the host refuses a pinned reserved address held by another VM, also after the rest of the up ran. */
const PINNED_ADDRESS_HELD_ADVICE =
  "If another VM holds it, free it there (in its program or the panel) and run `pulumi up` again. If a resource this up " +
  "removes from the program holds it (an Instance or a PublicIp pinning it), Pulumi deletes that resource only at the end of " +
  "an up that went through, after this step, so every up fails here: run one `pulumi up` without this pin (or without this " +
  "Instance), then pin it again. The same holds when the VM holding it belongs to a resource that depends on this Instance. " +
  "If no VM holds it, check publicNetworkId: it takes the uuid of a reserved public address of this account in the VM's " +
  "location, not the address itself nor another object's uuid (getInstance({ instanceId }).publicIp.ipId shows a VM's).";

/**
 * Two Instances swapping their pinned reserved addresses in one up (audit): each VM holds what the other now pins, so
 * both assigns were refused, both waited for the other, and both were refused again, at every up. Before the one
 * resend, the address this VM holds is taken off when it is the user's address its program pinned before (the state's
 * publicNetworkId, `pinnedBefore`) and another Instance of this up pins it now: it goes back to the account as the
 * reserved address it was, and the other's resend finds it free. Done before the wait for the others, which counts
 * it as running, so neither resend goes out before both addresses are free. Nothing else is ever taken off here.
 * Answers whether it took the address off (the resend is then made even if the deployment was quiet already).
 */
async function giveUpPinnedAddressAnotherTakes(
  client: VmHostClient, id: string, pinnedBefore: string | null | undefined, wanted: string, deadline: Deadline,
): Promise<boolean> {
  if (!pinnedBefore || pinnedBefore.toLowerCase() === wanted.toLowerCase()) return false;
  const taker = vmPinningAddress(pinnedBefore, id);
  if (!taker) return false;
  // Only a swap of two: the taker holds what this VM wants, or nothing (it gave it back for this swap already). Audit: in
  // a rotation of three with one side refused, a VM gave its address up and was left with none, its wanted address held
  // by the side that never moved.
  const takerHolds = (await client.instances.find(taker))?.public_ip?.ip_id ?? null;
  if (takerHolds !== null && takerHolds.toLowerCase() !== wanted.toLowerCase()) return false;
  const holds = (d: InstanceDetail) => d.public_ip?.ip_id?.toLowerCase() === pinnedBefore.toLowerCase();
  let gaveUp = false;
  await runInstanceOperation(
    client,
    id,
    { what: `instance ${id} to give reserved address ${pinnedBefore} back for instance ${taker}`, deadline, until: (d) => !holds(d) },
    async () => {
      if (!holds(await client.instances.get(id))) return;
      progressLog(`instance ${id}: giving the reserved address ${pinnedBefore} back to your account first: instance ${taker} pins it in this up`);
      gaveUp = true;
      await client.network.changePublicIp(id, { publicNetwork: null });
    },
  );
  return gaveUp;
}

/** The error of a repair that did not work, naming the ways out that do. */
function repairFailed(id: string, cause: unknown): ProviderError {
  return new ProviderError(
    `instance ${id} is in status Error and starting it did not repair it (${errorText(cause)}). Ways out: replace it with a new VM ` +
      "(`pulumi up --replace <urn of this Instance>`; the data on this one is lost), repair it in the host's panel and run " +
      "`pulumi refresh`, or delete it with `pulumi destroy`",
    { cause },
  );
}

/**
 * Runs update steps in order, each through `runInstanceOperation` and waited until the detail shows it.
 * A step the VM already satisfies is skipped (a re-run after a half-done update does not repeat work).
 * `applied` collects the kinds done, for the error report of a failure half-way. `declaredPowerState` (the program's
 * powerState, unset when not managed) is the state the VM is left in, also when no step of the plan asked for it.
 */
async function runSteps(
  client: VmHostClient, id: string, steps: UpdateStep[], deadline: Deadline, applied: Set<UpdateStep["kind"]>, ctx: StepContext,
  declaredPowerState: InstanceInputs["powerState"], current?: InstanceDetail,
): Promise<InstanceDetail> {
  // `current`: a detail just read after the VM settled (create), so it is not read twice.
  let detail = current ?? (await client.instances.get(id));
  // An update with nothing planned (only timeouts or deleteOptions changed, or the engine's continuation of a create
  // recorded with an error) still ends as declared when the VM, idle, is plainly not so: in Error (repaired now;
  // failing with "`pulumi up` again starts it" cost a second up for what this one could do), or stopped/started in
  // the panel against a declared powerState. A VM busy or in a status word that says neither is left as it is:
  // a running operation is nobody's to judge half-way, and an unknown word is the create continuation's to refuse.
  const meaning = statusMeaning(detail.status);
  const acts =
    steps.length > 0 ||
    (detail.operation_flag === 0 &&
      (isFailureStatus(detail.status) || (declaredPowerState !== undefined && (meaning === "running" || meaning === "stopped") && meaning !== declaredPowerState)));
  // An operation still running (an earlier up killed or timed out after sending it, the panel): what it does
  // shows only when it ends. Judged on the VM half-way, a step it already does looked undone and was sent a
  // second time (audit: a second resize after a killed up), and a start still under way looked like a repair
  // done (the up reported success; the start then failed).
  if (acts && detail.operation_flag !== 0) {
    detail =
      (await waitUntilIdle(client, id, { what: `instance ${id} to finish the operation running on it before updating`, deadline })) ??
      (await client.instances.get(id));
  }
  // In Error now, though the plan (from the state) saw it well: an operation of an interrupted up that failed after the
  // engine was killed (the state kept the outputs from before it), or one started in the panel. Repaired first, as a
  // plan from a fresh read would (update audit: the tier change was sent to the broken VM, and the up then failed
  // asking for another up to start it).
  if (acts && isFailureStatus(detail.status) && !steps.some((s) => s.kind === "repair")) {
    progressLog(`instance ${id} is in status ${detail.status} (not as the state recorded it): starting it first to repair it`);
    steps.unshift({ kind: "repair" });
  }
  // The declared power state is looked at last, whatever the plan: a step may leave the VM in another one. The repair
  // starts it, and a power state the state already recorded planned no power step, so a VM declared stopped was left
  // running by an up that reported success (soak stop16e-52: a resize failed into Error after the engine was killed, and
  // the re-run started, resized and joined it, and never stopped it). It costs no request when the VM is as declared.
  if (acts && declaredPowerState !== undefined && !steps.some((s) => s.kind === "power")) steps.push({ kind: "power", state: declaredPowerState });
  const vswitches = steps.some((s) => s.kind === "privateNetwork") ? await vswitchRefs(client) : [];
  for (const step of steps) {
    if (satisfied(step, detail, vswitches)) {
      applied.add(step.kind);
      continue;
    }
    const what = describeStep(step, id);
    progressLog(`${what}`);
    const before = detail;
    // Once a request of this step may have reached the API (an attempt answered "busy", or lost), every later
    // attempt first looks whether the VM, idle again, already shows it: the busy answer may have been to our own
    // request's operation (audit: a resize whose answer was lost was sent again once the VM was idle, a second
    // resize operation; resize and change tier are `once` routes since, so the client no longer repeats them).
    let mayHaveReachedApi = false;
    let sentAgainAfterLoss = false;
    try {
      const result = await sendAgainOnceAddressMayBeFree(client, step, deadline, () => runInstanceOperation(
        client,
        id,
        {
          what,
          deadline,
          until: step.kind === "password" ? undefined : (d) => satisfied(step, d, vswitches),
          untilIsStatusWord: step.kind === "power",
          // polling learns how long each kind takes on this host (hosts differ: a resize takes 20 s or 3 min)
          kind: step.kind === "power" ? `power-${step.state}` : step.kind === "repair" ? "power-running" : step.kind,
          // a repair that ends in Error again has failed: say so at once instead of waiting for the deadline
          failOnErrorStatus: step.kind === "repair" ? true : undefined,
        },
        async () => {
          if (mayHaveReachedApi && step.kind !== "password" && satisfied(step, await client.instances.get(id), vswitches)) return undefined;
          mayHaveReachedApi = true;
          try {
            return await send(client, id, step, ctx, before);
          } catch (e) {
            // A request that is `once` (add an address, resize, change tier) is never sent again blindly: once the
            // VM is idle (what it started shows only when it ends), look whether it happened before failing.
            if (e instanceof AmbiguousRequestError) {
              // (before anything that can fail: the wait for idle below ran out in the soak, and the add was then
              // recorded as having made nothing while its queued address came later)
              if (step.kind === "publicAddress" && step.action === "add" && answeredWith2xx(e)) ctx.addTaken = true;
              const after =
                (await waitUntilIdle(client, id, { what: `instance ${id} to be idle after an answer that was lost`, deadline })) ??
                (await readPersistently(`instance ${id}`, deadline, () => client.instances.get(id)));
              if (step.kind !== "password" && satisfied(step, after, vswitches)) return undefined;
              // An address add the host answered 2xx without the address (`data: null`): it took the request, and a host
              // that queues the work adds the address a moment later. Looked for as a create answered so is (the same
              // looks, about 7 s: common/reconcile.ts acceptedLookPauses), never sent again (soak, host profile
              // create-without-id(queued): the add failed at once, and the address that came later was never recorded
              // as the stack's, left reserved in no state after the VM's delete). Not until the deadline: a host that
              // writes its refusal as a 200 would hold the up for timeouts.create (30 minutes by default).
              if (step.kind === "publicAddress" && step.action === "add" && e.cause instanceof ResponseFormatError) {
                progressLog(`${what}: the host answered without the address; looking for it on the VM (it is not sent again)`);
                for (const pause of acceptedLookPauses().slice(1)) {
                  if (deadline.remainingMs() <= 0) break;
                  await systemClock.sleep(Math.min(pause, deadline.remainingMs()));
                  const later =
                    (await waitUntilIdle(client, id, { what: `instance ${id} to be idle after an answer without the address`, deadline })) ??
                    (await readPersistently(`instance ${id}`, deadline, () => client.instances.get(id)));
                  if (satisfied(step, later, vswitches)) return undefined;
                }
              }
              // A resize or tier change that left no trace (idle, the old values, not in Error, not touched since),
              // still none once a request on its way (a gateway that gave up while the backend had it) would have
              // reached the API (the request bound, vmhost:requestTimeout, passed again; audit: sent again at once,
              // a late first one made two resizes): it did not reach it. Sent once more, as the client did when these
              // routes were retried blindly (audit: one dropped connection failed the up). An address add is never
              // sent again this way: a late address would be a second one, billing.
              const untouched = (d: InstanceDetail): boolean => d.updated_at === before.updated_at && !isFailureStatus(d.status);
              if ((step.kind === "resize" || step.kind === "changeTier") && untouched(after) && !sentAgainAfterLoss && deadline.remainingMs() > 2 * client.requestTimeoutMs) {
                sentAgainAfterLoss = true;
                progressLog(`${what}: the answer was lost and the VM shows no change; looking again in ${Math.round(client.requestTimeoutMs / 1000)} s, then sending it once more if still none`);
                await systemClock.sleep(client.requestTimeoutMs);
                const later =
                  (await waitUntilIdle(client, id, { what: `instance ${id} to be idle after an answer that was lost`, deadline })) ??
                  (await readPersistently(`instance ${id}`, deadline, () => client.instances.get(id)));
                if (satisfied(step, later, vswitches)) return undefined;
                if (untouched(later)) return await send(client, id, step, ctx, later);
              }
              // (the client's own text says to check whether it happened: this did; satellites audit). A VM changed since
              // (updated, or in Error) may show this request's trace: then whether it happened is not claimed (review).
              const seen = untouched(after)
                ? "is not as asked and shows no change, so the request did not take effect"
                : `is not as asked but changed since (status ${after.status}): whether the request took effect is not known`;
              throw new ProviderError(
                `${what}: ${errorClause(e.cause instanceof Error ? e.cause : e)}. The VM, read once idle, ${seen}; it was not sent again ` +
                  "(a request still on its way could make it happen twice)",
                { cause: e },
              );
            }
            throw e;
          }
        },
      ), { id, pinnedBefore: ctx.pinnedBefore });
      detail = result.detail;
      if (ctx.madePending && detail.public_ip) {
        ctx.made = detail.public_ip.ip_id;
        ctx.madePending = false;
      }
    } catch (e) {
      throw step.kind === "repair" ? repairFailed(id, e) : e;
    }
    applied.add(step.kind);
  }
  // In Error with no repair that failed (a repair that fails throws above): the VM fell into Error outside this
  // update (or during a later step). Not "starting it did not repair it": no start was tried. The error report
  // records status Error, so the next up plans the repair.
  if (isFailureStatus(detail.status))
    throw new ProviderError(
      `instance ${id} is in status ${detail.status}. \`pulumi up\` again starts it to repair it; other ways out: replace it with a new ` +
        "VM (`pulumi up --replace <urn of this Instance>`; the data on this one is lost), repair it in the host's panel and run " +
        "`pulumi refresh`, or delete it with `pulumi destroy`",
    );
  return detail;
}

// ---------------------------------------------------------------------------------------------- create

/** The identity no two VMs of ours share: the hostname in a location (see common/replacements.ts). */
const identityKey = instanceIdentity;

/**
 * The identity a replacement VM is created under (withReplaceOnChanges notes the old VM there, so the create lets
 * it stand beside the new one: create-before-delete keeps the hostname until the old VM is deleted).
 */
export const instanceReplacementIdentity = (news: Record<string, unknown>): string | undefined =>
  typeof news.hostname === "string" && typeof news.locationId === "number" ? identityKey(news.hostname, news.locationId) : undefined;

/**
 * A replacement's outputs name the VM it replaces (`replacing`, bookkeeping): that VM stays until the end of an
 * up that goes through (the engine deletes it after that up's creates and updates: step_generator.go
 * GenerateDeletes), maybe a later one, whose provider process knows of it only from this resource's Diff. So Diff
 * notes it again, and a reserved address pinned to it still moves to this VM (common/pinned-address.ts; without
 * it the PublicIp's move was refused at every later run: soak, stuck). Also for a replacement that adopts (the
 * user set adoptId on it to take over what an interrupted create made: soak, stuck the same way). Carried by
 * read and update (withReplacing).
 */
function withReplaced(outs: InstanceOutputs, id: string, inputs: Partial<InstanceInputs>): InstanceOutputs {
  return { ...outs, ...replacementRecord(inputs, id) } as InstanceOutputs;
}

/** The bookkeeping outputs of a replacement (none for a create that replaces nothing): see withReplaced. */
interface ReplacementRecord {
  /** The VM this replacement replaces. */
  replacing?: string;
  /**
   * Older VMs of earlier replacements of the same resource, from ups that failed before the engine's deletes, that
   * stood beside the create (common/replacements.ts standingBesideCreate). Absent when none.
   */
  replacingEarlier?: string[];
}

/** What a create with these inputs records of the VMs it replaces (`id`: the new VM, never one of them). */
function replacementRecord(inputs: Partial<InstanceInputs>, id?: string): ReplacementRecord {
  const replacing = replacedBy(inputs, id);
  const identity = instanceReplacementIdentity(inputs as Record<string, unknown>);
  if (!replacing || identity === undefined) return {};
  const earlier = replacementsInProgress
    .idsOf(identity)
    .filter((old) => old !== replacing && old !== id?.toLowerCase() && !isUnconfirmedId(old) && standingBesideCreate.has(identity, old));
  return recordOfReplaced([replacing, ...earlier]);
}

/** The record naming `replaced` (the VM replaced now first), as outputs carry it. */
function recordOfReplaced([replacing, ...earlier]: readonly string[]): ReplacementRecord {
  if (replacing === undefined) return {};
  return earlier.length > 0 ? { replacing, replacingEarlier: earlier } : { replacing };
}

/**
 * The VM a create with these inputs replaces in this deployment (not `id`, the new VM), if any: the one noted last.
 * A Diff notes first the `replacing` its state carries (a VM an earlier replacement replaced, maybe long gone), then
 * (withReplaceOnChanges) the VM it replaces now (audit: a second replacement recorded the first one's old VM, and
 * the next up's create met the current old VM as a stranger).
 */
function replacedBy(inputs: Partial<InstanceInputs>, id?: string): string | undefined {
  const identity = instanceReplacementIdentity(inputs as Record<string, unknown>);
  // (not the placeholder of an unconfirmed create, whose replace is noted too: it is no VM)
  return identity === undefined ? undefined : replacementsInProgress.idsOf(identity).filter((old) => old !== id?.toLowerCase() && !isUnconfirmedId(old)).at(-1);
}

/**
 * Notes, from a state's outputs, the VM its replacement still replaces (`replacing`): Diff of a replacement, and of
 * the placeholder of a replacement's unconfirmed create (soak: without it the next up's create met the old VM,
 * still waiting for its delete, as a stranger, and was refused at every run).
 */
function noteStillReplaced(olds: Record<string, unknown>): void {
  if (typeof olds.hostname !== "string" || typeof olds.locationId !== "number") return;
  for (const old of replacedInState(olds)) replacementsInProgress.note(identityKey(olds.hostname, olds.locationId), old);
}

/**
 * Diff of the placeholder of an unconfirmed create (common/unconfirmed.ts), which this deployment replaces: the VMs it
 * names as replaced are still replaced ({@link noteStillReplaced}), and by this deployment. Such a record exists only
 * after a replacement's create failed unconfirmed, so its up failed before the engine's deletes: those VMs wait,
 * pending delete, for the end of this up (pulumi/pulumi pkg/resource/deploy/step_generator.go GenerateDeletes), like
 * the old VM of a replace this deployment's Diff reported, and what the program now declares on the new VM may be
 * taken from them (a disk: block-storage-attachment/provider.ts takeDiskFromReplacedVm). Before, only a Diff-reported
 * replace counted: the dependents of the VM, declared deletedWith it, were dropped with the placeholder without a
 * Delete call, their disk stayed on the old VM, and the disk attachment's create on the new VM refused at every up
 * (soak stop23c-31, stuck).
 */
function placeholderOfReplacementDiffed(olds: Record<string, unknown>): void {
  noteStillReplaced(olds);
  if (typeof olds.hostname !== "string" || typeof olds.locationId !== "number") return;
  for (const old of replacedInState(olds)) replacedByThisDeployment.note(identityKey(olds.hostname, olds.locationId), old);
}

/** The VMs a state's bookkeeping names as replaced (`replacing`, then `replacingEarlier`). */
function replacedInState(state: Record<string, unknown>): string[] {
  const earlier = Array.isArray(state.replacingEarlier) ? state.replacingEarlier.filter((x): x is string => typeof x === "string") : [];
  return typeof state.replacing === "string" ? [state.replacing, ...earlier] : [];
}

/**
 * Instances named `hostname` in `locationId` right now (exact name: `search` may match substrings; the list
 * rows name the location only as text, so the location is checked on each detail).
 */
async function instancesNamedIn(client: VmHostClient, hostname: string, locationId: number): Promise<string[]> {
  return (await instanceDetailsNamedIn(client, hostname, locationId)).map((d) => d.uuid);
}

/** The details of the instances named `hostname` in `locationId` right now (see instancesNamedIn). */
async function instanceDetailsNamedIn(client: VmHostClient, hostname: string, locationId: number): Promise<InstanceDetail[]> {
  // One listing serves every create asking at that moment, always one that started after the ask (so never one
  // from before this create's POST when looking for what the POST made): wait/hostname-listing.ts.
  const named = await hostnameListingFor(client).named(hostname);
  const details = await Promise.all(named.map((r) => client.instances.find(r.uuid)));
  return details.filter((d): d is InstanceDetail => d !== undefined && d.location_id === locationId);
}

/**
 * Whether a VM can be the one a create or clone with these inputs made: the tier (and, for a create, the sizes and
 * user) it asked for. A VM of the same hostname that differs was made by someone else (another stack, a VM
 * renamed into the hostname), so neither the look after an ambiguous create nor an unconfirmed record's
 * resolution takes it (fleet audit: a create took a VM renamed into its hostname, then resized it to its own
 * sizes, and two resources held it).
 */
function couldBeMadeBy(inputs: Partial<InstanceInputs>, d: InstanceDetail, cloneSource?: InstanceDetail): boolean {
  if (typeof inputs.tierId === "number" && d.tier_id !== inputs.tierId) return false;
  // A clone is a copy of its source's disk: its template, user and disk size are the source's (the declared sizes are
  // applied only after the clone). Without that comparison, a VM another stack or a colleague made under the
  // hostname on the same tier was taken for an ambiguous clone, resized to its declared sizes and managed by two
  // stacks (multistack audit). The source gone (a later refresh), only the tier can be compared.
  if (inputs.cloneFrom !== undefined)
    return cloneSource === undefined ||
      (d.username === cloneSource.username && d.os.template_id === cloneSource.os.template_id && d.storage === cloneSource.storage);
  if (inputs.adoptId !== undefined) return true;
  return (
    (inputs.cpu === undefined || d.cpu === inputs.cpu) && (inputs.memory === undefined || d.memory === inputs.memory) &&
    (inputs.storage === undefined || d.storage === inputs.storage) && (inputs.username === undefined || d.username === inputs.username)
  );
}

/**
 * Waits (within the create's deadline) until the VMs of this stack that this up renames away from `hostname` no
 * longer hold it (`leavingIdentity`): the engine runs their update beside this create, and the name is only free
 * once the rename is done. A rename that fails is forgotten there, so the wait ends and the create is refused as a
 * clash inside the stack (fleet audit: refused at once, though the program was valid; freed at diff, two VMs of
 * the stack kept one name when the rename then failed).
 */
async function waitForRenamesAway(client: VmHostClient, hostname: string, locationId: number, deadline: Deadline): Promise<void> {
  const key = identityKey(hostname, locationId);
  if (leavingIdentity.idsOf(key).length === 0) return;
  // A rename is an update, tracked while it runs (common/activity.ts), and the engine sends it right after the Diff
  // that noted it. So when nothing of this up has run here for a quiet pause, the rename is not coming: the engine
  // runs no more steps at once than --parallel, and creates waiting like this one hold them all (audit: --parallel
  // 1, the create waited to its deadline, 30 minutes by default). This wait does not count as running.
  let quietSince: number | undefined;
  await deploymentActivity.asWaiting(() =>
    pollUntil<void>({
      what: `instance(s) renamed by this up to leave hostname ${hostname} in location ${locationId}`,
      deadline,
      log: progressLog,
      poll: async () => {
        const holding = (await instancesNamedIn(client, hostname, locationId)).filter((uuid) => leavingIdentity.has(key, uuid));
        if (holding.length === 0) return { done: true, value: undefined };
        quietSince = deploymentActivity.isQuiet() ? (quietSince ?? Date.now()) : undefined;
        if (quietSince !== undefined && Date.now() - quietSince >= QUIET_MS)
          throw new ProviderError(
            `hostname: instance ${holding.join(", ")} still holds hostname ${hostname} in location ${locationId}: another Instance of ` +
              "this up renames it away, but that update has not started while nothing else of this up runs, so no second VM was " +
              "created. The engine runs at most --parallel steps at once, and creates waiting for a name can take them all: give " +
              "this Instance dependsOn on the renaming Instance (the rename then runs first), or raise --parallel.",
          );
        return { done: false, status: `still named ${hostname}: ${holding.join(", ")}` };
      },
    }),
  );
}

/** How many times a create may be sent in all; each re-send follows a look that found nothing. */
const MAX_CREATE_SENDS = 3;

/**
 * Sends a create (or clone) so that exactly one VM results (common/reconcile.ts), refusing to make a twin of
 * a VM with the same hostname in the location that this stack does not know. The VMs this up replaces are known
 * from Diff, and those renamed away are waited for; nothing else may stand there.
 */
async function createExactlyOnce(
  client: VmHostClient, inputs: Partial<InstanceInputs>, hostname: string, locationId: number, deadline: Deadline, sendRequest: () => Promise<string>,
  cloneSource?: InstanceDetail,
): Promise<string> {
  const key = identityKey(hostname, locationId);
  // The VMs renamed away by this up may become known only while this create lists (their Diff comes later when
  // they are declared later): then nothing was sent, and the create waits for the rename and lists again.
  for (;;) {
    await waitForRenamesAway(client, hostname, locationId, deadline);
    try {
      return await createBesideNoStranger(client, inputs, key, hostname, locationId, deadline, sendRequest, cloneSource);
    } catch (e) {
      if (e instanceof StrangerHere) {
        // Nothing was sent. A VM another resource of this up adopts (adoptId) and renames away: once that adoption
        // has ended, look again (audit: refused at once, and the message advised adopting it a second time). The
        // adoption itself first waits for the deployment to be quiet, which this wait does not hold up.
        const adopted = e.strangers.filter((uuid) => adoptionStage(uuid) !== undefined);
        if (adopted.length > 0) {
          progressLog(`instance ${adopted.join(", ")} holds hostname ${hostname}: another resource of this up adopts it; deciding once that adoption has ended`);
          const underway = (uuid: string): boolean => adoptionStage(uuid) === "adopting" || adoptionMayBegin(uuid);
          if (await deploymentActivity.waitWhile(() => adopted.some(underway), deadline)) continue;
        }
        // The VM may be one another Instance of this up renames away, diffed late (it waits for a resource still
        // running): once the rest of the deployment has caught up, look again; if it was caught up already, the VM
        // is a stranger indeed (common/activity.ts).
        progressLog(`instance ${e.strangers.join(", ")}, unknown to this stack, holds hostname ${hostname}: deciding once this up's other operations have ended`);
        if (await deploymentActivity.waitForOthers(deadline)) continue;
        throw e;
      }
      if (!(e instanceof RenameAwayPending)) throw e;
      if (deadline.expired()) throw new ProviderError(`timed out waiting for the instance(s) this up renames away to leave hostname ${hostname}`);
    }
  }
}

/**
 * After a create sent again, whether the earlier request landed late after all (twinsLandedAfterResend): that VM is in
 * no state and bills, so the up fails naming it, this resource's VM recorded (its outputs), for the user to delete
 * the twin. Not deleted here: a VM of the hostname that appeared meanwhile may be another stack's.
 */
async function refuseLateTwins(id: string, hostname: string, outs: InstanceOutputs): Promise<void> {
  const twins = await twinsLandedAfterResend(id).catch(() => undefined);
  if (!twins?.length) return;
  const message = `instance ${id} (${hostname}) was created, but ${lateTwinsText(hostname, twins)} This Instance is recorded.`;
  throw new LateTwinError(message, id, outs, [message]);
}

/** What a late twin is and what to do with it (refuseLateTwins, and a create that failed after a resend). */
function lateTwinsText(hostname: string, twins: readonly string[]): string {
  return (
    `${twins.join(", ")} named ${hostname} appeared too: most likely the first create request, which failed without an answer and ` +
    "was sent again, was carried out late by the host. It is in no state and bills: delete it in the host's panel (or manage it " +
    "with adoptId in another resource) if it is not someone else's."
  );
}

/** refuseLateTwins' error: this VM is ready and recorded as it is, so the create's catch passes it on unchanged. */
class LateTwinError extends ResourceInitError {}

/** Thrown by a create's check of the VMs already named like it when they are all being renamed away by this up. */
class RenameAwayPending extends Error {}

/** Thrown, before any create is sent, when VMs this stack does not know hold the hostname; the message is for the user. */
class StrangerHere extends ProviderError {
  constructor(message: string, readonly strangers: string[]) {
    super(message);
  }
}

/** One listing and (unless refused) one create of the VM, through writeExactlyOnce (see createExactlyOnce). */
async function createBesideNoStranger(
  client: VmHostClient, inputs: Partial<InstanceInputs>, key: string, hostname: string, locationId: number, deadline: Deadline,
  sendRequest: () => Promise<string>, cloneSource?: InstanceDetail,
): Promise<string> {
  // The details of the VMs listed under the hostname (what the refusal below says of them).
  const listed = new Map<string, InstanceDetail>();
  const id = await writeExactlyOnce({
    what: `instance ${hostname} in location ${locationId}`,
    identity: key,
    deadline,
    maxSends: MAX_CREATE_SENDS,
    requestBoundMs: client.requestTimeoutMs,
    howToFind: `getInstances({ search: "${hostname}" }) or the host's panel`,
    candidates: async () => {
      const details = await instanceDetailsNamedIn(client, hostname, locationId);
      for (const d of details) listed.set(d.uuid, d);
      return details.map((d) => d.uuid);
    },
    madeByThisWrite: async (uuid) => {
      const d = await readPersistently(`instance ${uuid}`, deadline, () => client.instances.find(uuid));
      return d !== undefined && couldBeMadeBy(inputs, d, cloneSource);
    },
    refuseBeside: (existing) => {
      // A VM this up replaces stands beside a create of its hostname until the engine deletes it at the end: its
      // replacement's, and a new Instance's taking the name a renamed replacement leaves. Only under that hostname:
      // a VM a replacement once named (`replacing` is carried on) may have outlived it (retainOnDelete) and is
      // nobody's twin elsewhere (audit).
      for (const uuid of existing) if (replacementsInProgress.isBeingReplaced(key, uuid)) standingBesideCreate.note(key, uuid);
      const strangers = existing.filter((uuid) => !replacementsInProgress.isBeingReplaced(key, uuid) && !replacedUnderOldIdentity.has(key, uuid));
      if (strangers.length === 0) return;
      if (strangers.every((uuid) => leavingIdentity.has(key, uuid))) throw new RenameAwayPending();
      const ofThisStack = strangers.filter((uuid) => objectsOfThisStack.has(key, uuid) || adoptionStage(uuid) === "recorded");
      if (ofThisStack.length > 0) {
        throw new ProviderError(
          `hostname: instance ${ofThisStack[0]} named ${hostname} in location ${locationId} belongs to another resource of this stack, ` +
            "so no second one was created: two Instances cannot share a hostname in one location. Give this Instance another " +
            "hostname. (Replacing an Instance with `pulumi up --replace` while keeping its hostname needs the resource option " +
            "deleteBeforeReplace: true.)",
        );
      }
      // No --import-pending-creates advice: that flag only rewrites the pending operation, and no code of the engine
      // turns it into a resource (pulumi/pulumi pkg/cmd/pulumi/operations/refresh.go pendingCreatesToImports; the
      // snapshot keeps only pending creates: pkg/backend/snapshot.go snap()). adoptId is the tested way.
      // The causes in the order a user meets them. A VM another Instance of this stack renames away in this up is
      // unknown here when that Instance's Diff comes after this create: the SDK registers a resource only once its
      // dependsOn and inputs are done, so one waiting for another resource is diffed late (rename audit: adopting it,
      // as this message once advised first, made two resources own it). A resource renamed or moved under a
      // component without aliases is a new resource to the engine, and its old VM a stranger.
      const adoptedHere = strangers.filter((uuid) => adoptionStage(uuid) !== undefined);
      if (adoptedHere.length > 0)
        throw new StrangerHere(
          `hostname: instance ${adoptedHere[0]} named ${hostname} in location ${locationId} is declared by another resource of this ` +
            "stack (its adoptId), whose adoption did not take it (it failed, or has not run), so no second one was created. Fix " +
            "that resource's error and run pulumi up again; if it renames the VM away, give this Instance dependsOn on it.",
          strangers,
        );
      // Stacks of one program on one account (staging and prod, two CI jobs) meet here when they share a hostname: the
      // advice to adopt must not read as the way out for them (multistack audit: followed, the second stack resized the
      // first's VM to its own declaration, and its destroy deleted it). A VM unlike what this resource's create would
      // have made (tier, sizes, user) is said to be so.
      const unlike = strangers.filter((uuid) => {
        const d = listed.get(uuid);
        return d !== undefined && !couldBeMadeBy(inputs, d, cloneSource);
      });
      const differs =
        unlike.length === 0
          ? ""
          : `${unlike.join(", ")} differs from what this Instance declares (tier, sizes or user), so unless the program changed since, ` +
            "it is not a VM an interrupted create of this resource made. ";
      throw new StrangerHere(
        `hostname: an instance named ${hostname} already exists in location ${locationId} (${strangers.join(", ")}) and this ` +
          "resource does not manage it, so no second one was created. " + differs +
          "It may be another stack's or someone else's on this account (stacks of one program sharing an account need a " +
          "hostname each, e.g. from stack config or pulumi.getStack()): never adopt those, since adopting makes the VM as this " +
          "Instance declares and this stack's destroy would delete it. If another Instance of this stack renames it away in " +
          "this up, its update came too late: if it waits for another resource, give this Instance dependsOn on that Instance; " +
          "if it depends on this one, do the rename in an up of its own first. If it is the old VM of another Instance's " +
          "replacement that a failed `pulumi up` left (the engine deletes it only at the end of an up without errors), run " +
          "`pulumi up --target <that Instance's urn>` first. If you renamed this resource or moved it under a component, add " +
          "the resource option aliases with its old name or parent. If it was left by an interrupted or failed `pulumi up` " +
          "and no resource of this stack holds it (`pulumi stack export` lists their ids), set " +
          `adoptId: "${strangers[0]}" on this Instance to manage it (then \`pulumi refresh --clear-pending-creates\` ` +
          "drops Pulumi's warning about the interrupted create, once every VM it names is adopted or deleted). Never adopt a VM " +
          "another resource of this stack declares (with `--target` or `--exclude` the provider cannot tell which those are). " +
          "Otherwise, if it is nobody's, delete it, or choose another hostname. (Replacing an Instance with `pulumi up --replace` " +
          "while keeping its hostname needs the resource option deleteBeforeReplace: true.)",
        strangers,
      );
    },
    send: sendRequest,
  });
  objectsOfThisStack.note(key, id);
  instancesMadeHere.add(id.toLowerCase());
  return id;
}

/** The address an adopted VM came with: this resource's (madeAddressOf), unless it is the reserved address the program pins. */
function adoptedAddress(detail: InstanceDetail, inputs: Partial<InstanceInputs>): string | null {
  const holding = detail.public_ip?.ip_id ?? null;
  return holding !== null && holding.toLowerCase() !== inputs.publicNetworkId?.toLowerCase() ? holding : null;
}

async function createInstance(inputs: InstanceInputs): Promise<pulumi.dynamic.CreateResult<InstanceOutputs>> {
  const client = getClient();
  const deadline = resourceDeadline(inputs.timeouts, "create");
  const mode = createMode(inputs);

  if (mode === "adopt") {
    const id = inputs.adoptId!;
    const found = await client.instances.find(id);
    if (!found) throw new ProviderError(`adoptId: there is no instance ${id} to adopt (check the uuid with getInstances)`);
    // What would force a replace must already match: otherwise the next up would "replace" the adopted VM, which
    // re-adopts it and then deletes it (and a declared disk smaller than the VM's cannot be reached).
    const mismatches = adoptionMismatches(found, inputs);
    if (mismatches.length > 0)
      throw new ProviderError(
        `cannot adopt instance ${id} as declared (${mismatches.join("; ")}). An adopted VM ` +
          "is never replaced and disks only grow, so these cannot change: declare the VM's values (or leave them unset). Nothing was changed.",
      );
    // A tier without the VM's dedicated CPUs: the API refuses the tier change after the VM was recorded (preview says so too)
    const dedicated = await dedicatedTierRefusal(() => client, id, { tierId: found.tier_id, dedicatedCpu: found.is_cpu_dedicated }, inputs);
    if (dedicated) throw new ProviderError(dedicated);
    if (inputs.sshKeys !== undefined || inputs.backups !== undefined)
      progressLog(
        `adopting instance ${id}: the API does not show a VM's ssh keys or backup setting, so the declared sshKeys/backups ` +
          "are recorded as declared but not checked against the VM",
      );
    // What is recorded before adoption has set a declared password: without it (write-only, so recorded only once
    // set), or the next up would plan no password step and the VM keep its old password for good.
    const unset = { ...inputs, password: undefined };
    // A VM in Error can be adopted too (to repair or delete it under Pulumi): only a running operation is waited out.
    let detail: InstanceDetail | undefined;
    try {
      detail = await waitUntilIdle(client, id, { what: `instance ${id} (adopted) to be idle`, deadline });
    } catch (e) {
      if (e instanceof ProviderError) throw e;
      // The VM exists, the program names it and it passed the checks above: recorded, with what was seen of it,
      // rather than left out of the state. Left out, a VM still being made (an interrupted create adopted as the
      // refusal advises) outlived every short deadline, and a user who gave up held it twice over (soak, tight
      // timeouts.create). The next up waits for its operation again.
      const message =
        `instance ${id} was adopted, but waiting for it to be idle failed: ${errorClause(e)}. It is recorded in the stack: ` +
        "`pulumi up` waits for it again, and `pulumi destroy` deletes it.";
      const seenCtx: StepContext = { reservedPublicIpId: null, made: adoptedAddress(found, inputs) };
      const seen = await outputsFor(client, found, unset, undefined, seenCtx.made);
      throw new ResourceInitError(message, id, withReplaced((await bestEffortOutputs(client, id, unset, undefined, seen, seenCtx)) as InstanceOutputs, id, inputs), [message], { cause: e });
    }
    if (!detail) throw new ProviderError(`adoptId: instance ${id} disappeared while being adopted`);
    // The address the VM came with is this resource's from now on (the user handed the VM over with it).
    const ctx: StepContext = { reservedPublicIpId: null, made: adoptedAddress(detail, inputs) };
    const outs = await outputsFor(client, detail, unset, undefined, ctx.made);
    // Recorded, but the up fails: a stack whose up succeeded must not hold a VM in Error (e.g. the VM of an
    // interrupted replacement that failed, adopted as the refusal advises: the old VM would then be deleted).
    // The init error makes the next up update it, which starts it (the repair); after a refresh the diff asks for
    // the repair by itself (status Error).
    if (isFailureStatus(detail.status)) {
      const message =
        `instance ${id} was adopted, but it is in status ${detail.status}: it is recorded in the stack, and \`pulumi up\` again ` +
        "starts it to repair it (or delete it with `pulumi destroy`)";
      throw new ResourceInitError(message, id, withReplaced(outs, id, inputs), [message]);
    }
    // Then made as declared in the same up, as PublicIp and FirewallRule adoption do (and Terraform's import
    // blocks: import and update in one apply). Left for "the next up", an up reported success on a VM not as
    // the program says, and the `preview --refresh --expect-no-changes` a pipeline runs next failed; after an
    // interrupted create, the adopted VM lacked what the killed create had still to do (a stop, an address).
    // A declared password is set: it is write-only, so whether the VM has it cannot be seen, and recording it
    // unset made a clone adopted after an interrupted up keep its SOURCE's password forever (soak).
    const steps = planInstanceUpdate(outs, inputs);
    if (steps.length === 0) return { id, outs: withReplaced(outs, id, inputs) };
    progressLog(`adopting instance ${id}: making it as declared (${steps.map((s) => describeStep(s, id)).join("; ")})`);
    const applied = new Set<UpdateStep["kind"]>();
    try {
      const fresh = await runSteps(client, id, steps, deadline, applied, ctx, inputs.powerState, detail);
      return { id, outs: withReplaced(await outputsFor(client, fresh, inputs, ctx.reservedPublicIpId, madeAsOf(ctx, fresh)), id, inputs) };
    } catch (e) {
      const message =
        `instance ${id} was adopted, but making it as declared failed: ${errorClause(e)}. It is recorded in the stack: ` +
        "`pulumi up` reads it again and finishes the change, and `pulumi destroy` deletes it.";
      const declared = applied.has("password") ? inputs : unset;
      const recorded = await bestEffortOutputs(client, id, declared, ctx.reservedPublicIpId, { ...outs, password: declared.password }, ctx);
      throw new ResourceInitError(message, id, withReplaced(recorded as InstanceOutputs, id, inputs), [message], { cause: e });
    }
  }

  const hostname = inputs.hostname!;
  const locationId = inputs.locationId!;
  // A replacement keeping its reserved address: the old VM still holds it (create-before-delete). Taken off it
  // first; put back when the create then fails with no VM recorded (the old VM stays the stack's, as it was). Not
  // once a new VM is recorded: the engine deletes the old one first at the next up, which would release it.
  const pinned = inputs.publicNetworkId;
  let takenFrom = pinned ? await takeAddressFromReplacedVm(client, pinned, `the new instance ${hostname}`, deadline) : undefined;
  const makeVm = async (): Promise<string> => {
    if (mode === "clone") {
      const sourceId = inputs.cloneFrom!;
      const source = await client.instances.find(sourceId);
      if (!source) throw new ProviderError(`cloneFrom: there is no instance ${sourceId} to clone (check the uuid with getInstances)`);
      if (inputs.storage !== undefined && inputs.storage < source.storage)
        throw new ProviderError(
          `storage: a clone starts with its source's ${source.storage} GB disk and disks only grow; set storage to ${source.storage} or more`,
        );
      // Through the SOURCE's operation queue: the API refuses to clone a VM that is busy (an address being
      // attached by another resource in the same up), and a busy answer is waited out and re-sent.
      // runInstanceOperation also waits for the source to settle AFTER the API answered the clone. The clone
      // exists from that answer on, so a failure of that wait (deadline, failed polls, the source busy or in
      // Error) must not escape without the clone's uuid: the engine would record nothing and the clone would
      // bill unseen (design.md §5). The answered uuid is kept, and the clone goes on to its own wait below,
      // whose failures are recorded with its id; the source's own resource deals with the source.
      return createExactlyOnce(client, inputs, hostname, locationId, deadline, async () => {
        let answeredId: string | undefined;
        try {
          await runInstanceOperation(client, sourceId, { what: `instance ${sourceId} to be cloned as ${hostname}`, deadline }, async () => {
            const answer = await client.instances.clone(sourceId, { hostname, locationId, tierId: inputs.tierId! });
            answeredId = answer.uuid;
            return answer;
          });
        } catch (e) {
          if (answeredId === undefined) throw e; // not answered: writeExactlyOnce reconciles an ambiguous failure
          progressLog(`instance ${sourceId} was cloned as ${answeredId} (${hostname}), but waiting for the source afterwards failed (${errorText(e)}); going on with the clone`);
        }
        return answeredId!;
      }, source);
    } else {
      // Checked at preview too (common/preflight.ts); kept here for a create whose check did not see the catalogue.
      const min = await templateMinimums(client, inputs.templateId!);
      for (const [key, value] of [["cpu", inputs.cpu], ["memory", inputs.memory], ["storage", inputs.storage]] as const) {
        const least = min?.[key];
        if (least !== undefined && value !== undefined && value < least)
          throw new ProviderError(`${key}: template ${inputs.templateId} needs at least ${least}${key === "cpu" ? " CPU" : " GB"}; raise ${key} to ${least} or more`);
      }
      const usePublic = inputs.publicIp === true || inputs.publicNetworkId !== undefined;
      return createExactlyOnce(client, inputs, hostname, locationId, deadline, async () =>
        (
          await client.instances.create({
            locationId, tierId: inputs.tierId!, templateId: inputs.templateId!, hostname,
            cpu: inputs.cpu!, memory: inputs.memory!, storage: inputs.storage!, username: inputs.username!, password: inputs.password!,
            usePublicIp: usePublic,
            useDedicatedCpu: inputs.dedicatedCpu ?? null,
            useSharedCpu: inputs.dedicatedCpu === undefined ? null : !inputs.dedicatedCpu,
            vswitch: inputs.vswitchId ? inputs.vswitchId : null,
            sshKeys: inputs.sshKeys ?? null,
            includeBackup: inputs.backups ?? null,
            publicNetwork: inputs.publicNetworkId ?? null,
          })
        ).uuid,
      );
    }
  };
  let id: string;
  try {
    try {
      id = await makeVm();
    } catch (e) {
      // The pinned address refused (422: held by another VM) may be on a VM this up replaces whose Diff came after
      // this create began (declared later: two Instances swapping addresses, both replaced), or on a VM whose update
      // in this up pins another address (audit: failed that up, and only the next one went through). Once the rest
      // of the deployment has caught up (common/activity.ts), taken off a VM being replaced, and the create sent
      // once more in any case: the 422 made nothing, and a second refusal is the answer (audit: refused at every up,
      // and the old VM's delete then released the user's address).
      if (!pinned || !(e instanceof ValidationError)) throw e;
      // Refused for the pinned address once the rest of the up has run: said with the ways out (audit: the host's bare
      // 422 at every up, when the address was held by an Instance or PublicIp the program removes, which the engine
      // deletes only after this create).
      const pinRefused = (refusal: unknown): unknown =>
        refusal instanceof ValidationError && "public_network" in refusal.fieldErrors
          ? new ProviderError(
              `publicNetworkId: the host refused reserved address ${pinned} also after the rest of this up had run, and no VM was ` +
                `created (${errorText(refusal)}). ${PINNED_ADDRESS_HELD_ADVICE}`,
              { cause: refusal },
            )
          : refusal;
      // Quiet already: the Check and Diff the engine sends for the rest of the program are not counted as activity,
      // and the other Instance's Diff (the one that notes its VM as replaced) may be on its way right now. A
      // refused create pauses for it once (e2e replaced-swaps failed one run in three: the 422 came back before the
      // other Diff and the create gave up at once).
      if (!(await deploymentActivity.waitForOthers(deadline))) await systemClock.sleep(Math.min(QUIET_MS, deadline.remainingMs()));
      takenFrom ??= await takeAddressFromReplacedVm(client, pinned, `the new instance ${hostname}`, deadline);
      try {
        id = await makeVm();
      } catch (again) {
        throw pinRefused(again);
      }
    }
  } catch (e) {
    if (takenFrom && !(e instanceof ResourceInitError) && !(e instanceof UnconfirmedWriteError))
      await putAddressBack(client, inputs.publicNetworkId!, takenFrom, deadline);
    // recorded as a replacement's create is (withReplaced)
    if (e instanceof UnconfirmedWriteError) Object.assign(e.recorded, replacementRecord(inputs));
    throw e;
  }

  // From here on the VM exists and bills: every failure carries its id.
  const applied = new Set<UpdateStep["kind"]>();
  // The address the API gives a create asking for one (not a pinned publicNetworkId: the user's), and a clone's, is
  // this resource's (madeAddressOf).
  const ctx: StepContext = { reservedPublicIpId: null, made: null, madePending: mode === "clone" || (inputs.publicIp === true && inputs.publicNetworkId === undefined) };
  try {
    // (only the first wait learns how long a create takes: a look again at a settled VM in an unknown status word took
    // a few ms, and learned as a create's duration it made the usual one kept for this host a few ms: durations.ts)
    const settle = (first: boolean) =>
      waitForInstanceSettled(client, id, {
        what: `instance ${id} (${hostname}) to finish ${mode === "clone" ? "cloning" : "creating"}`,
        deadline,
        kind: first ? mode : undefined,
      });
    const detail = await settledRunningOrStopped(id, await settle(true), () => settle(false), deadline);
    if (ctx.madePending) {
      ctx.made = detail.public_ip?.ip_id ?? null;
      ctx.madePending = false;
    }
    // What create/clone could not set: a clone's sizes, password, address and network; a "stopped" power state.
    const created = await outputsFor(client, detail, inputs, undefined, ctx.made);
    const steps = planInstanceUpdate(mode === "clone" ? { ...created, password: undefined } : created, inputs);
    // (the settled detail is fresh: no second read; runSteps answers the detail read when its last step settled)
    let outs = withReplaced(created, id, inputs);
    if (steps.length > 0) {
      const fresh = await runSteps(client, id, steps, deadline, applied, ctx, inputs.powerState, detail);
      outs = withReplaced(await outputsFor(client, fresh, inputs, ctx.reservedPublicIpId, madeAsOf(ctx, fresh)), id, inputs);
    }
    await refuseLateTwins(id, hostname, outs);
    return { id, outs };
  } catch (e) {
    if (e instanceof LateTwinError) throw e; // (the VM is ready: not "did not become ready", its outputs as read)
    const declared = mode === "clone" && !applied.has("password") ? { ...inputs, password: undefined } : inputs;
    // A create sent again after an ambiguous failure may meet the first request carried out late by the host also when
    // the resent VM then fails (audit: the twin ran in no state, and only a success path looked for it).
    const twins = await twinsLandedAfterResend(id).catch(() => undefined);
    const message =
      `instance ${id} (${hostname}) was ${mode === "clone" ? "cloned" : "created"} but did not become ready: ${errorClause(e)}. ` +
      "It is recorded in the stack: `pulumi up` reads it again and finishes or repairs it (a VM in status Error is started), " +
      "and `pulumi destroy` deletes it." +
      (twins?.length ? ` Also, ${lateTwinsText(hostname, twins)}` : "");
    // Nothing was seen of the VM yet: the declared values, with status Unknown (see bestEffortOutputs).
    const outs = await bestEffortOutputs(client, id, declared, ctx.reservedPublicIpId, declared, ctx);
    throw new ResourceInitError(message, id, withReplaced(outs as InstanceOutputs, id, inputs), [message], { cause: e });
  }
}

/**
 * A created or cloned VM is recorded as done only in a status that says it runs or is off (any case, English or the
 * panels' Indonesian: normalize.ts statusMeaning). Another word ("Provisioned", "Pending", a host's own) is looked at
 * again, bounded, in case it is a step of the create the provider does not know, and then refused by name: taken as
 * settled, a VM the host called broken in its own word was recorded as a good one (real-api-facts audit: "Gagal").
 * A failure status or an operation shown meanwhile ends or continues the usual wait (`settle`).
 */
async function settledRunningOrStopped(
  id: string, detail: InstanceDetail, settle: () => Promise<InstanceDetail>, deadline: Deadline,
): Promise<InstanceDetail> {
  const graceEnds = Date.now() + Math.min(unknownStatusGraceMs(), deadline.remainingMs());
  const knownAtRest = (d: InstanceDetail) => powerStateOf(d.status) === "running" || powerStateOf(d.status) === "stopped";
  let said = false;
  while (!knownAtRest(detail)) {
    if (Date.now() >= graceEnds)
      throw new ProviderError(
        `instance ${id} settled in status "${detail.status}", a word that says neither that it runs nor that it is stopped ` +
          `(the provider knows ${READ_STATUS_WORDS}), and it stayed so for ` +
          `${Math.round(unknownStatusGraceMs() / 1000)} s: whether the VM is ready or broken is unknown, so the create is not ` +
          "recorded as done (look at the VM in the host's panel)",
      );
    if (!said) progressLog(`instance ${id}: status "${detail.status}" says neither running nor stopped; looking again until it does (at most ${Math.round(unknownStatusGraceMs() / 1000)} s)`);
    said = true;
    await systemClock.sleep(Math.min(1_000, Math.max(0, graceEnds - Date.now())));
    detail = await settle();
  }
  return detail;
}

// ---------------------------------------------------------------------------------------------- delete

async function deleteInstance(id: string, props: Partial<InstanceOutputs>): Promise<void> {
  const client = getClient();
  // (a snapshot or rule Pulumi never deletes on its own, on this VM, which a Diff of this run found kept: common/kept-with-vm.ts)
  refuseDeletingVmWithKeptObjects(id);
  const deadline = resourceDeadline(props.timeouts, "delete");
  const options = { removePublicIp: true, removeBlockStorage: false, ...props.deleteOptions };
  const oldHalfOfReplacement = replacementsInProgress.idsUnder("Instance:").includes(id.toLowerCase());
  if (options.removeBlockStorage && oldHalfOfReplacement) {
    // The old half of a replacement: its disks are data the program still wants, not the VM's. With
    // deleteBeforeReplace, a BlockStorageAttachment that is `deletedWith` this VM is not detached first (the
    // engine skips its delete: pkg/resource/deploy/step.go isDeletedWith), so removing block storage here would
    // delete the disk its replacement attaches (attachments audit). Detached and kept instead.
    progressLog(`instance ${id} is deleted as the old half of a replacement: its block storage is detached and kept (deleteOptions.removeBlockStorage applies when the VM itself goes)`);
    options.removeBlockStorage = false;
  }
  const what = `instance ${id} to be deleted`;
  let failedBefore = false;
  await instanceLock.run(
    id,
    async () => {
      // Not runInstanceOperation: a VM in Error must still be deletable, and "settled" after a delete is "gone".
      const gone = await sendWhenNotBusy(what, deadline, async () => {
        const idleWhat = { what: `instance ${id} to be idle before deleting it`, deadline };
        let removeIp = options.removePublicIp;
        const idle = await waitUntilIdleStatus(client, id, idleWhat);
        if (!idle) return true; // already gone: delete is done
        failedBefore = isFailureStatus(idle.status);
        // The address the VM holds, as what said it is idle shows it (a list row on a host that writes addresses null: none).
        const holding = "public_ip" in idle ? idle.public_ip?.ip_address : idle.ip_address;
        if (!removeIp) {
          // The address stays with the account whatever it is: said, as it may bill (and the address of a VM whose create
          // was unconfirmed, deleted by its placeholder's delete, was never in the state: soak).
          if (holding) progressLog(`instance ${id} is deleted keeping its address ${holding}: it stays reserved in your account (deleteOptions.removePublicIp is false) and may bill`);
        } else if (!managesAddress(props)) {
          // The address is not the Instance's to manage (a PublicIp resource's, deletedWith this VM): released with the
          // VM as deleteOptions says. One this resource kept reserved from when it managed it is assigned back first.
          // The user's reserved address the program pinned before it stopped managing the address stays theirs.
          const pipAddress = detachedStackAddressOfVm.get(id.toLowerCase());
          if (props.reservedPublicIpId) {
            const detail = "public_ip" in idle ? idle : await client.instances.find(id);
            if (!detail) return true;
            await releaseReservedAddressWith(client, detail, props.reservedPublicIpId, true, deadline);
          } else if (pipAddress !== undefined) {
            // A PublicIp of this stack made its address for this VM, and its state records it taken off (panel): what
            // the VM holds instead is not the stack's (the user's reserved address, swapped in), ours goes with the VM
            // (unless it went to the PublicIp's replacement: "").
            const detail = "public_ip" in idle ? idle : await client.instances.find(id);
            if (!detail) return true;
            const taken = pipAddress !== "" && (await releaseReservedAddressWith(client, detail, pipAddress, true, deadline, `its PublicIp's address ${pipAddress}`));
            if (!taken && detail.public_ip) {
              removeIp = false;
              progressLog(`instance ${id} is deleted keeping the address it holds (${detail.public_ip.ip_address ?? detail.public_ip.ip_id}): it is not its PublicIp's, so it stays in your account`);
            }
          } else if (props.usersPublicIpId) {
            const detail = "public_ip" in idle ? idle : await client.instances.find(id);
            if (!detail) return true;
            if (detail.public_ip?.ip_id?.toLowerCase() === props.usersPublicIpId.toLowerCase()) {
              removeIp = false;
              progressLog(`instance ${id} is deleted: the reserved address ${props.usersPublicIpId} its program pinned earlier stays in your account`);
            }
          }
          // Which address goes is said (destroy audit: a reserved address of the user's put on the VM in the panel was
          // released without a word; it cannot be told from a PublicIp's deletedWith the VM: README, known limit).
          if (removeIp && holding && !props.reservedPublicIpId && pipAddress === undefined)
            progressLog(
              `instance ${id} is deleted with the address it holds, ${holding}, released (deleteOptions.removePublicIp): this Instance does ` +
                "not manage its address, so it is taken for a PublicIp's deletedWith the VM; a reserved address of yours on the VM goes too",
            );
        } else {
          // Only the address the API gave this resource is released (madeAddressOf): when the VM holds another one
          // (a reserved address of the user's swapped in or put on in the panel, or the one the program pins), ours,
          // reserved in the account, is assigned back first so that it goes with the VM, and the other one returns
          // to the account; with none of ours, the VM is deleted without releasing its address (soak: the user's
          // reserved address was released, and ours stayed reserved in no state). Ours no longer on the VM may also
          // be one an update killed after taking it off left reserved (the engine kept the old outputs, without
          // reservedPublicIpId): this destroy is the last chance to release it.
          const noted = addressNoteOf(client, id);
          const recorded = madeAddressOf(props, undefined, noted);
          // The shared list's row says "idle" without a request of this delete's own; the detail is read only when the
          // row does not show the VM holding what the state recorded as ours. A row's `ip_address: null` is not read as
          // "holds nothing": the hosts' docs sample writes null there (real-api-facts.md), and so taken, a reserved
          // address of the user's put on the VM was released with it (real-api-facts audit).
          const rowTells =
            !("public_ip" in idle) &&
            typeof recorded === "string" && recorded === props.publicIpId && recorded !== props.publicNetworkId &&
            idle.ip_address !== null && idle.ip_address === props.ipAddress;
          if (!rowTells) {
            const detail = "public_ip" in idle ? idle : await client.instances.find(id);
            if (!detail) return true;
            const own = madeAddressOf(props, detail.public_ip?.ip_id ?? null, noted && addressNoteOf(client, id, detail.public_ip)) ?? null;
            let holding = detail.public_ip?.ip_id ?? null;
            if (own !== null && holding?.toLowerCase() !== own.toLowerCase() && (await releaseReservedAddressWith(client, detail, own, true, deadline)))
              holding = own;
            // A reserved address the program pinned (publicNetworkId) is the user's: it existed before this VM and goes
            // back to the account, as a swap or removal in place leaves it, never released with the VM (soak: a destroy
            // released it; audit: two Instances swapping pinned addresses with a replace, where deleting the old VM
            // released the address the other now pins). deleteOptions.removePublicIp is about addresses the VM got.
            // The API's own address is never the user's, even when the state records it as `publicNetworkId`: that
            // output is the address the VM holds, and an up that failed to pin another one records ours there (audit:
            // destroy then left ours reserved in no state, its log calling it pinned).
            if (holding !== null && holding.toLowerCase() === own?.toLowerCase()) {
              // ours: released with the VM
            } else if (holding !== null && props.publicNetworkId && holding.toLowerCase() === props.publicNetworkId.toLowerCase()) {
              removeIp = false;
              progressLog(
                `instance ${id} is deleted${oldHalfOfReplacement ? " as the old half of a replacement" : ""}: the reserved address ` +
                  `${props.publicNetworkId} its program pinned stays in your account` +
                  // A state of an earlier version (no madePublicIpId) also recorded the VM's own address here after an up
                  // that failed to pin another one (upgrade audit): it cannot be told from a pin, so it is said.
                  (props.madePublicIpId === undefined
                    ? " (a state written by an earlier version also records here the VM's own address after an up that failed to " +
                      "pin another one: if you never pinned it, release it in the host's panel)"
                    : ""),
              );
            } else if (holding !== null && holding.toLowerCase() !== own?.toLowerCase()) {
              removeIp = false;
              progressLog(
                `instance ${id} is deleted: the address ${detail.public_ip?.ip_address ?? holding} (${holding}) it holds is not known to its ` +
                  "state as given by the API (put on it outside Pulumi, or added by an `up` that could not record it), so it stays in your " +
                  "account as a reserved address (it may bill): release it in the host's panel if it is not yours",
              );
            }
          }
        }
        await client.instances.delete(id, { removeIp, removeBlockStorage: options.removeBlockStorage });
        return false;
      });
      if (!gone) await waitForInstanceGone(client, id, { what, deadline, failedBefore }).catch((e: unknown) => {
        // (audit: "instance … to be deleted failed: the instance reports status Error" said neither that the VM is
        // still there, billing, nor what to do)
        if (!(e instanceof WaitFailedError)) throw e;
        throw new ProviderError(
          `instance ${id} was not deleted: ${e.detail} after its delete, and the VM still exists (it may bill). It stays in the ` +
            "stack: the next `pulumi destroy` (or `pulumi up`, for a VM the program no longer declares) sends the delete again; or " +
            "delete it in the host's panel and run `pulumi refresh`.",
          { cause: e },
        );
      });
    },
    { deadline, what },
  );
}

/**
 * `outs` with the state's `replacing` and `replacingEarlier` (the VMs a replacement recorded half-way replaces, see
 * createInstance), kept until the engine has deleted them: a stale id only costs a lookup that finds nothing.
 */
function withReplacing(outs: InstanceOutputs, state: Partial<InstanceOutputs>): InstanceOutputs {
  return { ...outs, ...recordOfReplaced(replacedInState(state as Record<string, unknown>)) } as InstanceOutputs;
}

/** True when the Instance's state says it manages the VM's public address (publicIp or publicNetworkId declared). */
const managesAddress = (props: Partial<InstanceOutputs>): boolean => props.publicIp !== undefined || props.publicNetworkId !== undefined;

/**
 * `outs` with `usersPublicIpId`: the reserved address of the user's that the program pinned (`publicNetworkId`) and
 * then stopped managing (neither publicIp nor publicNetworkId declared), while the VM still holds it. The delete of an
 * Instance that does not manage its address releases what the VM holds (a PublicIp's address, deletedWith the VM), so
 * without this record it released the user's address (audit). Dropped once the VM no longer holds it or the program
 * manages the address again (then madePublicIpId decides).
 */
function withUsersAddress(outs: InstanceOutputs, olds: Partial<InstanceOutputs>): InstanceOutputs {
  const { usersPublicIpId: _old, ...rest } = outs;
  if (managesAddress(outs)) return rest as InstanceOutputs;
  const pinned = typeof olds.publicNetworkId === "string" && olds.publicNetworkId !== olds.madePublicIpId ? olds.publicNetworkId : olds.usersPublicIpId;
  return typeof pinned === "string" && outs.publicIpId === pinned ? ({ ...rest, usersPublicIpId: pinned } as InstanceOutputs) : (rest as InstanceOutputs);
}


/**
 * Before a delete that releases the VM's address (`remove_ip`): the address this resource took off the VM
 * earlier is still reserved in the account, and only a delete releases an address. So it is assigned back
 * first and goes with the VM. When the VM holds another address, it was assigned out of band (a reserved address
 * swapped in for ours in the panel: an address this resource made while it kept one reserved does not occur, as
 * the kept one is reused first). Ours is swapped back in, and the other one returns to the account as the reserved
 * address it was; left as it was, the delete released the panel's address and ours stayed reserved in no state
 * (soak, panel changes).
 *
 * Deleting the VM is the last chance to release that address: once the VM is gone no state knows the address
 * and it bills for good. So a take-back that fails (the API unreachable until the deadline, the VM busy, the
 * take-back not settling) fails the delete, and the resource stays in the state for the next destroy. Only a
 * refusal meaning the address is no longer this VM's to take (422: released, held by another VM, another
 * location; 404) lets the delete go on without it. Answers whether the VM now holds `reserved`.
 */
async function releaseReservedAddressWith(
  client: VmHostClient, detail: InstanceDetail, reserved: string | null | undefined, removePublicIp: boolean, deadline: Deadline,
  whose = `this instance's own address ${reserved}`,
): Promise<boolean> {
  const holding = detail.public_ip?.ip_id ?? null;
  if (!reserved || !removePublicIp || holding === reserved) return holding !== null && holding === reserved;
  const id = detail.uuid;
  if (holding !== null)
    progressLog(
      `instance ${id} holds address ${detail.public_ip!.ip_address ?? holding} (${holding}), assigned out of band: before the VM is deleted it goes ` +
        `back to the account as a reserved address, and ${whose} takes its place to be released with the VM`,
    );
  try {
    // A transient failure (5xx, reset) must not leave the address reserved for good: retried until the deadline.
    await retryUntilDeadline(
      { deadline, retryable: isTransientPollError, atDeadline: (last) => (last instanceof Error ? last : new Error(String(last))) },
      () => client.network.changePublicIp(id, { publicNetwork: reserved }),
    );
  } catch (e) {
    if (e instanceof BusyError) throw e; // waited out and sent again by sendWhenNotBusy
    if (e instanceof ValidationError || e instanceof NotFoundError) {
      progressLog(`instance ${id}: its reserved address ${reserved} is no longer this VM's to take back (${errorText(e)}): released, or held by another VM; deleting the VM without it`);
      return false;
    }
    throw new ProviderError(
      `instance ${id} was not deleted: the address ${reserved} it held earlier is still reserved in the account (it may bill), ` +
        `and assigning it back so that the delete releases it failed: ${errorClause(e)}. Deleting the VM now would leave that ` +
        "address with nothing that knows it. Run `pulumi destroy` again when the API answers; to delete the VM and keep the " +
        "address reserved, set `deleteOptions: { removePublicIp: false }` on the Instance and run `pulumi up` first.",
      { cause: e },
    );
  }
  await waitForInstanceSettled(client, id, {
    what: `instance ${id} to take back address ${reserved} before it is deleted`,
    deadline,
    until: (d) => d.public_ip?.ip_id === reserved,
    failOnErrorStatus: false,
  });
  return true;
}

/** A create, update or delete of VM `id` (a create's: from its outcome) drops the note of an add it recorded. */
function handingOverAddress<T>(id: string | undefined, operation: () => Promise<T>): Promise<T> {
  const vmOf = (outcome: T | ResourceInitError) => id ?? (outcome as { id?: string } | undefined)?.id;
  return droppingNoteOnceRecorded(() => getClient().baseUrl, "Instance", vmOf, operation);
}

/**
 * Why an update in place must not run, or undefined: what it would be refused for before any write. Said by the
 * Diff of a preview or up already (see the provider's diff), and checked again by `update`.
 */
async function updateRefusal(id: string, olds: Partial<InstanceOutputs>, news: Partial<InstanceInputs>): Promise<string | undefined> {
  return diskShrinkRefusal(id, olds, news) ?? (await dedicatedTierRefusal(getClient, id, olds, news));
}

async function updateInstance(id: string, olds: InstanceOutputs, news: InstanceInputs): Promise<pulumi.dynamic.UpdateResult<InstanceOutputs>> {
  // Refused before any API call, so a half-applied update never follows (tier changed, disk refused).
  const refusal = await updateRefusal(id, olds, news);
  if (refusal) {
    if (typeof olds.hostname === "string" && typeof olds.locationId === "number") leavingIdentity.forget(identityKey(olds.hostname, olds.locationId), id);
    throw new ProviderError(refusal);
  }
  const client = getClient();
  const deadline = resourceDeadline(news.timeouts, "update");
  const applied = new Set<UpdateStep["kind"]>();
  const noted = addressNoteOf(client, id);
  const made = madeAddressOf(olds, undefined, noted);
  const ctx: StepContext = { reservedPublicIpId: olds.reservedPublicIpId ?? addressOfState(made, news), made, pinnedBefore: olds.publicNetworkId };
  let steps: UpdateStep[] = [];
  try {
    const plan = await planFromTruth(client, id, olds, news, deadline);
    steps = plan.steps;
    let current = plan.current;
    if (ctx.made === undefined) {
      // a state that never saw the VM's address (madeAddressOf): the address it holds now
      current ??= await client.instances.get(id);
      ctx.made = madeAddressOf(olds, current.public_ip?.ip_id ?? null, noted && addressNoteOf(client, id, current.public_ip)) ?? null;
      ctx.reservedPublicIpId ??= addressOfState(ctx.made, news);
    }
    await runSteps(client, id, steps, deadline, applied, ctx, news.powerState, current);
    let fresh = await client.instances.get(id);
    // An update with nothing to change is the engine's continuation of a create recorded with an initialization error
    // (step_generator.go: "generate an empty update step to attempt to continue awaiting initialization"). A create
    // refused because its VM settled in a word that says neither running nor stopped was recorded as done by it,
    // status and all, at the next up (review: "Rusak"): the same looks again, and the same refusal, apply here.
    if (steps.length === 0 && !diffInstance(olds, news).changes && statusMeaning(fresh.status) === undefined) {
      const settle = () => waitForInstanceSettled(client, id, { what: `instance ${id} (${fresh.hostname}) to settle`, deadline });
      fresh = await settledRunningOrStopped(id, fresh, settle, deadline);
    }
    return { outs: withUsersAddress(withReplacing(await outputsFor(client, fresh, news, ctx.reservedPublicIpId, madeAsOf(ctx, fresh)), olds), olds) };
  } catch (e) {
    // A rename that did not happen frees no name: a create of it waiting in this up is then refused as a clash.
    if (steps.some((s) => s.kind === "hostname") && !applied.has("hostname") && typeof olds.hostname === "string" && typeof olds.locationId === "number")
      leavingIdentity.forget(identityKey(olds.hostname, olds.locationId), id);
    // Gone (deleted in the panel): "pulumi up retries" would fail at every up; a refresh is the way on.
    if (applied.size === 0 && (e instanceof NotFoundError || e instanceof WaitFailedError) && (await client.instances.find(id).then((d) => d === undefined, () => false)))
      throw deletedOutsidePulumi(`instance ${id}`, e);
    // Half-way: report what is true now: the new password once set, none when it may or may not be (the next up
    // sets the declared one whatever it is), else the old one.
    const password = applied.has("password") ? news.password : ctx.passwordSent ? undefined : olds.password;
    const declared = { ...news, password };
    const done = steps.filter((s) => applied.has(s.kind)).map((s) => s.kind);
    const failedStep = steps.find((s) => !applied.has(s.kind));
    const message =
      `updating instance ${id} failed: ${errorClause(e)}` +
      (done.length ? ` (done before the failure: ${done.join(", ")})` : "") +
      // A refusal (422) comes back the same at every run: the program has to change, not be run again. Except an
      // address another VM holds: sent again once the rest of this up had run (sendAgainOnceAddressMayBeFree).
      (e instanceof ValidationError && failedStep?.kind === "publicAddress" && failedStep.action === "assign"
        ? `. The state records what the VM has now; the host refused reserved address ${failedStep.publicNetworkId} also after the rest ` +
          `of this \`up\` had run. ${PINNED_ADDRESS_HELD_ADVICE} Otherwise change the program as the host's message says before the next \`pulumi up\`.`
        : e instanceof ValidationError
        ? ". The state records what the VM has now; the host refused the request, so change the program as the host's message says before the next `pulumi up`."
        : needsFixFirst(e)
        ? ". The state records what the VM has now; `pulumi up` retries what is left once the cause above is fixed (it fails the same way until then)."
        : ". The state records what the VM has now; `pulumi up` retries what is left.");
    // Unreadable: the old outputs (last seen), not the new inputs (asked for, maybe never done).
    const lastKnown = { ...(olds as Record<string, unknown>), password };
    const outs = withUsersAddress(withReplacing((await bestEffortOutputs(client, id, declared, ctx.reservedPublicIpId, lastKnown, ctx)) as InstanceOutputs, olds), olds);
    throw new ResourceInitError(message, id, outs, [message], { cause: e });
  }
}

// ---------------------------------------------------------------------------------------------- provider

/** The Instance resource provider (registered as `providers.Instance`). Its check is per mode (create / clone / adopt). */
export const instanceProvider = defineResourceProvider<InstanceInputs, InstanceOutputs>({
  inputsSchema,
  check: checkInstanceInputs,

  async diff(olds, news, id, refresh) {
    // The VM of a resource of this stack (a later create of the same name in this deployment is a clash: see createExactlyOnce)
    if (typeof olds.hostname === "string" && typeof olds.locationId === "number") {
      objectsOfThisStack.note(identityKey(olds.hostname, olds.locationId), id);
      // The VM this one replaces, when its replacement was recorded half-way (see createInstance): still replaced.
      // Not when this up renames it: `replacing` is carried for good, also past a VM that outlived the replacement
      // (retainOnDelete), and noted under the name this Instance leaves it would let a new Instance of that name
      // stand beside that VM (audit).
      if (news.hostname === olds.hostname) noteStillReplaced(olds as Record<string, unknown>);
    }
    const result = diffInstance(olds, news);
    const replaces = result.replaces ?? [];
    if (replaces.length > 0 && isAdoptedIn(olds, news, id)) {
      // Never replace an adopted VM: the replacement would adopt the same VM again, then the engine deletes it.
      // At preview a value still unknown (another resource's output) may turn out the VM's own: not refused yet.
      const known = knownKeys(news, replaces);
      if (known.length === 0) return { ...result, replaces: [] };
      const refusal = adoptionRefusal(id, olds, news, known);
      // Not in a Diff that plans nothing (a refresh's: failing it fails `pulumi refresh` and keeps the VM's drift, e.g.
      // a reinstall in the panel, out of the state; or the engine's question with the last up's inputs): no replace,
      // the Diff of the next preview or up refuses it (common/refresh-diffs.ts, common/asked-diffs.ts).
      if (refusal && refresh) return { ...result, replaces: [] };
      if (refusal) throw new ProviderError(refusal);
    }
    const renamed = typeof olds.hostname === "string" && typeof olds.locationId === "number" && typeof news.hostname === "string" &&
      !isUnknown(news.hostname) && news.hostname !== olds.hostname;
    // replaceOnChanges, applied around this diff, may turn the change into a replace
    const replaced = replaces.length > 0 || replacesRequestedByOption(olds as Record<string, unknown>, news as Record<string, unknown>, result.changedKeys).length > 0;
    if (result.changes && !replaced && !refresh) {
      // What update would refuse before any write (a smaller disk, a tier without the VM's dedicated CPUs) fails the
      // preview here, not the up after the merge: pulumi preview calls Check and Diff, never Update (pulumi/pulumi
      // pkg/resource/deploy/step_generator.go). Not the Diff of a refresh, which only shows what the VM now is: failing
      // it would keep that drift out of the state (common/refresh-diffs.ts). Before any rename is noted below.
      const refusal = await updateRefusal(id, olds, news);
      if (refusal) throw new ProviderError(refusal);
    }
    if (renamed && replaced)
      // Replaced under a new hostname: the old VM keeps its name until the engine deletes it at the end of the up, so a
      // new Instance of the old name may stand beside it (rename audit: refused at every up, as withReplaceOnChanges
      // notes it under the new name only). A later up, after a failure, knows it only as the replacement's
      // `replacing`, under the new name: a documented limit.
      replacedUnderOldIdentity.note(identityKey(olds.hostname as string, olds.locationId as number), id);
    else if (renamed) {
      // A rename in place frees the old hostname for another Instance of this up (fleet audit: refused as a clash
      // before); a create of it waits for the rename (waitForRenamesAway). Under the new name the VM is this
      // stack's: a new Instance declaring it is a clash inside the stack, not told to adopt a stranger (audit).
      leavingIdentity.note(identityKey(olds.hostname as string, olds.locationId as number), id);
      objectsOfThisStack.note(identityKey(news.hostname as string, olds.locationId as number), id);
    }
    return result;
  },

  create: (inputs) => handingOverAddress(undefined, () => createInstance(inputs)),

  placeholderDiffed: placeholderOfReplacementDiffed,

  findUnconfirmed: async (recorded) => {
    if (typeof recorded.hostname !== "string" || typeof recorded.locationId !== "number") return [];
    const client = getClient();
    const named = await instanceDetailsNamedIn(client, recorded.hostname, recorded.locationId);
    const source = typeof recorded.cloneFrom === "string" ? await client.instances.find(recorded.cloneFrom) : undefined;
    return {
      fitting: named.filter((d) => couldBeMadeBy(recorded, d, source)).map((d) => d.uuid),
      unlike: named.filter((d) => !couldBeMadeBy(recorded, d, source)).map((d) => d.uuid),
    };
  },

  async read(id, props) {
    const client = getClient();
    const detail = await client.instances.find(id);
    if (!detail) {
      // Gone (deleted out of band): Pulumi drops it from the state. An address it kept reserved goes out of the state
      // with it, and nothing can release it any more (only a VM's delete releases an address): said, not hidden.
      const kept = (props as Partial<InstanceOutputs> | undefined)?.reservedPublicIpId;
      if (kept)
        progressLog(
          `instance ${id} no longer exists (deleted out of band); the public address ${kept} it kept reserved stays in your account ` +
            "(it may bill): release it in the host's panel",
        );
      return {};
    }
    // Which properties the user manages, and the write-only values (password), come from the state.
    const state = props as Partial<InstanceOutputs> & Record<string, unknown>;
    const declared = inputsFromState(state);
    // The address this Instance made (madeAddressOf; never one put on the VM out of band, nor one the program pins)
    // that left the VM out of band, removed or swapped off in the panel: it stays reserved in the account and bills.
    // Remembered like one taken off here, so the next `publicIp: true` assigns it back instead of piling up a second
    // one, and delete releases it. The VM's current address (publicIpId) is the truth, and never becomes ours.
    // (A note of an earlier run's add is only read here: a preview's refresh is not kept, so only the writes drop it.)
    const made = madeAddressOf(state, detail.public_ip?.ip_id ?? null, addressNoteOf(client, id, detail.public_ip));
    const leftInPanel = managesAddress(declared) && made ? made : undefined;
    const seen = await outputsFor(client, detail, declared, state.reservedPublicIpId ?? leftInPanel, made);
    // Not seen at rest before (an error report, see notSeenAtRestIfBusy) and still mid-operation: still not.
    const outs = state.status === "Unknown" ? notSeenAtRestIfBusy(seen, detail) : seen;
    // No `inputs`: Pulumi then keeps the inputs of the last up (RefreshStep.Apply in pulumi/pulumi
    // pkg/resource/deploy/step.go: `inputs := s.old.Inputs` unless Read returns some). Inputs rebuilt from the
    // state we were given are the outputs of the PREVIOUS read: after a change in the panel and its undo, the
    // refresh that follows would diff the fresh outputs against the drifted value and report drift where there
    // is none (and a clone's or adopted VM's read-back values would look like declared inputs). Drift shows in
    // the outputs, and every refresh and preview diffs them against the program's inputs.
    return { id, props: withUsersAddress(withReplacing(outs, state), state) };
  },

  update: (id, olds, news) => handingOverAddress(id, () => updateInstance(id, olds, news)),

  async delete(id, props) {
    await handingOverAddress(id, () => deleteInstance(id, props));
  },
});
