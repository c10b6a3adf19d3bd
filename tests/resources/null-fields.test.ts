/**
 * Hosts that leave non-essential columns empty (`null`) in list and detail rows: prices, costs, names of the location
 * and tier, the OS name, addresses, timestamps, a vswitch's network and gateway (the simulator's `wire.nullFields`).
 * No read may reject the whole answer for them; they are read as unknown (null), and a refresh and a preview right
 * after a create show no change. (real-api-facts audit, item 3)
 */
import "./instance-env";
import { providers } from "../../provider";
import { harnessSuite, preview, type FullProvider } from "./attachment-helpers";
import { validCreate } from "./instance-cases";
import { forgetDeployment } from "../../provider/registry";

const instance = providers.Instance as FullProvider;
const snapshot = providers.Snapshot as FullProvider;
const firewallRule = providers.FirewallRule as FullProvider;
const publicIp = providers.PublicIp as FullProvider;
const vswitchAttachment = providers.VswitchAttachment as FullProvider;
const storageAttachment = providers.BlockStorageAttachment as FullProvider;
const h = harnessSuite();
afterEach(() => h().clearFaults());

/** Every field the provider does not need to know what a VM, snapshot, network or disk is. */
const NON_ESSENTIAL = [
  "price_per_hour", "estimated_monthly_cost", "estimated_monthly_price", "cost", "location", "tier", "os_name", "ip_address",
  "ipv6_address", "created_at", "updated_at", "last_started_at", "last_backup_at", "current_hourly_price", "current_cost",
  "estimated_monthly", "network_ip", "location_flag", "gateway", "vid", "total_active_instance", "instance_hostname", "image",
  "version", "os_id", "min_cpu", "min_memory", "min_storage",
];

async function lifecycle(p: FullProvider, program: Record<string, unknown>): Promise<{ id: string; outs: Record<string, unknown> }> {
  const checked = await p.check({}, program);
  expect(checked.failures ?? []).toEqual([]);
  const created = await p.create(checked.inputs);
  forgetDeployment(); // the refresh and the preview are later runs
  const read = await p.read(created.id, created.outs);
  expect(read.id).toBe(created.id);
  expect(read.props).toEqual(created.outs);
  expect(await preview(p, created.id, read.props, program)).toMatchObject({ changes: false });
  return { id: created.id, outs: created.outs as Record<string, unknown> };
}

describe.each([
  ["from the start", true],
  ["only after the create (refresh)", false],
])("non-essential fields null %s", (_label, fromStart) => {
  const tag = fromStart ? "a" : "b";
  const nulls = () => h().setFaults({ wire: { nullFields: NON_ESSENTIAL } });
  beforeEach(async () => {
    if (fromStart) await nulls();
  });

  it("Instance with a public address and a private network", async () => {
    const program = { ...validCreate, hostname: `nulls-${tag}`, publicIp: true, vswitchId: "f8aaaff3-480f-475d-88d8-5464b9ee310d" };
    const checked = await instance.check({}, program);
    expect(checked.failures ?? []).toEqual([]);
    const created = await instance.create(checked.inputs);
    forgetDeployment();
    if (!fromStart) await nulls();
    const read = await instance.read(created.id, created.outs);
    expect(read.id).toBe(created.id);
    const outs = read.props as Record<string, unknown>;
    for (const k of ["hostname", "cpu", "memory", "storage", "tierId", "locationId", "templateId", "status", "publicIpId", "vswitchId"])
      expect([k, outs[k]]).toEqual([k, (created.outs as Record<string, unknown>)[k]]);
    expect(await preview(instance, created.id, read.props, program)).toEqual(expect.objectContaining({ changes: false }));
    forgetDeployment();
    const vm = (await h().state()).instances.find((i) => i.uuid === created.id)!;
    expect([vm.hostname, vm.status]).toEqual([`nulls-${tag}`, "Running"]);
  });

  it("Snapshot, FirewallRule, PublicIp, VswitchAttachment, BlockStorageAttachment", async () => {
    const vm = await h().newInstance(`nulls-deps-${tag}`);
    if (!fromStart) {
      // created without nulls, refreshed with them: the essential outputs stay, the preview shows no change
      for (const [p, program] of [
        [snapshot, { instanceId: vm, name: "s" }],
        [firewallRule, { instanceId: vm, port: "22", protocol: "tcp", action: "accept" }],
        [publicIp, { instanceId: vm }],
        [vswitchAttachment, { instanceId: vm, vswitchId: "5d9df75b-eddc-4b4c-bba8-cf358958f15e" }],
        [storageAttachment, { instanceId: vm, blockStorageId: "5d1492a6-7da6-4a96-988f-348b6a24cfa9" }],
      ] as const) {
        const checked = await p.check({}, program);
        const created = await p.create(checked.inputs);
        forgetDeployment();
        await nulls();
        const read = await p.read(created.id, created.outs);
        expect(read.id).toBe(created.id);
        expect(await preview(p, created.id, read.props, program)).toMatchObject({ changes: false });
        await h().clearFaults();
      }
      return;
    }
    await lifecycle(snapshot, { instanceId: vm, name: "s" });
    await lifecycle(firewallRule, { instanceId: vm, port: "22", protocol: "tcp", action: "accept" });
    await lifecycle(publicIp, { instanceId: vm });
    await lifecycle(vswitchAttachment, { instanceId: vm, vswitchId: "5d9df75b-eddc-4b4c-bba8-cf358958f15e" });
    await lifecycle(storageAttachment, { instanceId: vm, blockStorageId: "db6d5e8e-d773-4746-a190-15b68be62fd5" });
  });
});
