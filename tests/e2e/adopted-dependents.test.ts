/**
 * Adopted objects (and the stack's own restore points) that depend on a resource replaced delete-before-replace,
 * through the local engine and the real dynamic-provider host, judged by the simulator's state. The engine asks each
 * dependent's Diff, with the inputs that come from the replaced resource made unknown, whether it must be deleted first
 * (pulumi/pulumi pkg/resource/deploy/step_generator.go calculateDependentReplacements): the answers decide what the
 * old VM's delete takes with it (audits of 9d667eb and af4f43b).
 */
import { admin, show, simState, specSuite, until, vmArgs, type Res } from "./spec-stack";

jest.setTimeout(400_000);
const suite = specSuite();
const freeSeeded = async (): Promise<string[]> =>
  (await simState(suite.sim)).publicIps.filter((p) => p.seeded && p.instanceUuid === null && (p as { locationId?: number }).locationId === 1).map((p) => p.uuid);
const holder = async (vm: string) => (await simState(suite.sim)).instances.find((i) => i.uuid === vm)?.publicIpUuid ?? null;

/** A snapshot taken through the public API, as the user's panel takes one. */
async function usersSnapshot(vm: string, name: string): Promise<string> {
  const res = await fetch(`${suite.sim.url}/instance/${vm}/snapshot/create`, {
    method: "POST",
    headers: { "x-apikey": suite.sim.apiKey, "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: new URLSearchParams({ name, description: name }).toString(),
  });
  expect(res.ok).toBe(true);
  let uuid = "";
  await until("the snapshot to be ready", async () => {
    const snap = (await simState(suite.sim)).snapshots.find((x) => x.instanceUuid === vm && x.name === name);
    uuid = snap?.uuid ?? "";
    return snap?.status === "Ready";
  });
  return uuid;
}

test("an adopted snapshot, its Instance replaced deleteBeforeReplace: refused before the old VM (and the snapshot with it) is deleted", async () => {
  const s = await suite.newStack();
  const first = await s.run("up", [{ type: "Instance", name: "vm", args: vmArgs("dbr-snap") }]);
  expect(first.ok ? "" : show(first)).toBe("");
  const vm = s.res("vm")!.id!;
  const snap = await usersSnapshot(vm, "mine");
  const program = (templateId: number): Res[] => [
    { type: "Instance", name: "vm", args: vmArgs("dbr-snap", { templateId }), opts: { deleteBeforeReplace: true } },
    { type: "Snapshot", name: "snap", args: { instanceId: "$id:vm", name: "mine", description: "mine", adoptId: snap } },
  ];
  const adopted = await s.run("up", program(1));
  expect(adopted.ok ? "" : show(adopted)).toBe("");
  const preview = await s.run("preview", program(2));
  expect(preview.ok).toBe(false);
  const replaced = await s.run("up", program(2));
  expect(replaced.ok).toBe(false);
  expect(show(replaced)).toContain(`Snapshot ${snap} was adopted (adoptId), so Pulumi never deletes it on its own, and a VM's delete takes its snapshots with it: its instance ${vm} is being replaced in this run.`);
  // the old VM was deleted first, taking the snapshot, before the fix
  const st = await simState(suite.sim);
  expect(st.instances.some((i) => i.uuid === vm)).toBe(true);
  expect(st.snapshots.some((x) => x.uuid === snap)).toBe(true);
  // `up --replace` of the VM: the engine asks no Diff of the VM; the old VM's delete refuses instead
  const forced = await s.run("up", program(1), { replace: [s.res("vm")!.urn] });
  expect(forced.ok).toBe(false);
  expect(show(forced)).toContain(`instance ${vm} was not deleted: this run deletes it`);
  expect((await simState(suite.sim)).snapshots.some((x) => x.uuid === snap)).toBe(true);
  const destroyed = await s.run("destroy", program(1));
  expect(destroyed.ok ? "" : show(destroyed)).toBe("");
});

test("the VM of an adopted snapshot adopted later by an Instance: preview and up go through (nothing is replaced)", async () => {
  const s = await suite.newStack();
  const made = await admin<{ data: { uuid: string } }>(suite.sim, "POST", "/instances", { hostname: "adopt-later", locationId: 1, tierId: 1, templateId: 1, cpu: 1, memory: 1, storage: 20, username: "deploy", password: "Made-in-the-panel-1" });
  const vm = made.data.uuid;
  const snap = await usersSnapshot(vm, "mine");
  const dependents = (instanceId: string): Res[] => [{ type: "Snapshot", name: "snap", args: { instanceId, name: "mine", description: "mine", adoptId: snap } }];
  const first = await s.run("up", dependents(vm));
  expect(first.ok ? "" : show(first)).toBe("");
  const program: Res[] = [
    { type: "Instance", name: "vm", args: vmArgs("adopt-later", { adoptId: vm }) },
    ...dependents("$id:vm"),
  ];
  // (the snapshot's instanceId is unknown at preview: the Instance is new; refused as "its VM is replaced" before the fix)
  const preview = await s.run("preview", program);
  expect(preview.ok ? "" : show(preview)).toBe("");
  const adopted = await s.run("up", program);
  expect(adopted.ok ? "" : show(adopted)).toBe("");
  const destroyed = await s.run("destroy", program);
  expect(destroyed.ok ? "" : show(destroyed)).toBe("");
});

test("a destroy --target of a VM with its dependents, adopted ones among them: goes through, your objects' fate as for any destroy", async () => {
  const [r] = await freeSeeded();
  const s = await suite.newStack();
  const first = await s.run("up", [{ type: "Instance", name: "vm", args: vmArgs("target-all") }]);
  expect(first.ok ? "" : show(first)).toBe("");
  const vm = s.res("vm")!.id!;
  const snap = await usersSnapshot(vm, "mine");
  await admin(suite.sim, "PATCH", `/instances/${vm}`, { publicIp: r });
  const program: Res[] = [
    { type: "Instance", name: "vm", args: vmArgs("target-all") },
    { type: "Snapshot", name: "snap", args: { instanceId: "$id:vm", name: "mine", description: "mine", adoptId: snap } },
    { type: "PublicIp", name: "ip", args: { instanceId: "$id:vm", adoptId: r } },
  ];
  const adopted = await s.run("up", program);
  expect(adopted.ok ? "" : show(adopted)).toBe("");
  // (the engine asks each dependent's Diff with the VM's id unknown: refused as "its VM is replaced" before the fix)
  const destroyed = await s.run("destroy", program, { targets: [s.res("vm")!.urn], targetDependents: true });
  expect(destroyed.ok ? "" : show(destroyed)).toBe("");
  const st = await simState(suite.sim);
  expect(st.instances.some((i) => i.uuid === vm)).toBe(false);
  expect(st.publicIps.find((p) => p.uuid === r)).toMatchObject({ instanceUuid: null }); // adopted: taken off, yours
});

test("a pinned PublicIp moved to another VM (delete-before-replace): a second PublicIp adopting its address is still refused", async () => {
  const [r] = await freeSeeded();
  const s = await suite.newStack();
  const vms: Res[] = [
    { type: "Instance", name: "vm1", args: vmArgs("owners-1") },
    { type: "Instance", name: "vm2", args: vmArgs("owners-2") },
  ];
  const first = await s.run("up", [...vms, { type: "PublicIp", name: "c", args: { instanceId: "$id:vm1", publicNetworkId: r } }]);
  expect(first.ok ? "" : show(first)).toBe("");
  const moved: Res = { type: "PublicIp", name: "c", args: { instanceId: "$id:vm2", publicNetworkId: r } };
  const second = await s.run("up", [...vms, moved, { type: "PublicIp", name: "b", args: { instanceId: "$id:vm2", adoptId: r }, opts: { dependsOn: ["c"] } }]);
  expect(second.ok).toBe(false);
  expect(show(second)).toContain(`adoptId: PublicIp ${r} belongs to another resource of this stack`);
  // (both recorded it before the fix; removing the adopter then took the address off while c declared it)
  expect(s.state().resources.filter((x) => x.id === r).map((x) => x.name)).toEqual(["c"]);
  expect(await holder(s.res("vm2")!.id!)).toBe(r);
  const destroyed = await s.run("destroy", [...vms, moved]);
  expect(destroyed.ok ? "" : show(destroyed)).toBe("");
});

test.each([
  ["its VM replaced with `up --replace` (no Diff of the VM)", "replace"],
  ["its instanceId computed from a VM the up replaces, its own VM kept", "computed"],
])("your address adopted by a PublicIp the engine deletes first, %s: it ends on the PublicIp's VM", async (_name, how) => {
  const [r] = await freeSeeded();
  const s = await suite.newStack();
  const tag = `adopt-${how.slice(0, 4)}`;
  const program = (templateId: number): Res[] => [
    { type: "Instance", name: "vm", args: vmArgs(`${tag}-a`), opts: { deleteBeforeReplace: true } },
    { type: "Instance", name: "other", args: vmArgs(`${tag}-b`, { templateId }), opts: { deleteBeforeReplace: true } },
    { type: "PublicIp", name: "ip", args: { instanceId: how === "computed" ? "$first:vm,other" : "$id:vm", adoptId: r } },
  ];
  const first = await s.run("up", program(1).slice(0, 2));
  expect(first.ok ? "" : show(first)).toBe("");
  await admin(suite.sim, "PATCH", `/instances/${s.res("vm")!.id}`, { publicIp: r }); // put on in the panel
  const adopted = await s.run("up", program(1));
  expect(adopted.ok ? "" : show(adopted)).toBe("");
  const up = how === "computed" ? await s.run("up", program(2)) : await s.run("up", program(1), { replace: [s.res("vm")!.urn] });
  // before the fix: the address left on no VM and the PublicIp refused (--replace), or taken off the kept VM (computed)
  expect(up.ok ? "" : show(up)).toBe("");
  expect(await holder(s.res("vm")!.id!)).toBe(r);
  const check = await s.run("preview", program(how === "computed" ? 2 : 1), { refresh: true, expectNoChanges: true });
  expect(check.ok ? "" : show(check)).toBe("");
  const destroyed = await s.run("destroy", program(1));
  expect(destroyed.ok ? "" : show(destroyed)).toBe("");
  expect((await simState(suite.sim)).publicIps.find((p) => p.uuid === r)).toMatchObject({ instanceUuid: null });
});
