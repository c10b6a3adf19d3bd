/**
 * Replacements the engine makes without asking the provider's Diff (`pulumi up --replace <urn>`: Diff answers
 * "replace, id" itself and Check gets no olds, pulumi/pulumi pkg/resource/deploy/step_generator.go) must not
 * delete an adopted object: the replacement adopts the SAME object again, and the engine then deletes the old
 * resource, which is it. Through the local engine and the real dynamic-provider host (provider/resources/common/adoptions.ts).
 */
import { createClient, type VmHostClient } from "../../provider/api";
import { startTestSimulator, type TestSimulator } from "./helpers";
import { SpecStack, admin, show, simState, until, vmArgs, type Res } from "./spec-stack";

jest.setTimeout(300_000);
let sim: TestSimulator;
let client: VmHostClient;
const stacks: SpecStack[] = [];
beforeAll(async () => {
  sim = await startTestSimulator();
  client = createClient({ baseUrl: sim.url, apiKey: sim.apiKey, logger: false });
}, 120_000);
afterAll(async () => {
  await sim?.close();
  for (const s of stacks) s.remove();
});

const madeInPanel = async (hostname: string): Promise<string> =>
  (await admin<{ data: { uuid: string } }>(sim, "POST", "/instances", { hostname, username: "deploy" })).data.uuid;

test("up --replace of an adopted Instance keeps the VM (it is adopted again, not deleted), and says so", async () => {
  const uuid = await madeInPanel("adopted-replace-vm");
  const program: Res[] = [{ type: "Instance", name: "vm", args: vmArgs("adopted-replace-vm", { adoptId: uuid }) }];
  const s = await SpecStack.create(sim);
  stacks.push(s);
  const up = await s.run("up", program);
  expect(up.ok ? "" : show(up)).toBe("");
  const replaced = await s.run("up", program, { replace: [s.res("vm")!.urn] });
  expect(replaced.ok ? "" : show(replaced)).toBe("");
  expect(replaced.stdout).toContain(`Instance ${uuid} is not deleted: a resource of this deployment adopted it (adoptId)`);
  expect((await simState(sim)).instances.filter((i) => i.hostname === "adopted-replace-vm").map((i) => i.uuid)).toEqual([uuid]);
  expect(s.res("vm")!.id).toBe(uuid);
  const destroy = await s.run("destroy", program);
  expect(destroy.ok ? "" : show(destroy)).toBe("");
  expect((await simState(sim)).instances.filter((i) => i.hostname === "adopted-replace-vm")).toEqual([]);
});

test("up --replace of an adopted Instance and FirewallRule with deleteBeforeReplace (the delete comes first) keeps both", async () => {
  const uuid = await madeInPanel("adopted-dbr-vm");
  const ruleId = (await client.firewall.createRule(uuid, { destinationPort: "443", protocol: "tcp", action: "accept", description: "https" })).id!;
  const dbr = { deleteBeforeReplace: true };
  const program: Res[] = [
    { type: "Instance", name: "vm", args: vmArgs("adopted-dbr-vm", { adoptId: uuid }), opts: dbr },
    { type: "FirewallRule", name: "fw", args: { instanceId: uuid, protocol: "tcp", port: 443, action: "accept", description: "https", adoptId: ruleId }, opts: dbr },
  ];
  const s = await SpecStack.create(sim);
  stacks.push(s);
  const up = await s.run("up", program);
  expect(up.ok ? "" : show(up)).toBe("");
  for (const name of ["vm", "fw"]) {
    const replaced = await s.run("up", program, { replace: [s.res(name)!.urn] });
    expect(replaced.ok ? "" : show(replaced)).toBe("");
  }
  const st = await simState(sim);
  expect(st.instances.filter((i) => i.hostname === "adopted-dbr-vm").map((i) => i.uuid)).toEqual([uuid]);
  expect(st.firewallRules.filter((x) => x.instanceUuid === uuid).map((x) => x.id)).toEqual([ruleId]);
  const check = await s.run("preview", program, { refresh: true, expectNoChanges: true });
  expect(check.ok ? "" : show(check)).toBe("");
  const destroy = await s.run("destroy", program);
  expect(destroy.ok ? "" : show(destroy)).toBe("");
});

test("up --replace of an adopted FirewallRule and Snapshot keeps both, and no drift follows", async () => {
  const vm = await madeInPanel("adopted-replace-deps");
  const ruleId = (await client.firewall.createRule(vm, { destinationPort: "22", protocol: "tcp", action: "accept", description: "ssh" })).id!;
  const snapId = (await client.snapshots.create(vm, { name: "base", description: "before" })).snap_uuid;
  await until("snapshot ready", async () => (await simState(sim)).snapshots.find((x) => x.uuid === snapId)?.status === "Ready");
  const program: Res[] = [
    { type: "FirewallRule", name: "fw", args: { instanceId: vm, protocol: "tcp", port: 22, action: "accept", description: "ssh", adoptId: ruleId } },
    { type: "Snapshot", name: "snap", args: { instanceId: vm, name: "base", description: "before", adoptId: snapId } },
  ];
  const s = await SpecStack.create(sim);
  stacks.push(s);
  const up = await s.run("up", program);
  expect(up.ok ? "" : show(up)).toBe("");
  for (const name of ["fw", "snap"]) {
    const replaced = await s.run("up", program, { replace: [s.res(name)!.urn] });
    expect(replaced.ok ? "" : show(replaced)).toBe("");
  }
  const st = await simState(sim);
  expect(st.firewallRules.filter((x) => x.instanceUuid === vm).map((x) => x.id)).toEqual([ruleId]);
  expect(st.snapshots.filter((x) => x.instanceUuid === vm).map((x) => x.uuid)).toEqual([snapId]);
  const check = await s.run("preview", program, { refresh: true, expectNoChanges: true });
  expect(check.ok ? "" : show(check)).toBe("");
});

test("an adoptId naming a VM another resource of the stack manages is refused, and that VM is left as it was", async () => {
  const s = await SpecStack.create(sim);
  stacks.push(s);
  const first: Res[] = [{ type: "Instance", name: "vm1", args: vmArgs("owned-vm-a") }];
  const up = await s.run("up", first);
  expect(up.ok ? "" : show(up)).toBe("");
  const uuid = s.res("vm1")!.id!;
  const second: Res[] = [...first, { type: "Instance", name: "vm2", args: vmArgs("owned-vm-b", { adoptId: uuid }) }];
  const refused = await s.run("up", second);
  expect(refused.ok).toBe(false);
  expect(refused.errors.join("\n")).toContain(`adoptId: Instance ${uuid} belongs to another resource of this stack`);
  expect((await simState(sim)).instances.find((i) => i.uuid === uuid)).toMatchObject({ hostname: "owned-vm-a" });
  expect(s.res("vm2")).toBeUndefined();
  const destroy = await s.run("destroy", first);
  expect(destroy.ok ? "" : show(destroy)).toBe("");
});
