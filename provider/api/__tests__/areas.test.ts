/**
 * Every area method of the client against the simulator (which validates paths, queries and bodies as the API
 * spec documents them and answers as the host does): each call reaches its route with the fields the API reads,
 * and returns what the host answered. A wrong route, a misspelt field or a dropped parameter shows here as a
 * refused request or a missing effect, as a user of the client would see it.
 */
import { createClient, type VmHostClient } from "..";
import { startSimulator, ManualClock } from "../../../simulator";

let sim: Awaited<ReturnType<typeof startSimulator>>;
let clock: ManualClock;
let client: VmHostClient;

beforeAll(async () => {
  clock = new ManualClock();
  sim = await startSimulator({ opSeconds: 10, clock });
  client = createClient({ baseUrl: sim.url, apiKey: sim.apiKey, logger: false, retryDelayScale: 0 });
});
afterAll(() => sim.close());
beforeEach(() => sim.reset());

/** The operation ids and queries the simulator saw since `from` (its request log). */
function seen(from: number): Array<{ operation: string | null; query: string; status: number | null }> {
  return sim.requests().slice(from).map((r) => ({ operation: r.operation, query: r.query, status: r.status }));
}

async function runningVm(hostname: string, usePublicIp = true): Promise<string> {
  const { uuid } = await client.instances.create({
    locationId: 1, tierId: 3, templateId: 2, hostname, cpu: 1, memory: 1, storage: 20,
    username: "ops", password: "Sup3r-secret", usePublicIp,
  });
  clock.advanceSeconds(11);
  return uuid;
}

test("catalogue: sizes, locations, tiers and systems", async () => {
  expect((await client.catalog.sizeTemplates()).map((s) => s.title)).toContain("Nano");
  expect((await client.catalog.locations()).map((l) => l.name)).toEqual(expect.arrayContaining(["Jakarta", "Singapore"]));
  expect((await client.catalog.tiers()).map((t) => t.name)).toEqual(expect.arrayContaining(["Basic", "Premium"]));
  expect((await client.catalog.systems()).length).toBeGreaterThan(0);
});

test("instances: lifecycle operations reach their routes and change the VM", async () => {
  const from = sim.requests().length;
  const uuid = await runningVm("areas-1");
  const created = await client.instances.get(uuid);
  expect(created).toMatchObject({ hostname: "areas-1", cpu: 1, status: "Running" });
  expect((await client.instances.list({ search: "areas-1", statuses: ["Running"] })).data.map((i) => i.uuid)).toEqual([uuid]);
  expect((await client.instances.list({ search: "areas-1", statuses: "Stopped" })).data).toEqual([]);
  expect((await client.instances.listAll({ search: "areas" })).map((i) => i.uuid)).toEqual([uuid]);
  const iterated: string[] = [];
  for await (const i of client.instances.iterate({ search: "areas" })) iterated.push(i.uuid);
  expect(iterated).toEqual([uuid]);

  await client.instances.updateHostname(uuid, { hostname: "areas-1b" });
  expect((await client.instances.get(uuid)).hostname).toBe("areas-1b");
  await client.instances.stop(uuid);
  clock.advanceSeconds(11);
  expect((await client.instances.get(uuid)).status).toBe("Stopped");
  await client.instances.start(uuid);
  clock.advanceSeconds(11);
  expect((await client.instances.get(uuid)).status).toBe("Running");
  await client.instances.restart(uuid);
  clock.advanceSeconds(11);
  await client.instances.resize(uuid, { cpu: 2, memory: 2, storage: 30 });
  clock.advanceSeconds(11);
  expect(await client.instances.get(uuid)).toMatchObject({ cpu: 2, memory: 2, storage: 30 });
  const cost = await client.instances.changeTierCost(uuid, { tierId: 1 });
  expect(cost).toBeDefined();
  await client.instances.changeTier(uuid, { tierId: 2 });
  clock.advanceSeconds(11);
  expect((await client.instances.get(uuid)).tier_id).toBe(2);
  await client.instances.setPassword(uuid, { password: "An0ther-secret" });
  await client.instances.reinstall(uuid, { templateId: 1, username: "ops", password: "Sup3r-secret" });
  clock.advanceSeconds(11);
  expect(await client.instances.metrics(uuid, { period: "day" })).toBeDefined();
  expect(await client.instances.console(uuid)).toBeDefined();
  const clone = await client.instances.clone(uuid, { hostname: "areas-clone", locationId: 1, tierId: 2 });
  expect(clone).toBeDefined();
  clock.advanceSeconds(11);

  await client.instances.delete(uuid, { removeIp: true, removeBlockStorage: true });
  clock.advanceSeconds(11);
  expect(await client.instances.find(uuid)).toBeUndefined();
  // deleting what is gone is "nothing to do", not an error
  expect(await client.instances.delete(uuid, { removeIp: true, removeBlockStorage: true })).toBeUndefined();
  expect(seen(from).filter((r) => r.status !== null && r.status >= 400 && r.operation !== "getInstance" && r.operation !== "deleteInstance")).toEqual([]);
  expect(seen(from).find((r) => r.operation === "getInstanceMetrics")?.query).toBe("periode=day");
  expect(seen(from).find((r) => r.operation === "getChangeTierCost")?.query).toBe("tier_id=1");
});

test("network: public addresses, reverse DNS, private networks, vswitches", async () => {
  const uuid = await runningVm("areas-net", false);
  expect((await client.instances.get(uuid)).public_ip?.ip_address ?? null).toBeNull();
  const added = await client.network.addPublicIp(uuid);
  expect(added).toBeDefined();
  clock.advanceSeconds(11);
  const vm = await client.instances.get(uuid);
  expect(vm.public_ip?.ip_address).toBeTruthy();
  expect(await client.network.updateRdns(vm.public_ip!.ip_id!, { rdns: "web.example.com" })).toBeDefined();
  const vswitches = await client.network.listVswitches();
  expect(vswitches.length).toBeGreaterThan(0);
  const options = await client.network.listVswitchOptions({ locationId: 1 });
  expect(options.length).toBeGreaterThan(0);
  const detail = await client.network.getVswitch(options[0]!.uuid);
  expect(detail).toBeDefined();
  expect(await client.network.findVswitch("00000000-0000-4000-8000-000000000000")).toBeUndefined();
  await client.network.updatePrivateNetwork(uuid, { vswitch: options[0]!.uuid });
  clock.advanceSeconds(11);
  await client.network.updatePrivateNetwork(uuid, { vswitch: null });
  clock.advanceSeconds(11);
  expect(await client.network.listInstancesWithoutPublicIp({ locationId: 1 })).toBeDefined();
  await client.network.changePublicIp(uuid, { publicNetwork: null });
  clock.advanceSeconds(11);
});

test("storage, snapshots, backups, firewall and billing", async () => {
  const uuid = await runningVm("areas-more");
  const from = sim.requests().length;
  const storage = await client.storage.listOptions({ locationId: 1 });
  expect(storage.length).toBeGreaterThan(0);
  await client.storage.attach(storage[0]!.id, { instanceId: uuid });
  clock.advanceSeconds(11);
  expect((await client.storage.list()).some((b) => b.attached_instance_uuid === uuid)).toBe(true);
  await client.storage.detach(storage[0]!.id);
  clock.advanceSeconds(11);

  const snap = await client.snapshots.create(uuid, { name: "before-upgrade", description: "areas" });
  clock.advanceSeconds(11);
  const snaps = await client.snapshots.list(uuid);
  expect(snaps.map((s) => s.name)).toContain("before-upgrade");
  expect(await client.snapshots.price(uuid, { tierId: 1 })).toBeDefined();
  const snapId = snaps[0]!.id;
  await client.snapshots.rollback(uuid, snapId);
  clock.advanceSeconds(11);
  await client.snapshots.delete(uuid, snapId);
  clock.advanceSeconds(11);
  expect(snap).toBeDefined();

  expect((await client.backups.list(uuid)).data).toBeDefined();
  expect(await client.backups.listAll(uuid)).toBeDefined();
  expect(await client.backups.price(uuid, { tierId: 1 })).toBeDefined();

  const created = await client.firewall.createRule(uuid, { action: "accept", protocol: "tcp", destinationPort: "22", sourceIp: "10.0.0.0/8", description: "ssh" });
  const ruleId = created.id!;
  expect(ruleId).toBeTruthy();
  const rules = await client.firewall.listAllRules(uuid);
  expect(rules.find((r) => r.id === ruleId)).toMatchObject({ destination_port: "22", protocol: "tcp", action: "A", source_ip: "10.0.0.0/8", description: "ssh" });
  expect((await client.firewall.listRules(uuid)).data.map((r) => r.id)).toContain(ruleId);
  await client.firewall.updateRule(uuid, ruleId, { description: "ssh from the office" });
  expect((await client.firewall.listAllRules(uuid)).find((r) => r.id === ruleId)?.description).toBe("ssh from the office");
  await client.firewall.setDefaultPolicy(uuid, { action: "drop" });
  expect(await client.firewall.getDefaultPolicy(uuid)).toEqual({ action: "D" });
  await client.firewall.setDefaultPolicy(uuid, { action: "accept" });
  expect(await client.firewall.getDefaultPolicy(uuid)).toEqual({ action: "A" });
  await client.firewall.deleteRule(uuid, ruleId);
  expect((await client.firewall.listAllRules(uuid)).map((r) => r.id)).not.toContain(ruleId);

  const methods = await client.billing.paymentMethods({ amount: 50_000 });
  expect(methods).toBeDefined();
  const topup = await client.billing.topup({ paymentMethod: "BCAVA", amount: 50_000 });
  expect(await client.billing.topupStatus(topup.invoice_id)).toBeDefined();
  expect(await client.billing.creditHistory({ limit: 5 })).toBeDefined();
  expect(await client.billing.creditHistoryAll()).toBeDefined();
  expect(await client.billing.summary()).toBeDefined();
  expect(seen(from).filter((r) => r.status !== null && r.status >= 400)).toEqual([]);
  expect(seen(from).find((r) => r.operation === "listPaymentMethods")?.query).toBe("amount=50000");
  expect(seen(from).find((r) => r.operation === "listBlockStorageOptions")?.query).toBe("location_id=1");
});

test("instances.list tells its caller when the request is sent (onSend), before the host answers", async () => {
  // The shared pre-create listing closes its batch then (wait/hostname-listing.ts): a dropped onSend would let a
  // create that asks after the listing was sent be answered by it.
  const events: string[] = [];
  const from = sim.requests().length;
  const listed = client.instances.list({ limit: 100, page: 1 }, { onSend: () => events.push(`sent, host saw ${sim.requests().length - from}`) });
  await listed;
  expect(events).toEqual(["sent, host saw 0"]);
  expect(seen(from).map((r) => r.operation)).toEqual(["listInstances"]);
});

describe("cancelling a call", () => {
  // Pulumi cancels an operation (Ctrl-C, a timeout) through the request's signal: every area method must hand it on,
  // so a cancelled call sends nothing. Written against surviving mutants that dropped `signal` from the options.
  // (The catalogue reads are shared by every caller of a client and read without a signal: client.ts cachingCall.)
  it("every area method given an aborted signal rejects without sending a request", async () => {
    const vm = "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab";
    const aborted = { signal: AbortSignal.abort(new Error("cancelled by the user")) };
    const calls: Array<[string, () => Promise<unknown>]> = [
      ["backups.list", () => client.backups.list(vm, undefined, aborted)],
      ["backups.price", () => client.backups.price(vm, { tierId: 1 }, aborted)],
      ["backups.delete", () => client.backups.delete(vm, vm, aborted)],
      ["billing.topupStatus", () => client.billing.topupStatus("inv-1", aborted)],
      ["billing.creditHistory", () => client.billing.creditHistory(undefined, aborted)],
      ["billing.report", () => client.billing.report("2024-01-31", aborted)],
      ["billing.summary", () => client.billing.summary(aborted)],
      ["firewall.listRules", () => client.firewall.listRules(vm, undefined, aborted)],
      ["network.listVswitches", () => client.network.listVswitches(aborted)],
      ["network.listVswitchOptions", () => client.network.listVswitchOptions({ locationId: 1 }, aborted)],
      ["network.getVswitch", () => client.network.getVswitch(vm, aborted)],
      ["network.getVswitchGraph", () => client.network.getVswitchGraph(1, aborted)],
      ["storage.listOptions", () => client.storage.listOptions({ locationId: 1 }, aborted)],
      ["storage.list", () => client.storage.list(aborted)],
      ["instances.list", () => client.instances.list(undefined, aborted)],
      ["instances.reinstall", () => client.instances.reinstall(vm, { templateId: 2 }, aborted)],
    ];
    const from = sim.requests().length;
    for (const [name, call] of calls) await expect(call().then(() => name)).rejects.toThrow("cancelled by the user");
    expect(seen(from)).toEqual([]);
  });
});

describe("reinstall", () => {
  it("sends the template, username and password it is given", async () => {
    const uuid = await runningVm("reinstall-body", false);
    clock.advanceSeconds(10);
    const from = sim.requests().length;
    await client.instances.reinstall(uuid, { templateId: 1, username: "admin2", password: "N3w-passw0rd" });
    const request = sim.requests().slice(from).find((r) => r.operation === "reinstallInstance");
    expect(request?.body).toMatchObject({ template_id: "1", username: "admin2", password: "N3w-passw0rd" });
  });
});
