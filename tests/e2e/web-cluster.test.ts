/**
 * examples/web-cluster end to end (packed package, local engine, simulator): web VMs and a database on a
 * private network, public addresses and firewall rules as standalone resources. The tests run in order and
 * share one stack.
 */
import { EngineResult } from "../../tools/local-engine";
import {
  ExampleStack,
  SimState,
  TestSimulator,
  VM_PASSWORD,
  expectOk,
  patchInstance,
  simRequests,
  simState,
  startTestSimulator,
  stateResources,
} from "./helpers";

// Each test runs the engine up to three times (a few seconds each); leave room for a loaded machine.
jest.setTimeout(180_000);

let sim: TestSimulator;
let stack: ExampleStack;
let vswitchId = "";
let ids: { web1: string; web2: string; db: string };
/** The address taken off web-1 in the "panel": it stays reserved in the account, as the API does. */
let removedByHand = "";

beforeAll(async () => {
  sim = await startTestSimulator();
  vswitchId = (await simState(sim)).vswitches.find((v) => v.name === "jkt-private-1")!.uuid;
  stack = await ExampleStack.create("web-cluster", sim, { vswitchId, adminCidr: "198.51.100.0/24" });
}, 120_000);

afterAll(async () => {
  await sim?.close();
  stack?.remove();
});

function changed(r: EngineResult): Array<{ op: string; name: string }> {
  return r.steps.filter((s) => s.op !== "same").map((s) => ({ op: s.op, name: s.name }));
}

function rulesOf(state: SimState, instanceUuid: string): string[] {
  return state.firewallRules
    .filter((r) => r.instanceUuid === instanceUuid)
    .map((r) => `${String(r.protocol)}/${r.destinationPort} ${String(r.action)} from ${String(r.sourceIp ?? "any")}`)
    .sort();
}

test("up builds the cluster: every VM on the private network, web VMs with addresses and firewall rules", async () => {
  const r = expectOk(await stack.run("up"));
  expect(r.summary.create).toBe(1 + 2 * 6 + 3); // stack, 2 x (vm, link, 3 rules, ip), db + link + rule
  const [web1, web2] = r.outputs.webInstanceIds as string[];
  ids = { web1: web1!, web2: web2!, db: String(r.outputs.dbInstanceId) };

  const state = await simState(sim);
  const vm = (uuid: string) => state.instances.find((i) => i.uuid === uuid);
  expect(vm(ids.web1)).toMatchObject({ hostname: "web-1", status: "Running", vswitchUuid: vswitchId });
  expect(vm(ids.web2)).toMatchObject({ hostname: "web-2", status: "Running", vswitchUuid: vswitchId });
  expect(vm(ids.db)).toMatchObject({ hostname: "db-1", status: "Running", vswitchUuid: vswitchId, publicIpUuid: null });
  expect(r.outputs.webPublicIps).toEqual([vm(ids.web1)?.publicIpAddress, vm(ids.web2)?.publicIpAddress]);
  expect(vm(ids.web1)?.publicIpAddress).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
  expect(r.outputs).toMatchObject({ privateNetwork: "jkt-private-1", privateNetworkCidr: "10.10.1.0/24" });

  for (const web of [ids.web1, ids.web2]) {
    expect(rulesOf(state, web)).toEqual(["tcp/22 A from 198.51.100.0/24", "tcp/443 A from any", "tcp/80 A from any"]);
  }
  expect(rulesOf(state, ids.db)).toEqual(["tcp/5432 A from 10.10.1.0/24"]);
  expect(stack.stateText()).not.toContain(sim.apiKey);
  expect(stack.stateText()).not.toContain(VM_PASSWORD);
});

test("a web VM gets its public address only after its firewall rules exist (dependsOn)", async () => {
  const requests = await simRequests(sim);
  for (const web of [ids.web1, ids.web2]) {
    const onIt = requests.filter((q) => q.path.includes(web));
    const lastRule = Math.max(...onIt.filter((q) => q.operation === "createFirewallRule").map((q) => q.seq));
    const address = onIt.find((q) => q.operation === "addPublicIp" || q.operation === "changePublicIp");
    expect(address).toBeDefined();
    expect(address!.seq).toBeGreaterThan(lastRule);
  }
});

test("a preview right after up shows no changes", async () => {
  const r = expectOk(await stack.run("preview", { expectNoChanges: true }));
  expect(r.summary).toMatchObject({ create: 0, update: 0, replace: 0, delete: 0 });
});

test("an address taken off and a network link removed in the panel: refresh shows the address detached and the link gone (not the VM), up assigns that same address back and restores the link", async () => {
  removedByHand = (await simState(sim)).instances.find((i) => i.uuid === ids.web1)!.publicIpAddress!;
  await patchInstance(sim, ids.web1, { publicIp: false, vswitchId: null });

  const refresh = expectOk(await stack.run("refresh"));
  const gone = (refresh.drift ?? []).filter((d) => d.gone).map((d) => d.name).sort();
  expect(gone).toEqual(["web-1-private"]);
  // the address stays reserved in the account: the PublicIp keeps it, detached
  expect(refresh.drift?.find((d) => d.name === "web-1-ip")?.properties.map((p) => p.name)).toContain("detached");
  // One owner per address and link: none of the Instance's declared properties drifts (its computed
  // outputs such as updatedAt may move), and the up below changes nothing on it.
  const declared = ["hostname", "cpu", "memory", "storage", "powerState", "publicIp", "publicNetworkId", "vswitchId"];
  const web1Drift = refresh.drift?.find((d) => d.name === "web-1")?.properties.map((p) => p.name) ?? [];
  expect(web1Drift.filter((p) => declared.some((d) => p.startsWith(d)))).toEqual([]);

  const up = expectOk(await stack.run("up"));
  expect(changed(up).sort((a, b) => a.name.localeCompare(b.name))).toEqual([
    { op: "update", name: "web-1-ip" },
    { op: "create", name: "web-1-private" },
  ]);
  const web1 = (await simState(sim)).instances.find((i) => i.uuid === ids.web1);
  expect(web1?.vswitchUuid).toBe(vswitchId);
  expect(web1?.publicIpAddress).toBe(removedByHand);

  expectOk(await stack.run("preview", { refresh: true, expectNoChanges: true }));
});

test("a new hostname prefix renames the web VMs in place; a smaller webCount deletes web-2 and what belongs to it", async () => {
  const r = expectOk(await stack.run("up", { config: { hostnamePrefix: "www", webCount: "1" } }));
  const byName = Object.fromEntries(changed(r).map((s) => [s.name, s.op]));
  expect(byName).toEqual({
    "web-1": "update",
    "web-2": "delete",
    "web-2-ip": "delete",
    "web-2-private": "delete",
    "web-2-http": "delete",
    "web-2-https": "delete",
    "web-2-ssh": "delete",
  });
  expect(r.steps.find((s) => s.name === "web-1" && s.op === "update")?.diffs).toEqual(["hostname"]);

  const state = await simState(sim);
  expect(state.instances.map((i) => [i.uuid, i.hostname]).sort()).toEqual(
    [
      [ids.web1, "www-1"],
      [ids.db, "db-1"],
    ].sort(),
  );
  expect(rulesOf(state, ids.web2)).toEqual([]);
  // web-2's address went with web-2 (deletedWith): only web-1's remains, the one taken off by hand and assigned back.
  expect(state.publicIps.filter((ip) => !ip.seeded).map((ip) => ip.address)).toEqual([removedByHand]);
  expect(state.instances.find((i) => i.uuid === ids.web1)!.publicIpAddress).toBe(removedByHand);
});

test("destroy deletes independent resources concurrently and leaves no instance, network member or firewall rule behind", async () => {
  const since = Math.max(0, ...(await simRequests(sim)).map((q) => q.seq));
  const r = expectOk(await stack.run("destroy", { config: { hostnamePrefix: "www", webCount: "1" } }));
  expect(r.summary.delete).toBe(1 + 6 + 3);
  // The two VMs depend on nothing that is deleted with them, so they go in the same level, in parallel
  // (Pulumi's ScheduleDeletes): the second VM's deleteInstance arrives while the first VM's delete is still
  // under way (the provider polls it until it is gone). One at a time, nothing on the first VM would follow
  // the second deleteInstance.
  const requests = (await simRequests(sim)).filter((q) => q.seq > since);
  const deletes = requests.filter((q) => q.operation === "deleteInstance");
  expect(deletes).toHaveLength(2);
  const [first, second] = deletes;
  const firstVm = [ids.web1, ids.db].find((uuid) => first.path.includes(uuid))!;
  const onFirstAfterSecond = requests.filter((q) => q.seq > second.seq && q.path.includes(firstVm));
  expect(onFirstAfterSecond.length).toBeGreaterThan(0);
  const state = await simState(sim);
  expect(state.instances).toEqual([]);
  expect(state.firewallRules).toEqual([]);
  expect(state.publicIps.filter((ip) => ip.instanceUuid !== null)).toEqual([]);
  expect(stateResources(stack.stateText())).toEqual([]);
});

test("no address allocated for the stack is left reserved (PublicIp deletedWith its VM)", async () => {
  // Nothing besides the seeded reserved addresses: also the one taken off by hand was kept by its PublicIp,
  // assigned back, and released with its VM.
  const leftovers = (await simState(sim)).publicIps.filter((ip) => !ip.seeded).map((ip) => ip.address);
  expect(leftovers).toEqual([]);
});
