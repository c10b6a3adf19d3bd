/**
 * by-name: a VM placed, sized and given a data disk by NAMES, with the lookup functions, instead of catalogue
 * ids that differ from host to host.
 *
 * - `getLocationOutput({ name })`, `getTierOutput({ name })` and `getOsTemplateOutput({ name, version })` turn
 *   names into the Instance's locationId, tierId and templateId (a name the host does not have fails the
 *   program with the list of valid ones).
 * - The OS template's minimums (`minCpu`, `minMemory`, `minStorage`) size the VM at least as large as the
 *   template needs.
 * - `getBlockStorageOutput({ name })` finds the data disk attached or not, so the second run finds the same disk
 *   (getBlockStorageOptions lists only unattached disks: a program that looked its disk up there would lose it
 *   once attached). The disk must be in the VM's location: preview refuses one of another location.
 */
import * as pulumi from "@pulumi/pulumi";
import * as vmhost from "pulumi-vmhost";

const config = new pulumi.Config();

const location = vmhost.getLocationOutput({ name: config.get("location") ?? "Jakarta" });
const tier = vmhost.getTierOutput({ name: config.get("tier") ?? "Standard" });
const os = vmhost.getOsTemplateOutput({ name: config.get("os") ?? "Ubuntu", version: config.get("osVersion") ?? "22.04" });

/** At least what the template needs, and at least what the stack asks for. */
const atLeast = (wanted: number, minimum: pulumi.Output<number | null>) => minimum.apply((m) => Math.max(wanted, m ?? 1));

const vm = new vmhost.Instance("vm", {
  locationId: location.id,
  tierId: tier.id,
  templateId: os.id,
  hostname: config.get("hostname") ?? "by-name-1",
  cpu: atLeast(config.getNumber("cpu") ?? 1, os.minCpu),
  memory: atLeast(config.getNumber("memory") ?? 1, os.minMemory),
  storage: atLeast(config.getNumber("storage") ?? 20, os.minStorage),
  username: "deploy",
  password: config.requireSecret("vmPassword"),
  powerState: "running",
});

const disk = vmhost.getBlockStorageOutput({ name: config.get("diskName") ?? "jkt-data-50", locationId: location.id });

new vmhost.BlockStorageAttachment("data", { blockStorageId: disk.id, instanceId: vm.id }, { deleteBeforeReplace: true });

export const instanceId = vm.id;
export const locationName = location.name;
export const tierOffersDedicatedCpu = tier.dedicatedCpuAvailable;
export const osTemplate = pulumi.interpolate`${os.name} ${os.version}`;
export const diskSizeGb = disk.size;
