/**
 * The PublicIp dynamic provider (id = the address uuid, the instance detail's `public_ip.ip_id`).
 *
 * Every operation on the instance goes through `runInstanceOperation` (per-instance lock, wait until idle,
 * busy answers retried), so an address, a network, a disk and a snapshot declared on one VM in parallel
 * do not collide.
 *
 * Ownership rule: this resource owns the address of an instance declared WITHOUT `publicIp`. It never takes
 * an address it did not create unless told to (`adoptId`), and it only ever removes the address whose uuid
 * is its id, so a swapped or re-added address belongs to whoever made it.
 */
import type * as pulumi from "@pulumi/pulumi";
import { AmbiguousRequestError, NotFoundError, ValidationError, type InstanceDetail, type InstanceListItem, type VmHostClient } from "../../api";
import { getClient, progressLog, resourceDeadline } from "../../context";
import { runInstanceOperation, WaitFailedError } from "../../wait/instance";
import { Deadline } from "../../wait/poll";
import { defineResourceProvider } from "../common/define";
import { askedAddressesFor, droppingNoteOnceRecorded, noteNames } from "../common/asked-addresses";
import { instanceAddressDeclaration } from "../common/address-owners";
import { isUnknown } from "../common/check";
import { deletedOutsidePulumi, errorClause, errorText, ProviderError, recordingUncertainUpdate, ResourceInitError } from "../common/errors";
import { takeAddressFromReplacedVm } from "../common/pinned-address";
import { acceptedLookPauses, answeredWith2xx, readPersistently, ReconcileUnknownError, UnconfirmedWriteError } from "../common/reconcile";
import { keptForReplacement } from "../common/unconfirmed";
import { claimedByStack, detachedStackAddressOfVm, replacedByThisDeployment, replacementsInProgress } from "../common/replacements";
import { isAdoptedIn } from "../common/replace-on-changes";
import { diffPublicIp, planPublicIpUpdate } from "./diff";
import { inputsSchema, type PublicIpInputs, type PublicIpOutputs } from "./inputs";
import { currentAddress, detachedOutputs, normalizedRdns, publicIpOutputs, settingsFromState } from "./model";

/**
 * The identity a replacement PublicIp is created under (withReplaceOnChanges notes the old address there): its
 * instance, which holds one public address, so a create-before-delete replacement on the same instance is told
 * to use deleteBeforeReplace, not that another PublicIp holds the address.
 */
export const publicIpReplacementIdentity = (news: Record<string, unknown>): string | undefined =>
  typeof news.instanceId === "string" ? `PublicIp:${news.instanceId.toLowerCase()}` : undefined;

/** An address as messages name it: its IP and uuid, or the uuid alone where the host did not say the IP. */
const addressName = (ipAddress: string | null | undefined, id: string): string => (ipAddress ? `${ipAddress} (${id})` : id);

/** The user-facing error for an instanceId that names no instance. */
function missingInstance(instanceId: string): ProviderError {
  return new ProviderError(`instance ${instanceId} does not exist (instanceId must be the uuid of an existing instance)`);
}

/** Reads the address `id` of the instance; undefined when the instance or the address is gone. */
async function readOutputs(client: VmHostClient, id: string, inputs: PublicIpInputs): Promise<PublicIpOutputs | undefined> {
  const detail = await client.instances.find(inputs.instanceId);
  return detail ? publicIpOutputs(id, inputs, detail) : undefined;
}

/** Sets the address's reverse DNS (an operation on the instance: serialized with the others on it). */
async function setRdns(client: VmHostClient, id: string, instanceId: string, rdns: string, deadline: Deadline): Promise<void> {
  await runInstanceOperation(
    client,
    instanceId,
    {
      what: `reverse DNS of address ${id} (instance ${instanceId}) to become ${rdns}`,
      deadline,
      // settled when the detail shows the name, or when the address left the instance (the caller's read says so)
      until: (d) => normalizedRdns(d.rdns) === rdns || currentAddress(d)?.id !== id,
    },
    async () => {
      // only while the instance still holds this address: never name an address that is no longer ours
      if (currentAddress(await client.instances.get(instanceId))?.id !== id) return;
      await client.network.updateRdns(id, { rdns });
    },
  );
}

/**
 * After a failure once the address may have been assigned: if the instance now holds an address that this
 * create asked for, record it (ResourceInitError carries its id) so Pulumi does not forget it.
 */
async function failAfterAssign(
  client: VmHostClient, inputs: PublicIpInputs, before: string | undefined, error: unknown, deadline: Deadline, sentAt: Date,
): Promise<never> {
  let detail: InstanceDetail | undefined;
  try {
    // Until the deadline: giving up on one bad answer would forget an address that may be assigned and billing.
    detail = await readPersistently(`instance ${inputs.instanceId}`, deadline, () => client.instances.find(inputs.instanceId));
  } catch (readError) {
    if (!(readError instanceof ReconcileUnknownError)) throw readError;
    // Recorded as unconfirmed (common/unconfirmed.ts, with `findUnconfirmed` below): never forgotten.
    throw new UnconfirmedWriteError(
      `adding a public address to instance ${inputs.instanceId} failed (${errorText(error)}) and whether an address was assigned could ` +
        `not be checked (${errorText(readError)}). It may be assigned: look at the instance with getInstance (publicIp.ipId).`,
      `public address of instance ${inputs.instanceId}`,
      sentAt,
      before ? [before] : [],
      `getInstance({ instanceId: "${inputs.instanceId}" }) (publicIp.ipId)`,
      { cause: error },
    );
  }
  const address = detail ? currentAddress(detail) : undefined;
  const ours = address && (inputs.publicNetworkId ? address.id === inputs.publicNetworkId : address.id !== before);
  if (detail && address && ours) {
    const outputs = publicIpOutputs(address.id, inputs, detail)!;
    throw new ResourceInitError(
      `address ${addressName(address.ipAddress, address.id)} was assigned to instance ${inputs.instanceId}, then: ${errorText(error)}`,
      address.id,
      outputs,
      [errorText(error)],
      { cause: error },
    );
  }
  throw error;
}

/**
 * Addresses of PublicIps recorded `detached` (a refresh found them off their instance, still reserved in the
 * account) whose resource this deployment replaces, by the replacement's instance: the replacement assigns that
 * address instead of adding another (soak with other seeds: its VM replaced, the replacement added a second
 * address and the detached one stayed reserved in no state; the README promises it is assigned back, never a
 * second one). Noted at Diff; one process serves one deployment.
 */
const detachedForReplacement = new Map<string, string>();

/** The detached addresses a replacement of this deployment assigned (the old half's delete then says nothing of them). */
const reclaimedHere = new Set<string>();

/**
 * Adopted PublicIps (ids, lower case) whose Diff in this deployment answered "replace" while their instanceId was
 * unknown: the engine's question whether a dependent of a resource replaced delete-before-replace must go first
 * (diff.ts). Their delete then comes before that replacement, and their re-create after it.
 */
const adoptedReplacedWhileUnknown = new Set<string>();

/**
 * Adopted addresses (lower case) that this deployment's delete of such a PublicIp took off its VM -> that VM. The
 * re-create, which adopts the same address, puts it on its VM (the engine re-creates such a dependent when it
 * registers: step_generator.go `recreating`): the new VM, or the same one when the instanceId was only computed from
 * the replaced resource (audit). Without it the re-create refused, and an address an interrupted create had made
 * (adopted as the refusal advised) stayed reserved in no state. Also with `up --replace`, whose replacement of the
 * VM the provider never hears of before the delete (no Diff).
 */
const adoptedOffReplacedVm = new Map<string, string>();

/** Forgets the detached addresses noted for replacements (see forgetDeployment in provider/registry.ts). */
export function forgetDetachedForReplacement(): void {
  detachedForReplacement.clear();
  reclaimedHere.clear();
  adoptedOffReplacedVm.clear();
  adoptedReplacedWhileUnknown.clear();
}

async function create(inputs: PublicIpInputs): Promise<pulumi.dynamic.CreateResult<PublicIpOutputs>> {
  const reclaim = inputs.adoptId === undefined && inputs.publicNetworkId === undefined ? detachedForReplacement.get(inputs.instanceId.toLowerCase()) : undefined;
  if (reclaim === undefined) return createAddress(inputs);
  detachedForReplacement.delete(inputs.instanceId.toLowerCase());
  // (no longer for the old VM's delete to take back: it goes to the new one; what the old VM holds is still not ours)
  for (const [vm, address] of detachedStackAddressOfVm) if (address === reclaim) detachedStackAddressOfVm.set(vm, "");
  progressLog(`instance ${inputs.instanceId}: assigning address ${reclaim}, which the PublicIp this one replaces recorded as detached, instead of adding another`);
  try {
    const made = await createAddress({ ...inputs, publicNetworkId: reclaim });
    const { publicNetworkId: _reclaimed, ...outs } = made.outs as PublicIpOutputs; // not pinned by the program
    reclaimedHere.add(made.id.toLowerCase());
    return { id: made.id, outs };
  } catch (e) {
    // released meanwhile, or not this account's to assign any more: a new address, as without it
    if (!(e instanceof ValidationError || e instanceof NotFoundError)) throw e;
    progressLog(`instance ${inputs.instanceId}: address ${reclaim} cannot be assigned (${errorText(e)}); adding a new one`);
    return createAddress(inputs);
  }
}

/** Why instance `instanceId` (its `detail`) has no address `adoptId` to adopt, or undefined when it holds it. */
function adoptionRefusal(instanceId: string, detail: InstanceDetail, adoptId: string): string | undefined {
  const address = currentAddress(detail);
  if (address?.id === adoptId) return undefined;
  return (
    `cannot adopt address ${adoptId}: instance ${instanceId} holds ` +
    (address ? `address ${addressName(address.ipAddress, address.id)}` : "no public address") +
    "; adoptId must be the uuid of the address the instance has now (see getInstance: publicIp.ipId)" +
    // (the replacement of an adopted PublicIp whose VM was replaced delete-before-replace ends here: its old half
    // took the address off the old VM, see diff.ts)
    (address
      ? ""
      : `. An address taken off another VM (e.g. one this up replaced) stays reserved in your account: to put it on this ` +
        `instance, declare publicNetworkId: "${adoptId}" instead of adoptId`)
  );
}

/**
 * Why create would refuse to adopt (adoptId) the address `inputs` declare, or undefined: for the preview's check
 * (common/preflight.ts), from the instance's detail the check reads anyway (undefined or null: not read, or no such
 * instance, which the check reports on its own). Not an address this PublicIp's delete took off a VM this up replaced:
 * create puts that one on the new VM.
 */
export function publicIpAdoptionRefusal(inputs: PublicIpInputs, detail: InstanceDetail | null | undefined): string | undefined {
  if (inputs.adoptId === undefined || !detail || adoptedOffReplacedVm.has(inputs.adoptId.toLowerCase())) return undefined;
  return adoptionRefusal(inputs.instanceId, detail, inputs.adoptId);
}

async function createAddress(inputs: PublicIpInputs): Promise<pulumi.dynamic.CreateResult<PublicIpOutputs>> {
  const client = getClient();
  const deadline = resourceDeadline(inputs.timeouts, "create");
  const instanceId = inputs.instanceId;

  let id: string;
  // The newest detail of the instance (read by this create): the outputs come from it unless rdns changes it.
  let latest: InstanceDetail;
  if (inputs.adoptId !== undefined) {
    const offReplacedVm = adoptedOffReplacedVm.get(inputs.adoptId.toLowerCase());
    const found = await client.instances.find(instanceId);
    // (created again with its old inputs: `up --target` of the VM alone, the engine keeping an untargeted resource's
    // inputs (step_generator.go: Check stubbed to the old inputs), names the VM it just deleted; audit)
    if (!found && offReplacedVm?.toLowerCase() === instanceId.toLowerCase())
      throw new ProviderError(
        `PublicIp ${inputs.adoptId} is created again on instance ${instanceId}, which this up deleted: the engine kept its old inputs ` +
          "(it was not among the --target resources). Its address stays reserved in your account. Run `pulumi up` without --target " +
          `(or with this PublicIp targeted too), declaring publicNetworkId: "${inputs.adoptId}" instead of adoptId to put the address on the new VM.`,
      );
    if (!found) throw missingInstance(instanceId);
    latest = found;
    const address = currentAddress(latest);
    if (address === undefined && offReplacedVm !== undefined) {
      adoptedOffReplacedVm.delete(inputs.adoptId.toLowerCase());
      progressLog(
        `instance ${instanceId}: assigning address ${inputs.adoptId}, which this PublicIp adopted; its delete took it off instance ${offReplacedVm} ` +
          "earlier in this up, as the engine replaced the PublicIp with a resource it depends on",
      );
      const made = await createAddress({ ...inputs, adoptId: undefined, publicNetworkId: inputs.adoptId });
      const { publicNetworkId: _assigned, ...outs } = made.outs as PublicIpOutputs; // adopted, not pinned by the program
      return { id: made.id, outs: { ...outs, adoptId: inputs.adoptId } };
    }
    const refusal = adoptionRefusal(instanceId, latest, inputs.adoptId);
    if (refusal) throw new ProviderError(refusal);
    id = address!.id;
  } else {
    const wanted = inputs.publicNetworkId;
    // Replaced with its VM, the pinned address is still on the old VM (create-before-delete).
    if (wanted) await takeAddressFromReplacedVm(client, wanted, `instance ${instanceId}`, deadline);
    const sentAt = new Date();
    // What the instance held before, from the fresh read under the lock; `attempted` once an address change was
    // sent (only then can a failure have left an address of ours on the instance).
    let before: string | undefined;
    let attempted = false;
    try {
      const { detail } = await runInstanceOperation(
        client,
        instanceId,
        {
          what: `instance ${instanceId} to get ${wanted ? `public address ${wanted}` : "a public address"}`,
          deadline,
          // learned per host: an add that usually ends at once is then looked at without waiting for a list tick
          kind: wanted ? "public-ip-change" : "public-ip-add",
          until: (d) => (wanted ? currentAddress(d)?.id === wanted : currentAddress(d) !== undefined),
        },
        async (idle) => {
          // Decided under the instance lock, on a fresh view: nothing else of ours changes the address meanwhile.
          // What said "idle" is fresh (a shared list tick that started after this create asked, or the detail) and
          // proves the instance exists. A list row whose ip_address is null says "no public address" as surely as
          // the detail on a host whose rows show addresses: decided without a read of our own (a fleet of 50
          // addresses saves 50 requests). Not on a host seen writing none (its docs sample writes null on every row:
          // an add was sent to a VM holding an address, refused with a message saying it was assigned; audit). A
          // row showing an address is checked on the detail, which names the address's uuid.
          let current: ReturnType<typeof currentAddress>;
          if ("public_ip" in idle) current = currentAddress(idle);
          else if (idle.ip_address !== null || !client.instances.rowsShowAddresses()) {
            const fresh = await client.instances.find(instanceId);
            if (!fresh) throw missingInstance(instanceId);
            current = currentAddress(fresh);
          }
          before = current?.id;
          if (wanted) {
            if (current?.id === wanted) return; // already assigned (a retried up): nothing to do
            // One call assigns the reserved address and releases the instance's previous one, if any.
            attempted = true;
            try {
              await client.network.changePublicIp(instanceId, { publicNetwork: wanted });
            } catch (error) {
              // The PublicIp this one replaces holds the pinned address on its own VM, which stays: the replacement
              // was made create-before-delete although diff asks to delete first (diff.ts keepsPinnedAddress), so
              // the resource option says deleteBeforeReplace: false. A refusal (nothing changed) that says so,
              // instead of the API's bare 422 at every up.
              const replacing = replacementsInProgress.isBeingReplaced(publicIpReplacementIdentity({ instanceId }) ?? "", wanted);
              if (!(error instanceof ValidationError) || !replacing) throw error;
              throw new ProviderError(
                `address ${wanted} (publicNetworkId) is still on the instance of the PublicIp this one replaces, and a reserved ` +
                  `address is on one VM at a time, so instance ${instanceId} cannot get it before the old PublicIp is deleted. ` +
                  "Pulumi deletes the old one first when the resource option deleteBeforeReplace is not set to false: remove " +
                  "`deleteBeforeReplace: false` from this PublicIp (or set it to true) and run pulumi up again. Nothing was changed.",
                { cause: error },
              );
            }
            return;
          }
          if (current && keptForReplacement.has(current.id.toLowerCase())) {
            // made by the unconfirmed add this resource replaces, left in place by its delete: taken, not added again
            progressLog(`instance ${instanceId}: taking address ${addressName(current.ipAddress, current.id)}, which an earlier unconfirmed add of this resource made`);
            keptForReplacement.delete(current.id.toLowerCase());
            return;
          }
          if (current && replacementsInProgress.isBeingReplaced(publicIpReplacementIdentity({ instanceId }) ?? "", current.id)) {
            throw new ProviderError(
              `instance ${instanceId} still has the address ${addressName(current.ipAddress, current.id)} of the PublicIp this one replaces: an ` +
                "instance holds one public address, so a PublicIp replaced on the same instance needs the resource option " +
                "deleteBeforeReplace: true (the old address is then released first).",
            );
          }
          const noted = askedAddressesFor(client.baseUrl).noteOf(instanceId, "PublicIp");
          if (current && noted && noteNames(noted, { ip_id: current.id, ip_address: current.ipAddress }) && !claimedByStack.has(current.id.toLowerCase())) {
            // The address an add of this machine asked for, whose run was killed before the engine recorded it
            // (common/asked-addresses.ts): taken, not refused as someone else's (the next up asked for adoptId).
            progressLog(`instance ${instanceId}: taking address ${addressName(current.ipAddress, current.id)}, which an earlier PublicIp create asked for and no run recorded`);
            return;
          }
          if (current && claimedByStack.has(current.id.toLowerCase())) {
            // another PublicIp of this stack holds it: a clash, never a case for adoptId (two resources would own it)
            throw new ProviderError(
              `instance ${instanceId} already has public address ${addressName(current.ipAddress, current.id)}, held by another PublicIp of this ` +
                "stack: an instance has one public address, so declare one PublicIp per instance.",
            );
          }
          if (current) {
            throw new ProviderError(
              `instance ${instanceId} already has public address ${addressName(current.ipAddress, current.id)}: a PublicIp adds an address ` +
                `only to an instance without one. To manage that address set adoptId: "${current.id}" (never on an address another ` +
                "PublicIp of this stack holds: with `--target` or `--exclude` the provider cannot tell which those are); if the " +
                "Instance declares publicIp, manage the address there instead (never both)",
            );
          }
          attempted = true;
          // Noted outside this process too: a run killed before the engine recorded this create forgets the address.
          const notes = askedAddressesFor(client.baseUrl);
          notes.note(instanceId, "PublicIp");
          const sentAt = Date.now();
          try {
            const answer = await client.network.addPublicIp(instanceId);
            if (answer.ip_address) notes.answered(instanceId, "PublicIp", answer.ip_address);
          } catch (error) {
            // addPublicIp is never re-sent blindly (a repeat could add a second address). We hold the lock and
            // the instance had no address before, so an address present now is the one this call added.
            if (!(error instanceof AmbiguousRequestError)) throw error;
            const look = () => readPersistently(`instance ${instanceId}`, deadline, () => client.instances.get(instanceId));
            let after = await look();
            if (answeredWith2xx(error)) {
              // The host answered 2xx (data null, no address): it took the request and may assign the address late (a
              // queued job), or refused it in a 200. Looked for a few times; not there, it is recorded as unconfirmed,
              // never reported as not added (real-api-facts audit: "none was added" while the address came 1.5 s later).
              for (const pause of acceptedLookPauses().slice(1)) {
                if (currentAddress(after) || deadline.expired()) break;
                progressLog(`instance ${instanceId}: the API answered HTTP ${error.status} to the address add without the address, and the instance shows none yet; looking again in ${Math.round(pause / 1000)} s (it is not sent again)`);
                await new Promise((resolve) => setTimeout(resolve, Math.min(pause, deadline.remainingMs())));
                after = await look();
              }
              if (!currentAddress(after))
                throw new UnconfirmedWriteError(
                  `the API answered HTTP ${error.status} to adding a public address to instance ${instanceId} without the address ` +
                    `(${errorClause(error)}), and the instance shows none since: the host may still be assigning it, or it refused ` +
                    "the request in a 2xx answer. It was not sent again (a repeat could add two).",
                  `public address of instance ${instanceId}`,
                  new Date(sentAt),
                  before ? [before] : [],
                  `getInstance({ instanceId: "${instanceId}" }) (publicIp.ipId)`,
                  { cause: error },
                );
            }
            // A request that hung before failing may still be carried out about as late (as the Instance create's second
            // look, common/reconcile.ts requestBoundMs): "none was added" only after waiting that long (fleet audit: the
            // add landed 2 s after the up said none was added, and the next up on a fresh runner asked for adoptId).
            const hungMs = Math.min(Date.now() - sentAt, client.requestTimeoutMs, deadline.remainingMs());
            if (!currentAddress(after) && after.operation_flag === 0 && hungMs >= 1_000) {
              progressLog(`instance ${instanceId}: the address add hung ${Math.round(hungMs / 1000)} s before failing and shows no address yet; looking again in ${Math.round(hungMs / 1000)} s before saying none was added`);
              await new Promise((resolve) => setTimeout(resolve, hungMs));
              after = await look();
            }
            if (!currentAddress(after) && after.operation_flag === 0)
              // (the client's own text says to check whether it happened: this just did)
              throw new ProviderError(
                `adding a public address to instance ${instanceId} failed: ${errorClause(error.cause instanceof Error ? error.cause : error)}. ` +
                  "The instance has no public address and no operation running since, so none was added, and the request was not " +
                  "sent again (a repeat could add two). Run `pulumi up` again.",
                { cause: error },
              );
          }
        },
      );
      id = currentAddress(detail)!.id;
      latest = detail;
    } catch (error) {
      // (a reconciliation read that gave up is not a refusal: the address may be assigned)
      if (error instanceof ProviderError && !(error instanceof ReconcileUnknownError)) throw error;
      if (!attempted) {
        // Nothing was sent: no address of ours can be there. The idle wait fails this way when the instance is gone
        // (a failed read: unknown, so the original error stands).
        const exists = error instanceof WaitFailedError ? await client.instances.find(instanceId).then((d) => d !== undefined, () => true) : true;
        if (!exists) throw missingInstance(instanceId);
        throw error;
      }
      return failAfterAssign(client, inputs, before, error, deadline, sentAt);
    }
  }

  try {
    let changed = false;
    if (inputs.rdns !== undefined && normalizedRdns(latest.rdns) !== inputs.rdns) {
      await setRdns(client, id, instanceId, inputs.rdns, deadline);
      changed = true;
    }
    // The settled detail of the operation is fresh: read again only after the rdns change.
    const outs = changed ? await readOutputs(client, id, inputs) : publicIpOutputs(id, inputs, latest);
    if (!outs) throw new ProviderError(`address ${id} left instance ${instanceId} while it was being set up (changed out of band?)`);
    return { id, outs };
  } catch (error) {
    const detail = await client.instances.find(instanceId).catch(() => undefined);
    const partial = detail ? publicIpOutputs(id, inputs, detail) : undefined;
    throw new ResourceInitError(
      `address ${id} is on instance ${instanceId}, but setting it up failed: ${errorText(error)}`,
      id,
      partial ?? { ...inputs, publicIpId: id, ipAddress: "" },
      [errorText(error)],
      { cause: error },
    );
  }
}

async function read(id: string, props: PublicIpOutputs): Promise<pulumi.dynamic.ReadResult<PublicIpOutputs>> {
  const detail = await getClient().instances.find(props.instanceId);
  // The instance is gone: its deletion released its address.
  if (!detail) return {};
  // No `inputs`: the engine keeps the user's inputs of the last up (see settingsFromState for why). An address
  // the instance no longer holds is recorded detached (model.ts detachedOutputs), not gone.
  return { id, props: publicIpOutputs(id, settingsFromState(props), detail) ?? detachedOutputs(id, props) };
}

/**
 * The error of an update whose VM was deleted outside Pulumi: a refresh drops this resource, another up would not. A
 * VM deleted in the panel with its address kept leaves the address reserved: said, with how to keep or release it
 * (audit: the refresh advice alone lost track of it).
 */
function vmOfAddressGone(instanceId: string, id: string, ipAddress: string | undefined): Error {
  return deletedOutsidePulumi(
    `instance ${instanceId} of address ${addressName(ipAddress, id)}`,
    undefined,
    ` If that VM was deleted keeping its address, the address is still reserved in your account (it may bill): to keep it, ` +
      `declare publicNetworkId: "${id}" on the PublicIp of the new instance; else release it in the host's panel.`,
  );
}

/**
 * Assigns the address back to its instance when the instance no longer holds it (taken off or swapped out of
 * band; a refresh recorded it detached, or the update found it so). One call: a reserved address replaces
 * whatever the instance holds, which goes back to the account. Idempotent, so retried like any write.
 */
async function assignBack(client: VmHostClient, id: string, olds: Partial<PublicIpOutputs>, instanceId: string, deadline: Deadline): Promise<void> {
  const address = `address ${addressName(olds.ipAddress, id)}`;
  try {
    await runInstanceOperation(
      client,
      instanceId,
      { what: `${address} to be assigned back to instance ${instanceId}`, deadline, kind: "public-ip-change", until: (d) => currentAddress(d)?.id === id },
      async () => {
        const fresh = await client.instances.find(instanceId);
        if (!fresh) throw vmOfAddressGone(instanceId, id, olds.ipAddress); // deleted meanwhile
        if (currentAddress(fresh)?.id === id) return;
        await client.network.changePublicIp(instanceId, { publicNetwork: id });
      },
    );
  } catch (error) {
    if (error instanceof ProviderError || !(error instanceof ValidationError || error instanceof NotFoundError)) throw error;
    // Worded by cause (new-user audit: "no longer a reserved address of this account" also when the API said another
    // instance holds it): 404 = gone from the account; 422 = refused as the API says (held elsewhere, another location).
    const why = error instanceof NotFoundError ? "it is no longer a reserved address of this account" : "the host refused it, as it says";
    throw new ProviderError(
      `${address} was taken off instance ${instanceId} out of band and cannot be assigned back (${errorText(error)}): ${why}. ` +
        "Free it where it is now (the panel, or the program of the VM holding it) and run `pulumi up` again, or " +
        "`pulumi up --replace <urn of this PublicIp>` to give the instance a new address.",
      { cause: error },
    );
  }
}

async function update(id: string, olds: PublicIpOutputs, news: PublicIpInputs): Promise<pulumi.dynamic.UpdateResult<PublicIpOutputs>> {
  const client = getClient();
  const deadline = resourceDeadline(news.timeouts, "update");
  const gone = () =>
    new ProviderError(`address ${id} is no longer on instance ${news.instanceId} (changed again out of band during this update): run pulumi up again`);
  const steps = planPublicIpUpdate(olds, news);
  // (what the address is now, with the settings of the state: the engine keeps the old inputs after a failure;
  // a failure also makes the next up update it again, which assigns the address back if it is still off its VM)
  const fresh = async (): Promise<PublicIpOutputs | undefined> => readOutputs(client, id, { ...settingsFromState(olds), instanceId: news.instanceId });
  // (its VM deleted in the panel, the address with it: a refresh drops this resource, another up would not)
  const vm = await client.instances.find(news.instanceId);
  if (!vm) throw vmOfAddressGone(news.instanceId, id, olds.ipAddress);
  return recordingUncertainUpdate(id, olds, steps.map((s) => s.kind), fresh, async () => {
    if (!publicIpOutputs(id, news, vm)) await assignBack(client, id, olds, news.instanceId, deadline);
    for (const step of steps) {
      if (step.kind === "rdns") await setRdns(client, id, news.instanceId, step.rdns, deadline);
    }
    const outs = await readOutputs(client, id, news);
    if (!outs) throw gone();
    return { outs };
  });
}

/**
 * A PublicIp removed from the program while the VM's Instance now declares the address (`publicIp: true`, or
 * `publicNetworkId` naming this address): the address stays on the VM (audit: the delete, which the engine runs after
 * the Instance's update, took it off, and the up reported success with the VM holding no address; with `publicIp: true`
 * the next ups saw nothing and destroy left it reserved in no state). The API's address (added by this PublicIp, not
 * pinned nor adopted) becomes the Instance's to release with the VM: noted for its next create, update or delete
 * (common/asked-addresses.ts), as its state, written earlier in this up, could not say so. On another machine the
 * note is not there: destroy then leaves it reserved, and says so.
 */
function leftForTheInstance(client: VmHostClient, id: string, props: PublicIpOutputs): boolean {
  const declared = instanceAddressDeclaration(props.instanceId);
  const keeps = declared?.publicIp === true || declared?.publicNetworkId?.toLowerCase() === id.toLowerCase();
  if (!keeps) return false;
  const madeByApi = props.publicNetworkId === undefined && props.adoptId === undefined;
  if (replacementsInProgress.idsUnder("Instance:").includes(props.instanceId.toLowerCase())) {
    // The VM is replaced in this up: its delete releases what it holds (its state does not manage the address). The
    // user's address (pinned or adopted) goes back to the account as before, and the replacement may pin it (audit:
    // left on the old VM, it was released with it); the API's own goes with the old VM, as nothing else could release it.
    if (!madeByApi) return false;
    progressLog(`address ${addressName(props.ipAddress, id)} stays on instance ${props.instanceId}, which this up replaces: it is released with it`);
    return true;
  }
  if (madeByApi && declared?.publicNetworkId === undefined) askedAddressesFor(client.baseUrl).handOver(props.instanceId, id);
  progressLog(
    `address ${addressName(props.ipAddress, id)} stays on instance ${props.instanceId}: the PublicIp is removed, and the Instance of this stack ` +
      `now manages the VM's address (${declared!.field})`,
  );
  return true;
}

/**
 * The address the API made for this PublicIp (not pinned, not adopted) on a VM that a Diff of this up replaces: left on
 * that VM, whose delete releases it (deleteOptions.removePublicIp, the default; the Instance does not manage it). Taken
 * off, it stayed reserved in the account in no state, billing, at every replace of the VM of a PublicIp declared without
 * `deletedWith` (audit: one such address per replace). A VM that outlives its replacement (retainOnDelete) keeps it.
 */
function leftWithReplacedVm(id: string, props: PublicIpOutputs): boolean {
  if (props.publicNetworkId !== undefined || props.adoptId !== undefined) return false;
  if (!replacedByThisDeployment.idsUnder("Instance:").includes(props.instanceId.toLowerCase())) return false;
  progressLog(`address ${addressName(props.ipAddress, id)} stays on instance ${props.instanceId}, which this up replaces: its delete releases it`);
  return true;
}

async function remove(id: string, props: PublicIpOutputs): Promise<void> {
  const client = getClient();
  const instanceId = props.instanceId;
  const deadline = resourceDeadline(props.timeouts, "delete");
  const holdsIt = (d: InstanceDetail) => currentAddress(d)?.id === id;
  let left = false;
  let notHeld = false;
  let sent = false;
  // The list row names the VM's address by its IP alone (no uuid). The IP this resource recorded, on its own VM, is
  // its address: the row alone says it is still held (the Instance's delete reads it so too). After the removal, a
  // row without that IP says it is off, on a host seen filling the field (a row's null means nothing on a host whose
  // rows never show addresses: real-api-facts.md). A fleet's destroy then spends no detail read of its own per
  // address (make bench, 50 Instances + PublicIp each: 150 detail reads, at the host's 10 requests/s, became 50).
  const recordedIp = props.ipAddress ? props.ipAddress : undefined;
  const rowShowsIt = (row: InstanceListItem) => recordedIp !== undefined && row.ip_address === recordedIp;
  // No read before the lock: the fresh view under it decides (instance gone, or it no longer holds THIS address,
  // removed or swapped for another one that is not ours: nothing to do), and a gone instance ends the idle wait.
  try {
    await runInstanceOperation(
      client,
      instanceId,
      {
        what: `address ${id} to be removed from instance ${instanceId}`,
        deadline,
        until: (d) => left || !holdsIt(d),
        settledByRow: (row) => !sent || (recordedIp !== undefined && client.instances.rowsShowAddresses() && !rowShowsIt(row)),
      },
      async (idle) => {
        const shownHeld = !("public_ip" in idle) && rowShowsIt(idle);
        const fresh = "public_ip" in idle ? idle : shownHeld ? undefined : await client.instances.find(instanceId);
        const held = shownHeld || (fresh !== undefined && holdsIt(fresh));
        // (the VM gone: an address taken off it earlier, recorded at refresh, stays reserved: said too; review)
        notHeld = !held && (fresh !== undefined || props.detached === true);
        if (!held) return;
        left = leftWithReplacedVm(id, props) || leftForTheInstance(client, id, props);
        if (left) return;
        // The API removes the address when `public_network` is blank.
        sent = true;
        await client.network.changePublicIp(instanceId, { publicNetwork: null });
        // Said, not hidden (audit: a destroy printed only "deleted" and the address billed on): one the API made for
        // this resource is now reserved in no state. The user's own (publicNetworkId) goes back to them as it was.
        // An adopted one may be the user's reserved address as well (audit: told to release it, which loses the IP).
        if (props.publicNetworkId === undefined && props.adoptId !== undefined && adoptedReplacedWhileUnknown.has(id.toLowerCase())) {
          adoptedOffReplacedVm.set(id.toLowerCase(), instanceId);
          progressLog(
            `address ${addressName(props.ipAddress, id)}, which this PublicIp adopted, is taken off instance ${instanceId} and stays reserved in your ` +
              "account. If this up creates the PublicIp again (a resource it depends on is replaced delete-before-replace), that create " +
              "puts the address back on its VM; if not (it is destroyed or removed), release it in the host's panel unless you keep it.",
          );
        } else if (props.publicNetworkId === undefined && props.adoptId !== undefined)
          progressLog(
            `address ${addressName(props.ipAddress, id)}, which this PublicIp adopted, is taken off instance ${instanceId} and stays reserved in ` +
              "your account (it may bill): the API releases an address only with a VM that holds it. If you do not keep it for " +
              "later, release it in the host's panel.",
          );
        else if (props.publicNetworkId === undefined)
          progressLog(
            `address ${addressName(props.ipAddress, id)} is taken off instance ${instanceId} and stays reserved in your account (it may bill): ` +
              "the API releases an address only with a VM that holds it. Release it in the host's panel, or declare the PublicIp " +
              "with `deletedWith: <its Instance>` when it goes with the VM.",
          );
      },
    );
  } catch (error) {
    // The instance was deleted meanwhile: its address went with it (unless it had been taken off before).
    if (error instanceof NotFoundError || !(await client.instances.find(instanceId))) notHeld = props.detached === true;
    else throw error;
  }
  if (notHeld && !reclaimedHere.has(id.toLowerCase())) await sayWhereTheAddressIs(client, id, props);
}

/**
 * The delete of a PublicIp whose instance no longer holds the address (taken off or moved to another VM in the panel,
 * or by an interrupted run) leaves it alone, and says where it is: on another VM (never to be released: audit, a
 * destroy after a refresh told the user to release in the panel an address another VM was using), or on none, where
 * it stays reserved and may bill (audit: without a refresh, the destroy said nothing of it). The instance list's
 * rows carry each VM's address; a list that cannot be read leaves both possibilities in the message.
 */
async function sayWhereTheAddressIs(client: VmHostClient, id: string, props: PublicIpOutputs): Promise<void> {
  const address = addressName(props.ipAddress, id);
  const madeByApi = props.publicNetworkId === undefined && props.adoptId === undefined;
  const reserved = madeByApi
    ? "it stays reserved in your account (it may bill): the API releases an address only with a VM that holds it. Release it in the host's panel unless you keep it"
    : "it stays in your account as the reserved address it was";
  let holder: { uuid: string; hostname: string } | undefined;
  try {
    holder = props.ipAddress ? (await client.instances.listAll()).find((row) => row.ip_address === props.ipAddress && row.uuid.toLowerCase() !== props.instanceId.toLowerCase()) : undefined;
  } catch (error) {
    progressLog(
      `address ${address} is no longer on instance ${props.instanceId}, so it is left as it is. Where it is now could not be read ` +
        `(${errorText(error)}): if it is on another VM, it stays there; if it is on none, ${reserved}.`,
    );
    return;
  }
  progressLog(
    holder
      ? `address ${address} is no longer on instance ${props.instanceId} but on instance ${holder.uuid} (${holder.hostname}), so it is left there, untouched.`
      : client.instances.rowsShowAddresses()
      ? `address ${address} is no longer on instance ${props.instanceId} (taken off outside this run) and is on no VM: ${reserved}.`
      : // (this host's list rows were never seen showing an address: "on no VM" would be a guess)
        `address ${address} is no longer on instance ${props.instanceId} (taken off outside this run), so it is left as it is: if it is ` +
        `on another VM, it stays there; if it is on none, ${reserved}.`,
  );
}

/** The PublicIp dynamic provider: `providers.PublicIp` of `pulumi-vmhost/provider`. */
export const publicIpProvider = defineResourceProvider<PublicIpInputs, PublicIpOutputs>({
  inputsSchema,
  // (its delete can only take an address off the VM, where it stays reserved: the replacement takes it instead)
  keepUnconfirmedForReplacement: true,
  // What an unconfirmed add may have assigned: the instance's address now (the wanted one, if named); the
  // address it had before the add is recorded as existing and so never taken.
  async findUnconfirmed(recorded) {
    if (typeof recorded.instanceId !== "string") return [];
    const detail = await getClient().instances.find(recorded.instanceId);
    const address = detail ? currentAddress(detail) : undefined;
    if (!address || (recorded.publicNetworkId !== undefined && address.id !== recorded.publicNetworkId)) return [];
    return [address.id];
  },
  diff(olds, news, id) {
    // An adopted address whose PublicIp the program moves to another VM (its VM replaced create-before-delete, or an
    // earlier up deleted it ahead of its VM's delete-before-replace and failed before re-creating it): refused, as every
    // adopted object's forced replacement (common/replace-on-changes.ts), with the way to move it.
    if (typeof news.instanceId === "string" && !isUnknown(news.instanceId) && news.instanceId !== olds.instanceId && isAdoptedIn(olds, news, id))
      throw new ProviderError(
        `PublicIp ${id} was adopted (adoptId) on instance ${olds.instanceId}, and the program now puts it on instance ${news.instanceId}: ` +
          "an adopted object is never replaced by Pulumi. To move your address to that instance, declare " +
          `publicNetworkId: "${id}" instead of adoptId (it comes off the other VM if that one is being replaced); to give that ` +
          "instance a new address, remove adoptId. Nothing was changed.",
      );
    const result = diffPublicIp(olds, news);
    // (from the state alone: also the engine's question whether this PublicIp goes with its replaced VM, news unknown)
    if (olds.detached === true && typeof olds.instanceId === "string" && olds.publicNetworkId === undefined && olds.adoptId === undefined)
      detachedStackAddressOfVm.set(olds.instanceId.toLowerCase(), id);
    if (isUnknown(news.instanceId) && isAdoptedIn(olds, news, id)) adoptedReplacedWhileUnknown.add(id.toLowerCase());
    if (olds.detached === true && (result.replaces ?? []).length > 0 && news.publicNetworkId === undefined && news.adoptId === undefined &&
        typeof news.instanceId === "string" && !isUnknown(news.instanceId))
      detachedForReplacement.set(news.instanceId.toLowerCase(), id);
    return result;
  },
  create: (inputs) => droppingNoteOnceRecorded(() => getClient().baseUrl, "PublicIp", () => inputs.instanceId, () => create(inputs)),
  read,
  update,
  delete: remove,
});
