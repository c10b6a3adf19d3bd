/**
 * A PublicIp declared without `deletedWith` on a VM that an up replaces (create-before-delete, and delete-before-replace):
 * the address the API made for it went back to the account as a reserved address in no state at every replace, billing.
 * It now stays on the old VM, whose delete releases it. Judged against the simulator's addresses.
 */
import { show, simState, specSuite, vmArgs, type Res } from "./spec-stack";

jest.setTimeout(300_000);
const suite = specSuite();

const program = (template: number, vmOpts?: Record<string, unknown>): Res[] => [
  { type: "Instance", name: "vm", args: vmArgs("ip-vm-replaced", { templateId: template }), ...(vmOpts ? { opts: vmOpts } : {}) },
  { type: "PublicIp", name: "ip", args: { instanceId: "$id:vm" } },
];

test("replacing the VM of a PublicIp leaves no address reserved in no state (create-first, then delete-first)", async () => {
  const s = await suite.newStack();
  const addresses = async () =>
    ((await simState(suite.sim)).publicIps as { uuid: string; instanceUuid: string | null; seeded: boolean }[]).filter((p) => !p.seeded);
  const up = await s.run("up", program(1));
  expect(up.ok ? "" : show(up)).toBe("");
  for (const [template, opts] of [[2, undefined], [1, { deleteBeforeReplace: true }]] as const) {
    const replaced = await s.run("up", program(template, opts));
    expect(replaced.ok ? "" : show(replaced)).toBe("");
    const vm = s.res("vm")!.id!;
    // only the address of the new VM, the one the state holds
    expect((await addresses()).map((a) => [a.uuid, a.instanceUuid])).toEqual([[s.res("ip")!.id, vm]]);
    const clean = await s.run("preview", program(template, opts), { refresh: true, expectNoChanges: true });
    expect(clean.ok ? "" : show(clean)).toBe("");
  }
  const destroy = await s.run("destroy", program(1));
  expect(destroy.ok ? "" : show(destroy)).toBe("");
});

test("retainOnDelete on the VM: destroy leaves the VM and its deletedWith address as they are, and deletes the other dependents (README, Instances: Delete)", async () => {
  const s = await suite.newStack();
  const program: Res[] = [
    { type: "Instance", name: "vm", args: vmArgs("ip-vm-retained"), opts: { retainOnDelete: true } },
    { type: "PublicIp", name: "ip", args: { instanceId: "$id:vm" }, opts: { deletedWith: "vm" } },
    { type: "FirewallRule", name: "ssh", args: { instanceId: "$id:vm", protocol: "tcp", port: 22, action: "accept" } },
  ];
  const up = await s.run("up", program);
  expect(up.ok ? "" : show(up)).toBe("");
  const [vm, ip] = [s.res("vm")!.id!, s.res("ip")!.id!];
  const destroy = await s.run("destroy", program);
  expect(destroy.ok ? "" : show(destroy)).toBe("");
  expect(s.state().resources.filter((r) => !r.urn.includes("pulumi:pulumi:Stack"))).toEqual([]);
  const truth = await simState(suite.sim);
  // kept: the VM, running, with its address; deleted: the rule (it does not go with the VM)
  expect(truth.instances.filter((i) => i.uuid === vm).map((i) => [i.status, i.publicIpUuid])).toEqual([["Running", ip]]);
  expect(truth.firewallRules.filter((r) => r.instanceUuid === vm)).toEqual([]);
});
