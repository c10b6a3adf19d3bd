/**
 * VswitchAttachment <-> API mapping. Pure: no I/O.
 *
 * The instance detail names its private network by NAME (`private_network`, `-` -> null when none), not by
 * uuid, so the attachment is resolved against the vswitch list: attached when the detail's name is the name
 * of OUR vswitch. Some hosts might answer the uuid there instead, or the VM's private address (matched against the
 * vswitch's network_ip): those are accepted too. Two vswitches with
 * the same name cannot be told apart by the detail; the attachment then counts as present when the name
 * matches (the API gives nothing better).
 */
import { onlyNetworkThatCanHold, privateAddressIn } from "../common/private-network";
import { attachmentId, type VswitchAttachmentInputs, type VswitchAttachmentOutputs } from "./inputs";

/** The part of a (normalized) vswitch list item this resource reads. */
export interface VswitchRecord {
  uuid: string;
  name: string;
  network_ip?: string | null;
  /** A name (list items) or `{id, name}` (normalized by the client). */
  location?: string | { id?: number | null; name: string } | null;
}

/** Where an instance's private network stands relative to the attachment's vswitch. */
export type AttachmentState =
  | { kind: "attached"; vswitch: VswitchRecord }
  /** The instance is on no private network. */
  | { kind: "detached" }
  /** The instance is on another private network (named). */
  | { kind: "elsewhere"; network: string }
  /** The vswitch no longer exists (not in the list). */
  | { kind: "vswitch-gone" };

/**
 * Why an attachment with `adoptId` cannot adopt the membership in `state` (the instance must be on the network
 * already), or undefined. What create refuses before any write, and the preview with it (common/preflight.ts); a
 * network that does not exist is refused on its own.
 */
export function membershipAdoptionRefusal(instanceId: string, vswitchId: string, state: AttachmentState): string | undefined {
  if (state.kind === "attached" || state.kind === "vswitch-gone") return undefined;
  return (
    `cannot adopt ${attachmentId(instanceId, vswitchId)}: instance ${instanceId} is ` +
    (state.kind === "elsewhere" ? `on private network "${state.network}"` : "on no private network") +
    `, not on ${vswitchId}; remove adoptId to attach it`
  );
}

/** Resolves the detail's `private_network` against the vswitch list for the vswitch `vswitchId`. */
export function resolveAttachment(
  privateNetwork: string | null,
  vswitchId: string,
  vswitches: readonly VswitchRecord[],
): AttachmentState {
  const ours = vswitches.find((v) => v.uuid.toLowerCase() === vswitchId.toLowerCase());
  const current = privateNetwork?.trim() ?? "";
  if (!ours) return current ? { kind: "elsewhere", network: current } : { kind: "vswitch-gone" };
  if (current === "") return { kind: "detached" };
  if (current === ours.name.trim() || current.toLowerCase() === ours.uuid.toLowerCase()) return { kind: "attached", vswitch: ours };
  // The VM's private address: ours only when no other network of our location holds it (same range elsewhere: not told).
  const here = (v: VswitchRecord) => locationName(v.location)?.trim().toLowerCase() === locationName(ours.location)?.trim().toLowerCase();
  if (privateAddressIn(current, ours.network_ip) && !vswitches.some((v) => v !== ours && here(v) && privateAddressIn(current, v.network_ip)))
    return { kind: "attached", vswitch: ours };
  // Our network's range not given: ours when no other network that may be in our location can hold the address.
  const candidates = vswitches.filter((v) => v === ours || here(v) || !locationName(v.location)?.trim());
  if (onlyNetworkThatCanHold(current, candidates, (v) => v.network_ip) === ours) return { kind: "attached", vswitch: ours };
  return { kind: "elsewhere", network: current };
}

function locationName(location: VswitchRecord["location"]): string | undefined {
  if (!location) return undefined;
  return typeof location === "string" ? location : location.name;
}

/** Outputs of an attachment that exists. */
export function vswitchAttachmentOutputs(inputs: VswitchAttachmentInputs, vswitch: VswitchRecord): VswitchAttachmentOutputs {
  const outputs: VswitchAttachmentOutputs = {
    instanceId: inputs.instanceId,
    vswitchId: inputs.vswitchId,
    vswitchName: vswitch.name,
  };
  if (vswitch.network_ip) outputs.networkIp = vswitch.network_ip;
  const location = locationName(vswitch.location);
  if (location) outputs.location = location;
  if (inputs.adoptId !== undefined) outputs.adoptId = inputs.adoptId;
  if (inputs.timeouts !== undefined) outputs.timeouts = inputs.timeouts;
  return outputs;
}

/** The inputs `read` returns: the user's inputs as the state recorded them. */
export function inputsFromState(state: VswitchAttachmentOutputs): VswitchAttachmentInputs {
  const inputs: VswitchAttachmentInputs = { instanceId: state.instanceId, vswitchId: state.vswitchId };
  if (state.adoptId !== undefined) inputs.adoptId = state.adoptId;
  if (state.timeouts !== undefined) inputs.timeouts = state.timeouts;
  return inputs;
}
