/**
 * web-cluster: `webCount` web VMs and one database VM on a private network.
 *
 * - Every VM joins the private network through a `VswitchAttachment`; each web VM gets its public address
 *   through a `PublicIp`. The Instances therefore declare neither `publicIp` nor `vswitchId`: one owner per
 *   address and per network link (see the package README), so refresh never reports the Instances as drifted.
 * - Web VMs accept HTTP and HTTPS from anywhere and SSH only from `adminCidr`; the database accepts
 *   PostgreSQL only from the private network (its CIDR as the API reports it).
 * - A web VM's public address is added only after its firewall rules exist (`dependsOn`), so the VM is never
 *   reachable from the internet without them, and is released by the VM's own delete (`deletedWith`).
 */
import * as pulumi from "@pulumi/pulumi";
import * as vmhost from "pulumi-vmhost";

const config = new pulumi.Config();
/** Uuid of the private network (vswitch) to join; list them with vmhost.getVswitches() or in the panel. */
const vswitchId = config.require("vswitchId");
/** Where SSH is allowed from (your office or VPN). */
const adminCidr = config.get("adminCidr") ?? "203.0.113.0/24";
const webCount = config.getNumber("webCount") ?? 2;
const hostnamePrefix = config.get("hostnamePrefix") ?? "web";
const password = config.requireSecret("vmPassword");

/** Settings every VM of the cluster shares. */
const common = {
  locationId: config.getNumber("locationId") ?? 1,
  tierId: config.getNumber("tierId") ?? 1,
  templateId: config.getNumber("templateId") ?? 1,
  username: "deploy",
  password,
  powerState: "running" as const,
};

const webs = [];
for (let i = 1; i <= webCount; i++) {
  const name = `web-${i}`;
  const vm = new vmhost.Instance(name, {
    ...common,
    hostname: `${hostnamePrefix}-${i}`,
    cpu: config.getNumber("webCpu") ?? 1,
    memory: config.getNumber("webMemory") ?? 1,
    storage: 20,
  });
  const link = new vmhost.VswitchAttachment(`${name}-private`, { instanceId: vm.id, vswitchId });
  const rules = [
    new vmhost.FirewallRule(`${name}-http`, { instanceId: vm.id, protocol: "tcp", port: 80, action: "accept", description: "HTTP" }),
    new vmhost.FirewallRule(`${name}-https`, { instanceId: vm.id, protocol: "tcp", port: 443, action: "accept", description: "HTTPS" }),
    new vmhost.FirewallRule(`${name}-ssh`, {
      instanceId: vm.id,
      protocol: "tcp",
      port: 22,
      sourceIp: adminCidr,
      action: "accept",
      description: "SSH from the admin network",
    }),
  ];
  // deletedWith: when the VM goes, its delete releases the address. Deleting the PublicIp on its own would
  // only take the address off the VM and leave it reserved (and billed) in the account.
  const ip = new vmhost.PublicIp(`${name}-ip`, { instanceId: vm.id }, { dependsOn: rules, deletedWith: vm });
  webs.push({ vm, link, ip });
}

const db = new vmhost.Instance("db", {
  ...common,
  hostname: "db-1",
  cpu: config.getNumber("dbCpu") ?? 1,
  memory: config.getNumber("dbMemory") ?? 2,
  storage: 40,
});
const dbLink = new vmhost.VswitchAttachment("db-private", { instanceId: db.id, vswitchId });
new vmhost.FirewallRule("db-postgres", {
  instanceId: db.id,
  protocol: "tcp",
  port: 5432,
  // The network's own CIDR, read from the attachment; config `privateCidr` where a host does not report it.
  sourceIp: dbLink.networkIp.apply((cidr) => cidr ?? config.require("privateCidr")),
  action: "accept",
  description: "PostgreSQL from the private network",
});

export const webInstanceIds = webs.map((w) => w.vm.id);
export const webPublicIps = webs.map((w) => w.ip.ipAddress);
export const dbInstanceId = db.id;
export const privateNetwork = dbLink.vswitchName;
export const privateNetworkCidr = dbLink.networkIp;
