/**
 * storage-and-snapshots: a VM, a block storage disk attached to it, and a snapshot taken once the disk is
 * attached.
 *
 * - The API cannot create block storage: the disk already exists in the account (`blockStorageId`, see
 *   vmhost.getBlockStorages() or the panel). Destroying the stack detaches it and keeps its data.
 * - Renaming the snapshot (`snapshotName`) replaces it: the API cannot rename snapshots. To keep an old one,
 *   declare a second Snapshot instead.
 */
import * as pulumi from "@pulumi/pulumi";
import * as vmhost from "pulumi-vmhost";

const config = new pulumi.Config();

const vm = new vmhost.Instance("vm", {
  locationId: config.getNumber("locationId") ?? 1,
  tierId: config.getNumber("tierId") ?? 1,
  templateId: config.getNumber("templateId") ?? 1,
  hostname: config.get("hostname") ?? "data-1",
  cpu: 1,
  memory: config.getNumber("memory") ?? 2,
  // Growing the disk resizes in place; a smaller value is refused by up (disks cannot shrink), never a new VM.
  storage: config.getNumber("storage") ?? 30,
  username: "deploy",
  password: config.requireSecret("vmPassword"),
  publicIp: true,
  powerState: "running",
  // Keep the data disk when the VM is deleted (this is the default; spelled out because it matters).
  deleteOptions: { removeBlockStorage: false },
});

const data = new vmhost.BlockStorageAttachment(
  "data",
  { blockStorageId: config.require("blockStorageId"), instanceId: vm.id },
  // A disk is attached to one VM at a time: when the attachment is replaced (e.g. the VM is), detach it
  // from the old VM before attaching it to the new one.
  { deleteBeforeReplace: true },
);

const snapshot = new vmhost.Snapshot(
  "snapshot",
  {
    instanceId: vm.id,
    name: config.get("snapshotName") ?? "baseline",
    description: "Taken by Pulumi after the data disk was attached",
  },
  // Taken after the disk is attached, so the snapshot covers it.
  { dependsOn: [data] },
);

export const instanceId = vm.id;
export const dataDiskName = data.name;
export const dataDiskSizeGb = data.sizeGb;
export const snapshotId = snapshot.id;
export const snapshotStatus = snapshot.status;
export const snapshotStorage = snapshot.attachedStorage;
