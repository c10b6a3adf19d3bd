/**
 * Every SDK function against the simulator, called the way a script or test outside a Pulumi program calls
 * it (explicit `{ apiKey, baseUrl }`), plus the environment fallback, argument validation before any call,
 * and the rollbackSnapshot action (instance left stopped; nothing done during a preview).
 */
import * as pulumi from "@pulumi/pulumi";
import { createClient, type VmHostClient } from "../provider/api";
import * as vmhost from "../sdk/nodejs/functions";
import { startSimulator, type RunningSimulator } from "../simulator";

let sim: RunningSimulator;
let client: VmHostClient;
let opts: vmhost.FunctionOptions;
let vm: string;
let vswitchUuid: string;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const lastSeq = () => sim.requests().at(-1)?.seq ?? 0;

/** Polls until the instance is idle in `status`; fails after 10 s instead of hanging. */
async function waitIdle(uuid: string, status = "Running"): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const d = await client.instances.get(uuid);
    if (d.operation_flag === 0 && d.status === status) return;
    if (Date.now() > deadline) throw new Error(`instance ${uuid} not idle in ${status} within 10 s (status ${d.status})`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(async () => {
  sim = await startSimulator({ opSeconds: 0.05 });
  client = createClient({ baseUrl: sim.url, apiKey: sim.apiKey, logger: false });
  opts = { apiKey: sim.apiKey, baseUrl: sim.url };
  vswitchUuid = (await client.network.listVswitches())[0]!.uuid;
  const created = await client.instances.create({
    locationId: 1, tierId: 2, templateId: 1, hostname: "fn-web-1", cpu: 2, memory: 2, storage: 30,
    username: "admin", password: "Str0ng-Passw0rd!", usePublicIp: true, vswitch: vswitchUuid,
  });
  vm = created.uuid;
  await waitIdle(vm);
  await client.snapshots.create(vm, { name: "base", description: "first" });
  await waitIdle(vm);
  await fetch(`${sim.adminUrl}/instances/${vm}/backups`, { method: "POST" });
});
afterAll(async () => {
  await sim.close();
});

describe("catalogue lookups (what the Instance's ids refer to)", () => {
  it("getLocations lists every location with its id; getLocation finds one by name, any case", async () => {
    const { locations } = await vmhost.getLocations({}, opts);
    expect(locations).toEqual([
      { id: 1, name: "Jakarta", code: "JKT", country: "Indonesia" },
      { id: 2, name: "Surabaya", code: "SBY", country: "Indonesia" },
      { id: 3, name: "Singapore", code: "SGP", country: "Singapore" },
    ]);
    expect(await vmhost.getLocation({ name: "jakarta" }, opts)).toEqual(locations[0]);
    expect((await vmhost.getLocation({ id: 3 }, opts)).name).toBe("Singapore");
  });

  it("getLocation fails naming the valid locations and the function that lists them", async () => {
    await expect(vmhost.getLocation({ name: "Bandung" }, opts)).rejects.toThrow(
      'getLocation: no location "Bandung" on this host; valid: Jakarta (1), Surabaya (2), Singapore (3) (getLocations lists them)',
    );
    await expect(vmhost.getLocation({}, opts)).rejects.toThrow(/give name \(e\.g\. "Jakarta"\) or id/);
  });

  it("getTiers says which tiers offer dedicated CPUs, with prices; getTier finds one by name", async () => {
    const { tiers } = await vmhost.getTiers({}, opts);
    expect(tiers.map((t) => [t.id, t.name, t.dedicatedCpuAvailable])).toEqual([[1, "Basic", false], [2, "Standard", false], [3, "Premium", true]]);
    expect(tiers[2]!.prices.dedicatedCpuPerHour).toBe(200);
    expect(await vmhost.getTier({ name: "PREMIUM" }, opts)).toEqual(tiers[2]);
    await expect(vmhost.getTier({ name: "Gold" }, opts)).rejects.toThrow(/no tier "Gold" on this host; valid: Basic \(1\), Standard \(2\), Premium \(3\) \(getTiers lists them\)/);
  });

  it("getOsTemplates lists each template with its minimums; getOsTemplate finds one by name and version", async () => {
    const { templates } = await vmhost.getOsTemplates({}, opts);
    expect(templates).toContainEqual({ id: 4, name: "Windows Server", version: "2022", minCpu: 2, minMemory: 4, minStorage: 40 });
    expect((await vmhost.getOsTemplate({ name: "ubuntu", version: "22.04" }, opts)).id).toBe(1);
    expect((await vmhost.getOsTemplate({ name: "Debian" }, opts)).id).toBe(2);
    await expect(vmhost.getOsTemplate({ name: "Ubuntu", version: "18.04" }, opts)).rejects.toThrow(/no OS template "Ubuntu" version "18\.04".*Ubuntu 22\.04 \(1\).*getOsTemplates lists them/);
  });

  it("getBlockStorages lists disks attached or not, with location and instance; getBlockStorage finds one by name on every run", async () => {
    const before = await vmhost.getBlockStorage({ name: "jkt-data-50" }, opts);
    expect(before).toEqual(expect.objectContaining({ name: "jkt-data-50", size: 50, locationId: 1, location: "Jakarta", attachedInstanceId: null }));
    await client.storage.attach(before.id, { instanceId: vm });
    // attached: gone from getBlockStorageOptions, still found here (a program looking it up keeps the same disk)
    expect((await vmhost.getBlockStorageOptions({ locationId: 1 }, opts)).blockStorages.map((b) => b.id)).not.toContain(before.id);
    const after = await vmhost.getBlockStorage({ name: "JKT-DATA-50" }, opts);
    expect(after).toEqual({ ...before, attachedInstanceId: vm, attachedInstanceHostname: after.attachedInstanceHostname, status: after.status });
    const { blockStorages } = await vmhost.getBlockStorages({ locationId: 3 }, opts);
    expect(blockStorages.map((b) => b.name)).toEqual(["sgp-data-40"]);
    await expect(vmhost.getBlockStorage({ name: "nope" }, opts)).rejects.toThrow(/no block storage "nope" on this host; valid: .*jkt-data-100.* \(getBlockStorages lists them\)/);
    await client.storage.detach(before.id); // the other tests price the instance without it
    await waitIdle(vm);
  });

  it("getFirewallRules lists an instance's rules with the ids a FirewallRule adopts", async () => {
    const id = (await client.firewall.createRule(vm, { protocol: "tcp", destinationPort: "2222", action: "accept", sourceIp: "10.0.0.0/8", description: "lookup" })).id!;
    await waitIdle(vm);
    const { rules } = await vmhost.getFirewallRules({ instanceId: vm.toUpperCase() }, opts);
    expect(rules).toContainEqual({ id, protocol: "tcp", port: "2222", sourceIp: "10.0.0.0/8", action: "accept", description: "lookup" });
    await client.firewall.deleteRule(vm, id);
    await waitIdle(vm);
  });

  it("the Output forms take Pulumi inputs (getLocationOutput(...).id feeds an Instance's locationId)", async () => {
    const id = await new Promise<number>((resolve) => vmhost.getLocationOutput({ name: pulumi.output("Surabaya") }, opts).id.apply(resolve));
    expect(id).toBe(2);
  });
});

describe("functions (read endpoints)", () => {
  it("getSizeTemplates: memory and storage in GB", async () => {
    const { templates } = await vmhost.getSizeTemplates({}, opts);
    expect(templates).toContainEqual(expect.objectContaining({ title: "Nano", totalCpu: 1, totalRam: 1, totalDisk: 20 }));
    expect(templates[0]!.createdAt).toMatch(ISO);
  });

  it("getInstances: every instance, camelCase, filterable by hostname", async () => {
    const { instances } = await vmhost.getInstances({ search: "fn-web" }, opts);
    expect(instances).toEqual([expect.objectContaining({ uuid: vm, hostname: "fn-web-1", cpu: 2, memory: 2, storage: 30, status: "Running", operationFlag: 0 })]);
    expect(instances[0]!.ipAddress).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect((await vmhost.getInstances({ statuses: ["Stopped"] }, opts)).instances).toEqual([]);
  });

  it("getInstance: the detail with its address, network and OS", async () => {
    const detail = await vmhost.getInstance({ instanceId: vm }, opts);
    expect(detail).toEqual(expect.objectContaining({ uuid: vm, username: "admin", tierId: 2, locationId: 1, isCpuDedicated: false, memory: 2 }));
    expect(detail.publicIp?.ipId).toMatch(UUID);
    expect(detail.privateNetwork).not.toBeNull();
    expect(detail.os).toEqual(expect.objectContaining({ templateId: 1, name: "Ubuntu" }));
    expect(detail.createdAt).toMatch(ISO);
  });

  it("getInstanceMetrics: four series with ISO times", async () => {
    const m = await vmhost.getInstanceMetrics({ instanceId: vm, period: "hour" }, opts);
    for (const series of [m.cpu, m.memory, m.network, m.disk]) expect(series.length).toBeGreaterThan(0);
    expect(m.cpu[0]!.time).toMatch(ISO);
    expect(typeof m.memory[0]!.rawUsageMemory).toBe("number");
  });

  it("getVswitches and getVswitchOptions: private networks with their location", async () => {
    const { vswitches } = await vmhost.getVswitches({}, opts);
    expect(vswitches.map((v) => v.uuid)).toContain(vswitchUuid);
    expect(vswitches[0]!.location.name).toEqual(expect.any(String));
    const jakarta = await vmhost.getVswitchOptions({ locationId: 1 }, opts);
    expect(jakarta.vswitches.length).toBeGreaterThan(0);
    expect(jakarta.vswitches.every((v) => v.location.name === "Jakarta")).toBe(true);
  });

  it("getVswitch: the detail counts the attached instance", async () => {
    const net = await vmhost.getVswitch({ vswitchId: vswitchUuid }, opts);
    expect(net).toEqual(expect.objectContaining({ uuid: vswitchUuid, totalActiveInstance: 1 }));
    expect(net.location.id).toEqual(expect.any(Number));
  });

  it("getVswitchGraph: by the network's integer id as the spec types it (its tag): nodes and edges, free-form node data passed through", async () => {
    const net = await vmhost.getVswitch({ vswitchId: vswitchUuid }, opts);
    const mark = sim.requests().length;
    const graph = await vmhost.getVswitchGraph({ vswitchId: net.tag }, opts);
    expect(sim.requests().slice(mark).map((r) => r.path)).toEqual([`/v1/network/vswitch/${net.tag}/graph`]);
    expect(graph.nodes.length).toBeGreaterThan(0);
    expect(graph.nodes[0]!.id).toBe(vswitchUuid);
    expect(graph.edges.every((e) => typeof e.source === "string" && typeof e.target === "string")).toBe(true);
  });

  it("getVswitchGraph with a uuid that the host refuses: the error says the route takes the integer id and where to find it", async () => {
    await fetch(`${sim.adminUrl}/faults`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ respondNext: { operation: "getVswitchGraph", status: 404, message: "Private network not found." } }) });
    const error = (await vmhost.getVswitchGraph({ vswitchId: vswitchUuid }, opts).catch((e: unknown) => e)) as Error;
    expect(error.message).toContain('HTTP 404 not found. The API said: "Private network not found.".');
    expect(error.message).toContain("vswitchId: this route takes the private network's integer id (api-spec.md §4.4), not its uuid: pass its `tag`");
    // an integer the host does not know is just not found
    await fetch(`${sim.adminUrl}/faults`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ respondNext: { operation: "getVswitchGraph", status: 404, message: "Private network not found." } }) });
    const plain = (await vmhost.getVswitchGraph({ vswitchId: 999 }, opts).catch((e: unknown) => e)) as Error;
    expect(plain.message).not.toContain("not its uuid");
  });

  it("getBlockStorageOptions: unattached disks of a location, size in GB", async () => {
    const { blockStorages } = await vmhost.getBlockStorageOptions({ locationId: 1 }, opts);
    expect(blockStorages.length).toBeGreaterThan(0);
    expect(blockStorages[0]).toEqual({ id: expect.stringMatching(UUID), name: expect.any(String), size: expect.any(Number) });
  });

  it("getSnapshots: the instance's snapshots with prices", async () => {
    const { snapshots } = await vmhost.getSnapshots({ instanceId: vm }, opts);
    expect(snapshots).toEqual([expect.objectContaining({ name: "base", description: "first", status: "Ready", isCurrentState: true })]);
    expect(snapshots[0]!.estimatedMonthly).toEqual(expect.any(Number));
  });

  it("getSnapshotPrice, getBackupPrice, getChangeTierCost: numbers", async () => {
    const snap = await vmhost.getSnapshotPrice({ instanceId: vm, tierId: 3 }, opts);
    expect(snap.pricePerMonth).toBeGreaterThan(0);
    const backup = await vmhost.getBackupPrice({ instanceId: vm, tierId: 3 }, opts);
    expect(backup).toEqual({ storageSize: 30, blockStorageSize: 0, pricePerHour: expect.any(Number), pricePerMonth: expect.any(Number) });
    const tier = await vmhost.getChangeTierCost({ instanceId: vm, tierId: 3 }, opts);
    expect(tier.estimatedNewMonthlyCost).toBeGreaterThan(tier.currentMonthlyCost);
  });

  it("getBackups: every page of the backup history", async () => {
    const { backups } = await vmhost.getBackups({ instanceId: vm }, opts);
    expect(backups).toEqual([expect.objectContaining({ schedule: "Daily", size: 30 })]);
    expect(backups[0]!.createdAt).toMatch(ISO);
  });

  it("getPaymentMethods: flattened across categories, with fees for the amount", async () => {
    const { methods } = await vmhost.getPaymentMethods({ amount: 100000 }, opts);
    expect(new Set(methods.map((m) => m.category))).toEqual(new Set(["bank", "card", "ritel", "ewallet", "qris"]));
    expect(methods.find((m) => m.code === "QRIS")?.fee).toBe(700);
  });

  it("getCreditHistory: amounts as numbers, filtered by kind and dates", async () => {
    const all = await vmhost.getCreditHistory({}, opts);
    expect(all.entries.length).toBe(12);
    const additions = await vmhost.getCreditHistory({ type: "addition" }, opts);
    expect(additions.entries.length).toBe(6);
    expect(additions.entries.every((e) => e.type === "Add" && e.amount > 0)).toBe(true);
    const june = await vmhost.getCreditHistory({ start: "2024-06-01", end: "2024-06-30" }, opts);
    expect(june.entries.length).toBe(2);
  });

  it("getBillingReport: the report of a billing date with its services", async () => {
    const report = await vmhost.getBillingReport({ date: "2024-06-01" }, opts);
    expect(report).toEqual(expect.objectContaining({ billingDate: "2024-06-01", status: "Settled", fullySettle: true, billingPeriod: expect.stringMatching(/May 2024/) }));
    expect(report.services.flatMap((s) => s.reports.map((r) => r.serviceName))).toEqual(expect.arrayContaining(["web-01", "db-01"]));
  });

  it("getInstancesWithoutPublicIp: instances of a location without an address", async () => {
    const bare = await client.instances.create({
      locationId: 1, tierId: 1, templateId: 1, hostname: "fn-bare-1", cpu: 1, memory: 1, storage: 20,
      username: "admin", password: "Str0ng-Passw0rd!", usePublicIp: false,
    });
    await waitIdle(bare.uuid);
    const { instances } = await vmhost.getInstancesWithoutPublicIp({ locationId: 1 }, opts);
    expect(instances).toContainEqual({ id: bare.uuid, hostname: "fn-bare-1" });
    expect(instances.map((i) => i.id)).not.toContain(vm);
  });
});

describe("function configuration and arguments", () => {
  it("refuses bad arguments, naming them, before any API call", async () => {
    const before = lastSeq();
    await expect(vmhost.getInstance({ instanceId: "web-1" }, opts)).rejects.toThrow(/getInstance: instanceId must be a uuid/);
    await expect(vmhost.getInstances({ statuses: "Running" as unknown as string[] }, opts)).rejects.toThrow(/^getInstances: statuses must be /);
    await expect(vmhost.getLocation({ name: "Jakarta", colour: 1 } as never, opts)).rejects.toThrow(/getLocation: colour is not a property of getLocation/);
    for (const bad of [vmhost.getInstances({ statuses: 5 as never }, opts), vmhost.getTier({ id: "two" as never }, opts), vmhost.getLocations({ x: 1 } as never, opts)]) {
      const e = await bad.catch((err: Error) => err);
      expect((e as Error).message).not.toMatch(/Invalid input|expected .*, received|Unrecognized key/);
    }
    await expect(vmhost.getInstanceMetrics({ instanceId: vm, period: "minute" as "hour" }, opts)).rejects.toThrow(/period must be one of/);
    await expect(vmhost.getBillingReport({ date: "01/06/2024" }, opts)).rejects.toThrow(vmhost.FunctionArgumentError);
    // a value of the wrong type is not called missing (audit: "locationId is required" for locationId "1")
    const wrongType = await vmhost.getVswitchOptions({ locationId: "1" as never }, opts).catch((e: Error) => e);
    expect((wrongType as Error).message).toMatch(/locationId/);
    expect((wrongType as Error).message).not.toMatch(/required/);
    expect(sim.requests().filter((r) => r.seq > before)).toEqual([]);
  });

  it("a failure whose message says it all is a Pulumi RunError: the program prints the message, not the stack", async () => {
    // Printed with its stack (util.inspect in colour), a failure inside an Output has a frame Pulumi's source map names
    // node_modules/@pulumi/output.ts, on which Node 20.20's inspect loops until the string overflows: a typo'd location
    // name took minutes and gigabytes to be reported. The language runtime prints a RunError's message alone.
    const wrongName = await vmhost.getLocation({ name: "Jakart" }, opts).catch((e: unknown) => e);
    const badArgument = await vmhost.getInstance({ instanceId: "web-1" }, opts).catch((e: unknown) => e);
    const wrongKey = await vmhost.getLocations({}, { ...opts, apiKey: "wrong-key-1234" }).catch((e: unknown) => e);
    for (const [e, text] of [[wrongName, /no location "Jakart"/], [badArgument, /instanceId must be a uuid/], [wrongKey, /vmhost:apiKey/]] as const) {
      expect((e as Error).message).toMatch(text);
      expect(pulumi.RunError.isInstance(e)).toBe(true);
    }
    // each names the function the program called, an API failure too (it named only the API route)
    for (const [e, fn] of [[wrongName, "getLocation"], [badArgument, "getInstance"], [wrongKey, "getLocations"]] as const)
      expect((e as Error).message).toMatch(new RegExp(`^${fn}: `));
    expect(wrongName).toBeInstanceOf(vmhost.FunctionArgumentError);
    expect(Object.keys(wrongName as object)).not.toContain("__pulumiRunError"); // not shown by inspect either
    // The runtime formats it with util.inspect all the same (for its tracing span). In an Output a frame reads
    // node_modules/@pulumi/output.ts; Node 20.20's inspect in colour loops on such a frame (27 s here, minutes on a busy
    // machine): the frames, which only pointed into this package, are gone.
    expect((wrongName as Error).stack).toBe(`FunctionArgumentError: ${(wrongName as Error).message}`);
  });

  it("falls back to VMHOST_API_KEY / VMHOST_BASE_URL, and says what to set when neither is there", async () => {
    const saved = { key: process.env.VMHOST_API_KEY, url: process.env.VMHOST_BASE_URL };
    try {
      process.env.VMHOST_API_KEY = sim.apiKey;
      process.env.VMHOST_BASE_URL = sim.url;
      expect((await vmhost.getSizeTemplates()).templates.length).toBe(5);
      delete process.env.VMHOST_API_KEY;
      await expect(vmhost.getSizeTemplates()).rejects.toThrow(/vmhost:apiKey/);
    } finally {
      if (saved.key === undefined) delete process.env.VMHOST_API_KEY;
      else process.env.VMHOST_API_KEY = saved.key;
      if (saved.url === undefined) delete process.env.VMHOST_BASE_URL;
      else process.env.VMHOST_BASE_URL = saved.url;
    }
  });

  it("getSnapshotsOutput takes Pulumi inputs and resolves to the same result", async () => {
    const out = vmhost.getSnapshotsOutput({ instanceId: pulumi.output(vm) }, opts);
    const value = await new Promise<vmhost.GetSnapshotsResult>((resolve) => out.apply((v) => resolve(v)));
    expect(value.snapshots.map((s) => s.name)).toEqual(["base"]);
  });
});

describe("rollbackSnapshot (an action)", () => {
  it("rolls back, waits until the instance is idle, and leaves it stopped", async () => {
    const second = await client.snapshots.create(vm, { name: "second", description: "later" });
    await waitIdle(vm);
    const base = (await client.snapshots.list(vm)).find((s) => s.name === "base")!;
    const result = await vmhost.rollbackSnapshot({ instanceId: vm, snapshotId: base.id, timeout: "1m" }, opts);
    expect(result).toEqual({ performed: true, instanceId: vm, snapshotId: base.id, status: "Stopped" });
    const detail = await client.instances.get(vm);
    expect(detail.status).toBe("Stopped");
    expect(detail.operation_flag).toBe(0);
    const snapshots = await client.snapshots.list(vm);
    expect(snapshots.find((s) => s.id === base.id)?.is_current_state).toBe(true);
    expect(snapshots.find((s) => s.id === second.snap_uuid)?.is_current_state).toBe(false);
  });

  describe.each([
    [true, "ran (answer lost after it): not sent again", 1],
    [false, "never reached the host: sent again", 2],
  ])("a rollback whose answer is lost (afterProcessing %s)", (afterProcessing, what, rollbacksSeen) => {
    it(`${what}`, async () => {
      await client.instances.start(vm).catch(() => undefined);
      await waitIdle(vm);
      const later = await client.snapshots.create(vm, { name: `later-${String(afterProcessing)}`, description: "later" });
      await waitIdle(vm);
      const base = (await client.snapshots.list(vm)).find((s) => s.name === "base")!;
      const since = lastSeq();
      sim.setFaults({ resetNext: { operation: "rollbackSnapshot", count: 1, afterProcessing } });
      const result = await vmhost.rollbackSnapshot({ instanceId: vm, snapshotId: base.id, timeout: "1m" }, opts);
      expect(result).toEqual({ performed: true, instanceId: vm, snapshotId: base.id, status: "Stopped" });
      const sent = sim.requests().filter((r) => r.seq > since && r.path.endsWith(`/snapshot/${base.id}/rollback`));
      expect(sent).toHaveLength(rollbacksSeen);
      const snapshots = await client.snapshots.list(vm);
      expect([snapshots.find((s) => s.id === base.id)?.is_current_state, snapshots.find((s) => s.id === later.snap_uuid)?.is_current_state]).toEqual([true, false]);
    });
  });

  it("a rollback the host holds past the request bound and carries out late runs once: looked at again before any resend", async () => {
    // update audit: sent again as soon as the VM was idle with no trace of it, the held request then ran too (two rollbacks)
    const saved = process.env.VMHOST_REQUEST_TIMEOUT;
    process.env.VMHOST_REQUEST_TIMEOUT = "1s";
    try {
      await client.instances.start(vm).catch(() => undefined);
      await waitIdle(vm);
      await client.snapshots.create(vm, { name: "later-held", description: "later" });
      await waitIdle(vm);
      const base = (await client.snapshots.list(vm)).find((s) => s.name === "base")!;
      const since = lastSeq();
      sim.setFaults({ delayNext: { operation: "rollbackSnapshot", ms: 1500, count: 1 } });
      const result = await vmhost.rollbackSnapshot({ instanceId: vm, snapshotId: base.id, timeout: "1m" }, opts);
      expect(result).toEqual({ performed: true, instanceId: vm, snapshotId: base.id, status: "Stopped" });
      // (the held request was answered by now: the function waited for it to land)
      expect(sim.requests().filter((r) => r.seq > since && r.path.endsWith(`/snapshot/${base.id}/rollback`)).map((r) => r.status)).toEqual([200]);
    } finally {
      if (saved === undefined) delete process.env.VMHOST_REQUEST_TIMEOUT;
      else process.env.VMHOST_REQUEST_TIMEOUT = saved;
    }
  });

  it("does nothing during a preview", async () => {
    const before = lastSeq();
    const base = (await client.snapshots.list(vm)).find((s) => s.name === "base")!;
    // setMocks with preview=true is how a program sees `pulumi preview` (isDryRun() true)
    await pulumi.runtime.setMocks(
      { newResource: (a) => ({ id: `${a.name}-id`, state: a.inputs }), call: (a) => a.inputs },
      "project",
      "stack",
      true,
    );
    expect(pulumi.runtime.isDryRun()).toBe(true);
    const result = await vmhost.rollbackSnapshot({ instanceId: vm, snapshotId: base.id }, opts);
    expect(result).toEqual({ performed: false, instanceId: vm, snapshotId: base.id, status: null });
    // a timeout the up would refuse is refused at preview already
    await expect(vmhost.rollbackSnapshot({ instanceId: vm, snapshotId: base.id, timeout: "5 minutes" }, opts)).rejects.toThrow(
      'rollbackSnapshot: timeout must be a duration like "20m", between 1ms and 168h (7 days), got "5 minutes"',
    );
    expect(sim.requests().filter((r) => r.seq > before && r.method !== "GET")).toEqual([]);
  });
});
