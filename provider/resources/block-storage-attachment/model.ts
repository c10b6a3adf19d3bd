/**
 * BlockStorageAttachment <-> API mapping. Pure: no I/O.
 *
 * Where the host has the account's block storage list (`listBlockStorages`, seen in client code only),
 * each record names the instance it is attached to (normalized by the client to `attached_instance_uuid`,
 * null when detached). Where it does not, the spec's only view is the location's list of AVAILABLE
 * (non-attached) block storages (`listBlockStorageOptions`): a disk absent from it is taken as attached to
 * our instance, because nothing better can be known. That fallback cannot see "attached to another
 * instance" or "deleted"; the provider says so in its docs.
 */
import type { BlockStorageAttachmentInputs, BlockStorageAttachmentOutputs } from "./inputs";

/** The part of a normalized `listBlockStorages` record this resource reads. */
export interface BlockStorageRecord {
  id: string;
  name: string;
  size: number;
  attached_instance_uuid: string | null;
}

/** The part of a normalized `listBlockStorageOptions` record (an available, non-attached disk). */
export interface BlockStorageOptionRecord {
  id: string;
  name: string;
  size: number;
}

/** Where a block storage stands relative to the attachment. */
export type DiskState =
  | { kind: "attached"; name?: string; sizeGb?: number }
  | { kind: "detached"; name?: string; sizeGb?: number }
  | { kind: "elsewhere"; instanceId: string }
  | { kind: "missing" };

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** From the account's block storage list (the precise view). */
export function diskStateFromList(blockStorageId: string, instanceId: string, disks: readonly BlockStorageRecord[]): DiskState {
  const disk = disks.find((d) => same(d.id, blockStorageId));
  if (!disk) return { kind: "missing" };
  if (disk.attached_instance_uuid === null) return { kind: "detached", name: disk.name, sizeGb: disk.size };
  if (!same(disk.attached_instance_uuid, instanceId)) return { kind: "elsewhere", instanceId: disk.attached_instance_uuid };
  return { kind: "attached", name: disk.name, sizeGb: disk.size };
}

/**
 * From the location's available (non-attached) block storages (the fallback view): listed = detached;
 * not listed = attached (to our instance, as far as anyone can tell).
 */
export function diskStateFromOptions(blockStorageId: string, available: readonly BlockStorageOptionRecord[]): DiskState {
  const disk = available.find((d) => same(d.id, blockStorageId));
  if (disk) return { kind: "detached", name: disk.name, sizeGb: disk.size };
  return { kind: "attached" };
}

/** Why create refuses a disk attached to another instance (never taken from a VM that stays), naming the holder. */
export function attachedElsewhereRefusal(blockStorageId: string, holder: string): string {
  return (
    `block storage ${blockStorageId} is attached to instance ${holder}; a disk is attached to one instance at a time and this ` +
    "attachment does not take it from an instance it does not own. Detach it there first"
  );
}

/**
 * Why an attachment with `adoptId` cannot adopt the disk in `state` (it must be attached to `instanceId` already), or
 * undefined. What create refuses before any write, and the preview with it (common/preflight.ts); a missing disk is
 * refused on its own.
 */
export function diskAdoptionRefusal(blockStorageId: string, instanceId: string, state: DiskState): string | undefined {
  if (state.kind === "elsewhere") return attachedElsewhereRefusal(blockStorageId, state.instanceId);
  if (state.kind === "detached") return `cannot adopt ${blockStorageId}: it is not attached to instance ${instanceId}; remove adoptId to attach it`;
  return undefined;
}

/** Outputs of an attachment that exists. `known` carries name/size when this read could not see them. */
export function blockStorageAttachmentOutputs(
  inputs: BlockStorageAttachmentInputs,
  state: { name?: string; sizeGb?: number },
  known: Partial<BlockStorageAttachmentOutputs> = {},
): BlockStorageAttachmentOutputs {
  const outputs: BlockStorageAttachmentOutputs = { blockStorageId: inputs.blockStorageId, instanceId: inputs.instanceId };
  const name = state.name ?? known.name;
  const sizeGb = state.sizeGb ?? known.sizeGb;
  if (name !== undefined) outputs.name = name;
  if (sizeGb !== undefined) outputs.sizeGb = sizeGb;
  if (inputs.adoptId !== undefined) outputs.adoptId = inputs.adoptId;
  if (inputs.timeouts !== undefined) outputs.timeouts = inputs.timeouts;
  return outputs;
}

/** The inputs `read` returns: the user's inputs as the state recorded them. */
export function inputsFromState(state: BlockStorageAttachmentOutputs): BlockStorageAttachmentInputs {
  const inputs: BlockStorageAttachmentInputs = { blockStorageId: state.blockStorageId, instanceId: state.instanceId };
  if (state.adoptId !== undefined) inputs.adoptId = state.adoptId;
  if (state.timeouts !== undefined) inputs.timeouts = state.timeouts;
  return inputs;
}
