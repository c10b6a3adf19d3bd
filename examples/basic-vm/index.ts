/**
 * basic-vm: one virtual machine with a public address, kept running.
 *
 * Everything a user would want to change per stack comes from stack config (`pulumi config set ...`), so the
 * same program serves a dev stack and a production one, and a change of size is a config change.
 */
import * as pulumi from "@pulumi/pulumi";
import * as vmhost from "pulumi-vmhost";

const config = new pulumi.Config();

const vm = new vmhost.Instance(
  "vm",
  {
    // Catalogue ids differ per host: list them with vmhost.getLocations(), getTiers() and getOsTemplates(), or look
    // them up by name as examples/by-name does. Preview refuses an id the host does not have.
    locationId: config.getNumber("locationId") ?? 1,
    tierId: config.getNumber("tierId") ?? 1,
    templateId: config.getNumber("templateId") ?? 1,
    hostname: config.get("hostname") ?? "basic-vm-1",
    cpu: config.getNumber("cpu") ?? 1,
    memory: config.getNumber("memory") ?? 1,
    storage: config.getNumber("storage") ?? 20,
    username: config.get("username") ?? "deploy",
    // A secret: `pulumi config set --secret vmPassword ...`. Stored encrypted in the state, never read back.
    password: config.requireSecret("vmPassword"),
    publicIp: config.getBoolean("publicIp") ?? true,
    powerState: "running",
    // To manage a VM that already exists (made in the panel, or left by an interrupted `up`) instead of
    // creating one: `pulumi config set adoptId <instance uuid>` (`pulumi import` does not work for dynamic
    // resources).
    adoptId: config.get("adoptId"),
  },
  // A production stack sets `protect: true`, so `pulumi destroy` refuses to delete the VM by accident.
  { protect: config.getBoolean("protect") ?? false },
);

export const instanceId = vm.id;
export const hostname = vm.hostname;
export const ipAddress = vm.ipAddress;
export const status = vm.status;
export const estimatedMonthlyPrice = vm.estimatedMonthlyPrice;
