/**
 * The PublicIp's address across resources, through the local engine and the real dynamic-provider host (engine
 * order matters): a PublicIp pinned to a reserved address moved to another Instance that stays (the engine deletes
 * the old one first, as its diff asks), and never two owners of one address (an Instance that declares publicIp and
 * a PublicIp adopting that address).
 */
import { show, simState, specSuite, vmArgs, type Res } from "./spec-stack";

jest.setTimeout(300_000);
const suite = specSuite();
const seededFree = async (): Promise<string[]> =>
  (await simState(suite.sim)).publicIps
    .filter((p) => p.seeded && p.instanceUuid === null && (p as { locationId?: number }).locationId === 1)
    .map((p) => p.uuid);

test("a PublicIp pinned to a reserved address moves to another Instance in one up, and nothing is left to do", async () => {
  const [pinned] = await seededFree();
  const program = (on: string, opts?: Record<string, unknown>): Res[] => [
    { type: "Instance", name: "a", args: vmArgs("pipmove-a") },
    { type: "Instance", name: "b", args: vmArgs("pipmove-b") },
    { type: "PublicIp", name: "ip", args: { instanceId: `$id:${on}`, publicNetworkId: pinned }, opts },
  ];
  const s = await suite.newStack();
  const first = await s.run("up", program("a"));
  expect(first.ok ? "" : show(first)).toBe("");
  const [a, b] = [s.res("a")!.id!, s.res("b")!.id!];

  // forced create-before-delete: refused naming the option, nothing changed
  const forced = await s.run("up", program("b", { deleteBeforeReplace: false }));
  expect(forced.ok).toBe(false);
  expect(forced.errors.join("\n")).toContain("remove `deleteBeforeReplace: false` from this PublicIp");
  let truth = await simState(suite.sim);
  expect(truth.publicIps.find((p) => p.uuid === pinned)!.instanceUuid).toBe(a);

  const moved = await s.run("up", program("b"));
  expect(moved.ok ? "" : show(moved)).toBe("");
  truth = await simState(suite.sim);
  expect(truth.publicIps.find((p) => p.uuid === pinned)!.instanceUuid).toBe(b);
  expect(truth.instances.find((i) => i.uuid === a)!.publicIpUuid).toBeNull();
  expect(s.res("ip")).toMatchObject({ id: pinned, outputs: { instanceId: b, publicIpId: pinned } });
  const check = await s.run("preview", program("b"), { refresh: true, expectNoChanges: true });
  expect(check.ok ? "" : show(check)).toBe("");
  const destroyed = await s.run("destroy", program("b"));
  expect(destroyed.ok ? "" : show(destroyed)).toBe("");
  // the PublicIp's delete takes your reserved address off the VM: it stays yours
  expect((await simState(suite.sim)).publicIps.find((p) => p.uuid === pinned)).toMatchObject({ instanceUuid: null });
});

test("a PublicIp pinned to a reserved address follows its replaced Instance (deleted first, then assigned to the new VM)", async () => {
  const [pinned] = await seededFree();
  const program = (templateId: number): Res[] => [
    { type: "Instance", name: "vm", args: vmArgs("pipfollow", { templateId }) },
    { type: "PublicIp", name: "ip", args: { instanceId: "$id:vm", publicNetworkId: pinned } },
  ];
  const s = await suite.newStack();
  const first = await s.run("up", program(1));
  expect(first.ok ? "" : show(first)).toBe("");
  const replaced = await s.run("up", program(2));
  expect(replaced.ok ? "" : show(replaced)).toBe("");
  const vm = s.res("vm")!.id!;
  const truth = await simState(suite.sim);
  expect(truth.publicIps.find((p) => p.uuid === pinned)!.instanceUuid).toBe(vm);
  expect(truth.instances.filter((i) => i.hostname === "pipfollow").map((i) => i.uuid)).toEqual([vm]);
  const check = await s.run("preview", program(2), { refresh: true, expectNoChanges: true });
  expect(check.ok ? "" : show(check)).toBe("");
  const destroyed = await s.run("destroy", program(2));
  expect(destroyed.ok ? "" : show(destroyed)).toBe("");
  expect((await simState(suite.sim)).publicIps.find((p) => p.uuid === pinned)).toMatchObject({ instanceUuid: null });
});

test("pulumi up --replace of a PublicIp pinned to a reserved address leaves the address on its VM", async () => {
  const [pinned] = await seededFree();
  const program: Res[] = [
    { type: "Instance", name: "vm", args: vmArgs("pipreplace") },
    { type: "PublicIp", name: "ip", args: { instanceId: "$id:vm", publicNetworkId: pinned } },
  ];
  const s = await suite.newStack();
  const first = await s.run("up", program);
  expect(first.ok ? "" : show(first)).toBe("");
  const replaced = await s.run("up", program, { replace: [s.res("ip")!.urn] });
  expect(replaced.ok ? "" : show(replaced)).toBe("");
  const vm = s.res("vm")!.id!;
  expect((await simState(suite.sim)).instances.find((i) => i.uuid === vm)!.publicIpUuid).toBe(pinned);
  const check = await s.run("preview", program, { refresh: true, expectNoChanges: true });
  expect(check.ok ? "" : show(check)).toBe("");
  const destroyed = await s.run("destroy", program);
  expect(destroyed.ok ? "" : show(destroyed)).toBe("");
});

test("a PublicIp never adopts the address an Instance with publicIp manages; handing it over in one up works", async () => {
  const s = await suite.newStack();
  const managed: Res[] = [{ type: "Instance", name: "vm", args: vmArgs("pipowner", { publicIp: true }) }];
  const first = await s.run("up", managed);
  expect(first.ok ? "" : show(first)).toBe("");
  const vm = s.res("vm")!.id!;
  const address = s.res("vm")!.outputs!.publicIpId as string;
  const both: Res[] = [...managed, { type: "PublicIp", name: "ip", args: { instanceId: "$id:vm", adoptId: address } }];
  const preview = await s.run("preview", both);
  expect(preview.ok).toBe(false);
  expect(preview.errors.join("\n")).toContain(`adoptId: this PublicIp would adopt the address that the Instance "pipowner" (${vm}) manages`);
  const refused = await s.run("up", both);
  expect(refused.ok).toBe(false);
  expect(s.res("ip")).toBeUndefined();
  expect((await simState(suite.sim)).instances.find((i) => i.uuid === vm)!.publicIpUuid).toBe(address);

  const handedOver: Res[] = [
    { type: "Instance", name: "vm", args: vmArgs("pipowner") },
    { type: "PublicIp", name: "ip", args: { instanceId: "$id:vm", adoptId: address } },
  ];
  const moved = await s.run("up", handedOver);
  expect(moved.ok ? "" : show(moved)).toBe("");
  expect(s.res("ip")).toMatchObject({ id: address });
  expect((await simState(suite.sim)).instances.find((i) => i.uuid === vm)!.publicIpUuid).toBe(address);
  const check = await s.run("preview", handedOver, { refresh: true, expectNoChanges: true });
  expect(check.ok ? "" : show(check)).toBe("");
  const destroyed = await s.run("destroy", handedOver);
  expect(destroyed.ok ? "" : show(destroyed)).toBe("");
});

test.each([
  ["publicIp: true (the API's address becomes the Instance's, released with the VM)", false],
  ["publicNetworkId naming the PublicIp's pinned address (yours, kept)", true],
])("handing an address back from a removed PublicIp to its Instance in one up: %s", async (_name, pinned) => {
  const [p] = await seededFree();
  const tag = pinned ? "handback-pin" : "handback-own";
  // (the provider's directory kept between runs, as on a user's machine: the hand-over is noted there)
  const s = await suite.newStack({ providerDirectory: true });
  const first = await s.run("up", [
    { type: "Instance", name: "vm", args: vmArgs(tag) },
    { type: "PublicIp", name: "ip", args: pinned ? { instanceId: "$id:vm", publicNetworkId: p } : { instanceId: "$id:vm" } },
  ]);
  expect(first.ok ? "" : show(first)).toBe("");
  const vm = s.res("vm")!.id!;
  const address = s.res("ip")!.id!;
  const after: Res[] = [{ type: "Instance", name: "vm", args: vmArgs(tag, pinned ? { publicNetworkId: p } : { publicIp: true }) }];
  const handedBack = await s.run("up", after);
  expect(handedBack.ok ? "" : show(handedBack)).toBe("");
  // the PublicIp's delete, which the engine runs after the Instance's update, took the address off before the fix
  expect((await simState(suite.sim)).instances.find((i) => i.uuid === vm)!.publicIpUuid).toBe(address);
  const check = await s.run("preview", after, { refresh: true, expectNoChanges: true });
  expect(check.ok ? "" : show(check)).toBe("");
  const destroyed = await s.run("destroy", after);
  expect(destroyed.ok ? "" : show(destroyed)).toBe("");
  // The API's address goes with the VM (left reserved in no state before); your pinned one stays in your account.
  const left = (await simState(suite.sim)).publicIps.find((a) => a.uuid === address);
  if (pinned) expect(left).toMatchObject({ instanceUuid: null });
  else expect(left).toBeUndefined();
});

test("a PublicIp already in the stack is refused at preview once its VM's Instance declares the address too", async () => {
  const s = await suite.newStack();
  const program = (extra: Record<string, unknown>): Res[] => [
    { type: "Instance", name: "vm", args: vmArgs("twoowners", extra) },
    { type: "PublicIp", name: "ip", args: { instanceId: "$id:vm" } },
  ];
  const first = await s.run("up", program({}));
  expect(first.ok ? "" : show(first)).toBe("");
  const vm = s.res("vm")!.id!;
  const address = s.res("ip")!.id!;
  const preview = await s.run("preview", program({ publicIp: false }));
  expect(preview.ok).toBe(false); // went through before the fix; each up then undid the other resource's change
  expect(preview.errors.join("\n")).toContain(
    `instanceId: the Instance "twoowners" (${vm}) now declares publicIp: false, and this PublicIp manages that VM's address`,
  );
  expect((await simState(suite.sim)).instances.find((i) => i.uuid === vm)!.publicIpUuid).toBe(address);
  const destroyed = await s.run("destroy", program({}));
  expect(destroyed.ok ? "" : show(destroyed)).toBe("");
});

test.each([
  ["publicIp: true on the replacement (the address goes back to your account)", false],
  ["publicNetworkId naming it on a replacement made deleteBeforeReplace (the replacement gets it)", true],
])("a removed PublicIp's pinned address (yours), its Instance replaced in the same up: %s", async (_name, pinsIt) => {
  const [r] = await seededFree();
  const tag = pinsIt ? "handrep-pin" : "handrep-own";
  const s = await suite.newStack({ providerDirectory: true });
  const first = await s.run("up", [
    { type: "Instance", name: "vm", args: vmArgs(tag) },
    { type: "PublicIp", name: "ip", args: { instanceId: "$id:vm", publicNetworkId: r } },
  ]);
  expect(first.ok ? "" : show(first)).toBe("");
  const after: Res[] = pinsIt
    ? [{ type: "Instance", name: "vm", args: vmArgs(tag, { templateId: 2, publicNetworkId: r }), opts: { deleteBeforeReplace: true } }]
    : [{ type: "Instance", name: "vm", args: vmArgs(tag, { templateId: 2, publicIp: true }) }];
  const replaced = await s.run("up", after);
  expect(replaced.ok ? "" : show(replaced)).toBe("");
  // left on the old VM, it was released with it (the user's address lost)
  const held = (await simState(suite.sim)).publicIps.find((p) => p.uuid === r);
  expect(held).toMatchObject({ instanceUuid: pinsIt ? s.res("vm")!.id : null });
  const destroyed = await s.run("destroy", after);
  expect(destroyed.ok ? "" : show(destroyed)).toBe("");
  expect((await simState(suite.sim)).publicIps.find((p) => p.uuid === r)).toMatchObject({ instanceUuid: null });
});
