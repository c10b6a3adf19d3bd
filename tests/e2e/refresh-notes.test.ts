/**
 * `pulumi up --refresh` refreshes in the same deployment as the up (pulumi/pulumi pkg/resource/deploy/step_generator.go:
 * a RefreshStep per resource before its Check; RefreshStep.Apply calls Diff): the refresh's Diff of a resource must not
 * count as another resource's at the same up's notes.
 */
import { admin, show, simState, specSuite, vmArgs, type Res } from "./spec-stack";

jest.setTimeout(300_000);
const suite = specSuite();

test("up --refresh --replace of an adopted Instance with deleteBeforeReplace keeps the VM, adopted again", async () => {
  const uuid = (await admin<{ data: { uuid: string } }>(suite.sim, "POST", "/instances", { hostname: "refresh-adopted-vm", username: "deploy" })).data.uuid;
  const program: Res[] = [{ type: "Instance", name: "vm", args: vmArgs("refresh-adopted-vm", { adoptId: uuid }), opts: { deleteBeforeReplace: true } }];
  const s = await suite.newStack();
  const up = await s.run("up", program);
  expect(up.ok ? "" : show(up)).toBe("");
  const replaced = await s.run("up", program, { replace: [s.res("vm")!.urn], refresh: true });
  expect(replaced.ok ? "" : show(replaced)).toBe("");
  // (the refresh's Diff of the adopted VM counted as another resource managing it: its old half's delete deleted it)
  expect(replaced.stdout).toContain(`Instance ${uuid} is not deleted: a resource of this deployment adopted it (adoptId)`);
  expect((await simState(suite.sim)).instances.filter((i) => i.hostname === "refresh-adopted-vm").map((i) => i.uuid)).toEqual([uuid]);
  expect(s.res("vm")!.id).toBe(uuid);
});

test("handing an Instance's address over to a PublicIp (literal instanceId) under preview --refresh and up --refresh is not refused", async () => {
  // The Instance's refresh Diff gets the state's inputs as its "news": noted as what the program declares, the state's
  // publicIp: true refused the PublicIp's check (at preview, told to remove publicIp, which the program had done).
  const s = await suite.newStack();
  const first = await s.run("up", [{ type: "Instance", name: "vm", args: vmArgs("refresh-handover", { publicIp: true }) }]);
  expect(first.ok ? "" : show(first)).toBe("");
  const vm = s.res("vm")!.id!;
  const address = s.res("vm")!.outputs!.publicIpId as string;
  const handedOver: Res[] = [
    { type: "PublicIp", name: "ip", args: { instanceId: vm, adoptId: address } },
    { type: "Instance", name: "vm", args: vmArgs("refresh-handover") },
  ];
  const preview = await s.run("preview", handedOver, { refresh: true });
  expect(preview.ok ? "" : show(preview)).toBe("");
  const moved = await s.run("up", handedOver, { refresh: true });
  expect(moved.ok ? "" : show(moved)).toBe("");
  expect(s.res("ip")).toMatchObject({ id: address });
  expect((await simState(suite.sim)).instances.find((i) => i.uuid === vm)!.publicIpUuid).toBe(address);
});

test("moving an Instance's private network to a VswitchAttachment (literal instanceId) under preview --refresh and up --refresh is not refused", async () => {
  // As the address: the Instance's refresh Diff noted the state's vswitchId as what the program declares.
  const net = (await simState(suite.sim)).vswitches.find((v) => v.name === "jkt-private-2")!.uuid;
  const s = await suite.newStack();
  const first = await s.run("up", [{ type: "Instance", name: "vm", args: vmArgs("refresh-netmove", { vswitchId: net }) }]);
  expect(first.ok ? "" : show(first)).toBe("");
  const vm = s.res("vm")!.id!;
  const moved: Res[] = [
    { type: "VswitchAttachment", name: "net", args: { instanceId: vm, vswitchId: net } },
    { type: "Instance", name: "vm", args: vmArgs("refresh-netmove") },
  ];
  const preview = await s.run("preview", moved, { refresh: true });
  expect(preview.ok ? "" : show(preview)).toBe("");
  const up = await s.run("up", moved, { refresh: true });
  expect(up.ok ? "" : show(up)).toBe("");
  expect((await simState(suite.sim)).instances.find((i) => i.uuid === vm)!.vswitchUuid).toBe(net);
});
