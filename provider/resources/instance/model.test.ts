import type { InstanceDetail } from "../../api/schemas/instances";
import { inputsFromState, osLabel, powerStateOf, resolveVswitchId, toOutputs } from "./model";

const detail: InstanceDetail = {
  uuid: "9b756134-08d4-4ada-8f44-a1a86d2863a5", hostname: "web-1", username: "deploy", cpu: 2, is_cpu_dedicated: false,
  memory: 4, storage: 40, status: "Running", os_name: "Ubuntu", public_ip: { ip_id: "ip-1", ip_address: "103.150.12.10" },
  rdns: null, private_network: "jkt-private-1", location_id: 1, location: "Jakarta", tier_id: 2, tier: "Standard",
  os: { template_id: 1, version: "22.04", os_id: 1, name: "Ubuntu", image: null, min_cpu: 1, min_memory: 1, min_storage: 20 },
  price_per_hour: 300, estimated_monthly_price: 216000, cost: null, operation_flag: 0,
  created_at: "2026-11-21T15:00:00.000Z", updated_at: null, last_started_at: null, last_backup_at: null,
};
const vswitches = [
  { uuid: "11111111-1111-4111-8111-111111111111", name: "jkt-private-1" },
  { uuid: "22222222-2222-4222-8222-222222222222", name: "jkt-private-2" },
];

describe("Instance model", () => {
  it("outputs the inputs under their own names plus computed outputs", () => {
    const out = toOutputs(detail, { hostname: "web-1", password: "Blue-Horse-42", sshKeys: ["k"], deleteOptions: { removePublicIp: false, removeBlockStorage: false } });
    expect(out).toMatchObject({
      hostname: "web-1", cpu: 2, memory: 4, storage: 40, tierId: 2, locationId: 1, templateId: 1, username: "deploy", dedicatedCpu: false,
      password: "Blue-Horse-42", sshKeys: ["k"], deleteOptions: { removePublicIp: false, removeBlockStorage: false },
      status: "Running", ipAddress: "103.150.12.10", publicIpId: "ip-1", privateNetwork: "jkt-private-1", os: "Ubuntu 22.04",
      locationName: "Jakarta", tierName: "Standard",
    });
  });
  it("outputs the default deleteOptions of a VM declared without them (an adopted VM, a state from before the input)", () => {
    expect(toOutputs(detail, {}).deleteOptions).toEqual({ removePublicIp: true, removeBlockStorage: false });
  });

  it("outputs publicIp, publicNetworkId, vswitchId and powerState only when the user manages them", () => {
    const unmanaged = toOutputs(detail, {});
    for (const k of ["publicIp", "publicNetworkId", "vswitchId", "powerState"]) expect(unmanaged).not.toHaveProperty(k);
    const managed = toOutputs({ ...detail, status: "Stopped", public_ip: null }, { publicIp: true, publicNetworkId: "ip-9", vswitchId: "x", powerState: "running" }, "");
    expect(managed).toMatchObject({ publicIp: false, publicNetworkId: null, vswitchId: "", powerState: "stopped" });
  });

  it("keeps 'declared, currently none' through a read (publicNetworkId null stays declared)", () => {
    const first = toOutputs({ ...detail, public_ip: null }, { publicNetworkId: "ip-9" });
    const again = toOutputs({ ...detail, public_ip: null }, inputsFromState(first as unknown as Record<string, unknown>));
    expect(again).toEqual(first);
  });

  it.each([
    ["jkt-private-2", "22222222-2222-4222-8222-222222222222"],
    ["JKT-Private-1", "11111111-1111-4111-8111-111111111111"],
    ["22222222-2222-4222-8222-222222222222", "22222222-2222-4222-8222-222222222222"],
    [null, ""],
    ["   ", ""],
    ["unknown-net", "unknown-net"],
    [" 22222222-2222-4222-8222-222222222222 ", "22222222-2222-4222-8222-222222222222"],
    ["11111111-1111-4111-8111-111111111111".toUpperCase(), "11111111-1111-4111-8111-111111111111"],
    ["jkt-private-2 (10.10.2.0/24)", "22222222-2222-4222-8222-222222222222"],
    ["vswitch 11111111-1111-4111-8111-111111111111 (10.10.1.0/24)", "11111111-1111-4111-8111-111111111111"],
    ["jkt-private-3 (10.10.3.0/24)", "jkt-private-3 (10.10.3.0/24)"],
  ])("resolves the private network %p to %p", (text, uuid) => expect(resolveVswitchId(text, vswitches)).toBe(uuid));
  it("resolves the VM's private address to the network holding it, the VM's location first", () => {
    const nets = [
      { uuid: "11111111-1111-4111-8111-111111111111", name: "a", networkIp: "10.0.0.0/24", location: "Surabaya" },
      { uuid: "22222222-2222-4222-8222-222222222222", name: "b", networkIp: "10.0.0.0/24", location: "Jakarta" },
      { uuid: "33333333-3333-4333-8333-333333333333", name: "c", networkIp: "192.168.8.0/21", location: "Jakarta" },
    ];
    expect(resolveVswitchId("10.0.0.5", nets, "Jakarta")).toBe("22222222-2222-4222-8222-222222222222");
    // two networks hold it (no location to tell): neither is taken, the text shows as it is
    expect(resolveVswitchId("10.0.0.5", nets)).toBe("10.0.0.5");
    expect(resolveVswitchId("192.168.15.254/21", nets)).toBe("33333333-3333-4333-8333-333333333333");
    expect(resolveVswitchId("192.168.16.1", nets)).toBe("192.168.16.1");
    expect(resolveVswitchId("10.0.0.256", nets)).toBe("10.0.0.256");
    // only a text that is a host address: not one inside other text, not the network's or broadcast address (review)
    expect(resolveVswitchId("lan (192.168.8.0/21)", nets)).toBe("lan (192.168.8.0/21)");
    expect(resolveVswitchId("192.168.8.0", nets)).toBe("192.168.8.0");
    expect(resolveVswitchId("192.168.15.255", nets)).toBe("192.168.15.255");
  });
  it("resolves the VM's private address to the one network of its location whose range the host does not give, when no other can hold it", () => {
    const nets = [
      { uuid: "11111111-1111-4111-8111-111111111111", name: "a", networkIp: null, location: "Jakarta" },
      { uuid: "22222222-2222-4222-8222-222222222222", name: "b", networkIp: "10.0.0.0/24", location: "Jakarta" },
      { uuid: "33333333-3333-4333-8333-333333333333", name: "c", networkIp: null, location: "Surabaya" },
    ];
    expect(resolveVswitchId("172.16.0.9", nets, "Jakarta")).toBe("11111111-1111-4111-8111-111111111111");
    expect(resolveVswitchId("172.16.0.9", nets, "Surabaya")).toBe("33333333-3333-4333-8333-333333333333");
    // a known range holding it wins; no location, a second unknown range here, or not an address: nothing inferred
    expect(resolveVswitchId("10.0.0.9", nets, "Jakarta")).toBe("22222222-2222-4222-8222-222222222222");
    expect(resolveVswitchId("172.16.0.9", nets)).toBe("172.16.0.9");
    expect(resolveVswitchId("172.16.0.9", [...nets, { uuid: "44444444-4444-4444-8444-444444444444", name: "d", networkIp: null, location: null }], "Jakarta")).toBe("172.16.0.9");
    expect(resolveVswitchId("office", nets, "Jakarta")).toBe("office");
  });
  it("never takes a network without a name for any text with blanks or brackets", () => {
    expect(resolveVswitchId("office (lan)", [{ uuid: "33333333-3333-4333-8333-333333333333", name: "" }])).toBe("office (lan)");
  });
  it("prefers an exact uuid, then an exact name, over a name found inside the text", () => {
    const tricky = [
      { uuid: "44444444-4444-4444-8444-444444444444", name: "a" },
      { uuid: "55555555-5555-4555-8555-555555555555", name: "a b" },
    ];
    expect(resolveVswitchId("A B", tricky)).toBe("55555555-5555-4555-8555-555555555555");
    expect(resolveVswitchId("55555555-5555-4555-8555-555555555555", [{ uuid: "66666666-6666-4666-8666-666666666666", name: "55555555-5555-4555-8555-555555555555" }, ...tricky]))
      .toBe("55555555-5555-4555-8555-555555555555");
  });

  it("a network name used in several locations resolves to the one of the VM's location, else the first", () => {
    const nets = [
      { uuid: "11111111-1111-4111-8111-111111111111", name: "default", location: "Surabaya" },
      { uuid: "22222222-2222-4222-8222-222222222222", name: "default", location: "Jakarta" },
    ];
    expect(resolveVswitchId("default", nets, "jakarta ")).toBe("22222222-2222-4222-8222-222222222222");
    expect(resolveVswitchId("default", nets, "Surabaya")).toBe("11111111-1111-4111-8111-111111111111");
    expect(resolveVswitchId("default", nets, "Bali")).toBe("11111111-1111-4111-8111-111111111111");
    expect(resolveVswitchId("default", nets)).toBe("11111111-1111-4111-8111-111111111111");
  });

  it.each([
    ["Running", "running"], [" ACTIVE ", "running"], ["on", "running"],
    ["Stopped", "stopped"], ["shutoff", "stopped"], ["Off", "stopped"], ["stop", "stopped"],
    ["starting", "starting"], [" Error ", "error"],
  ])("power state of %p is %p", (status, state) =>
    expect(powerStateOf(status)).toBe(state));

  it.each([
    ["restarting", "running"], ["Starting", "running"], ["rebooting", "running"], ["stopping", "stopped"], ["Shutting down", "stopped"],
    ["Error", "error"], ["Running", "running"],
  ])("while an operation runs, %p counts as the state it ends in, %p (no drift during a panel restart)", (status, state) => {
    expect(powerStateOf(status, true)).toBe(state);
    expect(toOutputs({ ...detail, status, operation_flag: 1 }, { powerState: "running" }).powerState).toBe(state);
  });

  it("labels the OS with its version once", () => {
    expect(osLabel(detail)).toBe("Ubuntu 22.04");
    expect(osLabel({ ...detail, os_name: "Ubuntu 22.04" })).toBe("Ubuntu 22.04");
    expect(osLabel({ ...detail, os_name: " Ubuntu 22.04 " })).toBe("Ubuntu 22.04");
    expect(osLabel({ ...detail, os_name: "", os: { ...detail.os, name: " Debian ", version: " 12 " } })).toBe("Debian 12");
  });
});
