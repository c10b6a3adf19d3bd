/**
 * Reserved addresses moving between VMs of one stack when not everything goes through, through the local engine and
 * the real dynamic-provider host, judged by the simulator's state: a VM never ends without the address it held, and
 * a replaced VM's PublicIp (deletedWith) leaves no address behind, and the user's reserved address held by a PublicIp is
 * never released with a VM replaced delete-before-replace (audits of the swap and hand-back code).
 */
import { admin, show, simState, specSuite, vmArgs, type Res } from "./spec-stack";

jest.setTimeout(400_000);
const suite = specSuite();
const freeSeeded = async (): Promise<string[]> =>
  (await simState(suite.sim)).publicIps.filter((p) => p.seeded && p.instanceUuid === null && (p as { locationId?: number }).locationId === 1).map((p) => p.uuid);
const holder = async (vm: string) => (await simState(suite.sim)).instances.find((i) => i.uuid === vm)?.publicIpUuid ?? null;
const address = async (uuid: string) => (await simState(suite.sim)).publicIps.find((p) => p.uuid === uuid);

test("a rotation of three addresses with one side refused: no VM gives its address up, all keep theirs", async () => {
  const [p, q, r] = await freeSeeded();
  const s = await suite.newStack();
  const program = (x: string, y: string, z: string, storage = 30): Res[] => [
    { type: "Instance", name: "a", args: vmArgs("rot-a", { publicNetworkId: x }) },
    { type: "Instance", name: "b", args: vmArgs("rot-b", { publicNetworkId: y }) },
    { type: "Instance", name: "c", args: vmArgs("rot-c", { publicNetworkId: z, storage }) },
  ];
  const first = await s.run("up", program(p!, q!, r!));
  expect(first.ok ? "" : show(first)).toBe("");
  const ids = ["a", "b", "c"].map((n) => s.res(n)!.id!);
  // c also asks for a smaller disk: refused before any request, so it never gives r up
  const up = await s.run("up", program(q!, r!, p!, 20));
  expect(up.ok).toBe(false);
  expect(await Promise.all(ids.map(holder))).toEqual([p, q, r]); // b was left with none before the fix
  const destroyed = await s.run("destroy", program(p!, q!, r!));
  expect(destroyed.ok ? "" : show(destroyed)).toBe("");
  for (const x of [p, q, r]) expect(await address(x!)).toMatchObject({ instanceUuid: null });
});

test("a swap whose second resend fails on the network: both VMs hold an address, and the next up finishes it", async () => {
  const [p, q] = await freeSeeded();
  const s = await suite.newStack();
  const program = (x: string, y: string): Res[] => [
    { type: "Instance", name: "a", args: vmArgs("swnet-a", { publicNetworkId: x }) },
    { type: "Instance", name: "b", args: vmArgs("swnet-b", { publicNetworkId: y }) },
  ];
  const first = await s.run("up", program(p!, q!));
  expect(first.ok ? "" : show(first)).toBe("");
  const [a, b] = [s.res("a")!.id!, s.res("b")!.id!];
  await admin(suite.sim, "POST", "/faults", { resetNext: { operation: "changePublicIp", count: 5, skip: 5, afterProcessing: false } });
  const up = await s.run("up", program(q!, p!));
  await admin(suite.sim, "POST", "/faults", { resetNext: null });
  if (!up.ok) expect([await holder(a), await holder(b)]).not.toContain(null); // b held none before the fix
  const again = await s.run("up", program(q!, p!));
  expect(again.ok ? "" : show(again)).toBe("");
  expect([await holder(a), await holder(b)]).toEqual([q, p]);
  const check = await s.run("preview", program(q!, p!), { refresh: true, expectNoChanges: true });
  expect(check.ok ? "" : show(check)).toBe("");
  const destroyed = await s.run("destroy", program(q!, p!));
  expect(destroyed.ok ? "" : show(destroyed)).toBe("");
});

test("a PublicIp deletedWith its Instance, the Instance replaced: the old VM's delete releases the PublicIp's address (no leak)", async () => {
  const s = await suite.newStack();
  const program = (templateId: number): Res[] => [
    { type: "Instance", name: "vm", args: vmArgs("dw-replace", { templateId }) },
    { type: "PublicIp", name: "ip", args: { instanceId: "$id:vm" }, opts: { deletedWith: "vm" } },
  ];
  const first = await s.run("up", program(1));
  expect(first.ok ? "" : show(first)).toBe("");
  const old = s.res("ip")!.id!;
  const replaced = await s.run("up", program(2));
  expect(replaced.ok ? "" : show(replaced)).toBe("");
  expect(await address(old)).toBeUndefined(); // went with the old VM, not left reserved in no state
  const destroyed = await s.run("destroy", program(2));
  expect(destroyed.ok ? "" : show(destroyed)).toBe("");
  expect((await simState(suite.sim)).publicIps.filter((p) => !p.seeded)).toEqual([]);
});

test.each([
  ["adopted", "pins it", { publicNetworkId: "$r" }],
  ["adopted", "declares no address", {}],
  ["pinned", "declares no address", {}],
])("your address %s by a PublicIp the up removes, its Instance replaced deleteBeforeReplace and %s: never released", async (how, _n, extra) => {
  const [r] = await freeSeeded();
  const s = await suite.newStack({ providerDirectory: true });
  const tag = `dbr-${how.slice(0, 3)}-${Object.keys(extra).length}`;
  const first = await s.run("up", [{ type: "Instance", name: "vm", args: vmArgs(tag) }]);
  expect(first.ok ? "" : show(first)).toBe("");
  if (how === "adopted") await admin(suite.sim, "PATCH", `/instances/${s.res("vm")!.id}`, { publicIp: r }); // put on in the panel
  const held = await s.run("up", [
    { type: "Instance", name: "vm", args: vmArgs(tag) },
    { type: "PublicIp", name: "ip", args: { instanceId: "$id:vm", ...(how === "adopted" ? { adoptId: r } : { publicNetworkId: r }) } },
  ]);
  expect(held.ok ? "" : show(held)).toBe("");
  const args = Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, v === "$r" ? r : v]));
  const after: Res[] = [{ type: "Instance", name: "vm", args: vmArgs(tag, { templateId: 2, ...args }), opts: { deleteBeforeReplace: true } }];
  const replaced = await s.run("up", after);
  expect(replaced.ok ? "" : show(replaced)).toBe("");
  // released with the old VM before the fix (the PublicIp's Diff said "no replace" to the engine's dependents question)
  expect(await address(r!)).toBeDefined();
  if ("publicNetworkId" in extra) expect(await holder(s.res("vm")!.id!)).toBe(r);
  const destroyed = await s.run("destroy", after);
  expect(destroyed.ok ? "" : show(destroyed)).toBe("");
  expect(await address(r!)).toMatchObject({ instanceUuid: null });
});

test("your address adopted by a PublicIp the program keeps, its Instance replaced deleteBeforeReplace: it moves to the new VM", async () => {
  const [r] = await freeSeeded();
  const s = await suite.newStack({ providerDirectory: true });
  const program = (templateId: number): Res[] => [
    { type: "Instance", name: "vm", args: vmArgs("dbr-keep", { templateId }), opts: { deleteBeforeReplace: true } },
    { type: "PublicIp", name: "ip", args: { instanceId: "$id:vm", adoptId: r } },
  ];
  const first = await s.run("up", [{ type: "Instance", name: "vm", args: vmArgs("dbr-keep") }]);
  expect(first.ok ? "" : show(first)).toBe("");
  await admin(suite.sim, "PATCH", `/instances/${s.res("vm")!.id}`, { publicIp: r });
  const adopted = await s.run("up", program(1));
  expect(adopted.ok ? "" : show(adopted)).toBe("");
  const replaced = await s.run("up", program(2));
  // released with the old VM, then refused, before the fix
  expect(replaced.ok ? "" : show(replaced)).toBe("");
  expect(await holder(s.res("vm")!.id!)).toBe(r);
  const preview = await s.run("preview", program(2), { refresh: true, expectNoChanges: true });
  expect(preview.ok ? "" : show(preview)).toBe("");
  const destroyed = await s.run("destroy", program(2));
  expect(destroyed.ok ? "" : show(destroyed)).toBe("");
  expect(await address(r!)).toMatchObject({ instanceUuid: null }); // adopted: taken off, yours
});
