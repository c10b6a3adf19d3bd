/**
 * Several resources on one instance created in parallel, as Pulumi does for independent resources: an
 * address, a private network, a disk, a snapshot and a firewall rule. The API refuses a second operation
 * on a busy instance (409), and a snapshot keeps the instance busy for a while; operations on one instance
 * are serialized inside the provider and busy answers retried, so all of them succeed.
 */
import { startHarness, up, type FullProvider, type SimHarness } from "./attachment-helpers";
import { publicIpProvider } from "../../provider/resources/public-ip/provider";
import { vswitchAttachmentProvider } from "../../provider/resources/vswitch-attachment/provider";
import { blockStorageAttachmentProvider } from "../../provider/resources/block-storage-attachment/provider";
import { snapshotProvider } from "../../provider/resources/snapshot/provider";
import { firewallRuleProvider } from "../../provider/resources/firewall-rule/provider";

let h: SimHarness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

interface SimExtras {
  snapshots: { uuid: string; instanceUuid: string; name: string; status: string }[];
  firewallRules: { id: string; instanceUuid: string }[];
}

it("creates an address, a network, a disk, a snapshot and a firewall rule on one VM at once; all succeed", async () => {
  const vm = await h.newInstance("parallel-1");
  const state = await h.state();
  const network = state.vswitches.find((v) => v.locationId === 1)!;
  const disk = state.blockStorages.find((b) => b.locationId === 1 && b.instanceUuid === null)!;
  // an operation is already running when they start: every one of them has to wait its turn
  await h.client.instances.stop(vm);

  const mark = h.mark();
  const results = await Promise.allSettled([
    up(publicIpProvider as FullProvider, { instanceId: vm, rdns: "parallel.example.com" }),
    up(vswitchAttachmentProvider as FullProvider, { instanceId: vm, vswitchId: network.uuid }),
    up(blockStorageAttachmentProvider as FullProvider, { instanceId: vm, blockStorageId: disk.uuid }),
    up(snapshotProvider as FullProvider, { instanceId: vm, name: "parallel-snap" }),
    up(firewallRuleProvider as FullProvider, { instanceId: vm, protocol: "tcp", port: 22, action: "accept", description: "ssh" }),
  ]);
  expect(results.map((r) => (r.status === "rejected" ? String(r.reason) : "ok"))).toEqual(["ok", "ok", "ok", "ok", "ok"]);
  const [ip, att, bsa, snap, rule] = results.map((r) => (r as PromiseFulfilledResult<{ id: string }>).value);

  const after = await h.state();
  const inst = after.instances.find((i) => i.uuid === vm)!;
  expect(inst).toMatchObject({ publicIpUuid: ip!.id, rdns: "parallel.example.com", vswitchUuid: network.uuid, operationFlag: 0 });
  expect(inst.blockStorageIds).toEqual([bsa!.id]);
  expect(att!.id).toBe(`${vm}/${network.uuid}`);
  const extras = await h.admin<SimExtras>("GET", "/state");
  expect(extras.snapshots.filter((s) => s.instanceUuid === vm).map((s) => s.uuid)).toEqual([snap!.id]);
  expect(extras.firewallRules.filter((r) => r.instanceUuid === vm).map((r) => r.id)).toEqual([rule!.id]);
  // each change was sent exactly once: nothing was lost to a busy answer, nothing done twice
  const writes = h.operationsSince(mark).filter((o) =>
    ["addPublicIp", "updateRdns", "updatePrivateNetwork", "attachBlockStorage", "createSnapshot", "createFirewallRule"].includes(o ?? ""),
  );
  expect(writes.sort()).toEqual(["addPublicIp", "attachBlockStorage", "createFirewallRule", "createSnapshot", "updatePrivateNetwork", "updateRdns"]);
});
