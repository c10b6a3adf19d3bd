/**
 * Attachments replaced by the engine without the provider's Diff, through the local engine and the real
 * dynamic-provider host, checked against the simulator's state (GET /__sim/state).
 *
 * `pulumi up --replace <urn>` replaces create-before-delete without asking Diff (pulumi/pulumi
 * pkg/resource/deploy/step_generator.go, diff() and isTargetedReplace), and so does a resource renamed without an
 * alias. An attachment's id is fixed (the disk uuid; `<vm>/<vswitch>`), so the new create takes the attachment in
 * place and answers the same id; the old half's delete must then leave it (provider/resources/common/fixed-ids.ts).
 */
import { show, simState, specSuite, vmArgs, type Res } from "./spec-stack";

jest.setTimeout(300_000);
const suite = specSuite();

/** A seeded disk and vswitch of location 1, by name (the simulator's uuids derive from its seed). */
async function catalogue(disk: string): Promise<{ diskId: string; vswitchId: string }> {
  const st = await simState(suite.sim);
  return { diskId: st.blockStorages.find((b) => b.name === disk)!.uuid, vswitchId: st.vswitches.find((v) => v.name === "jkt-private-1")!.uuid };
}

/** Where the disk is attached and which vswitch the VM is on, in the simulator. */
async function truth(vm: string, diskId: string): Promise<{ diskOn: string | null; vmVswitch: string | null | undefined }> {
  const st = await simState(suite.sim);
  return { diskOn: st.blockStorages.find((b) => b.uuid === diskId)?.instanceUuid ?? null, vmVswitch: st.instances.find((i) => i.uuid === vm)?.vswitchUuid };
}

test("up --replace of a BlockStorageAttachment and a VswitchAttachment (no deleteBeforeReplace), and a rename without alias, keep them attached", async () => {
  const { diskId, vswitchId } = await catalogue("jkt-data-50");
  const program = (diskName: string): Res[] => [
    { type: "Instance", name: "vm", args: vmArgs("att-replace") },
    { type: "BlockStorageAttachment", name: diskName, args: { instanceId: "$id:vm", blockStorageId: diskId } },
    { type: "VswitchAttachment", name: "net", args: { instanceId: "$id:vm", vswitchId } },
  ];
  const s = await suite.newStack();
  const up = await s.run("up", program("disk"));
  expect(up.ok ? "" : show(up)).toBe("");
  const vm = s.res("vm")!.id!;
  expect(await truth(vm, diskId)).toEqual({ diskOn: vm, vmVswitch: vswitchId });

  for (const [name, id] of [["disk", diskId], ["net", `${vm}/${vswitchId}`]] as const) {
    const replaced = await s.run("up", program("disk"), { replace: [s.res(name)!.urn] });
    expect(replaced.ok ? "" : show(replaced)).toBe("");
    expect(await truth(vm, diskId)).toEqual({ diskOn: vm, vmVswitch: vswitchId });
    expect(replaced.stdout).toContain(`${name === "disk" ? "BlockStorageAttachment" : "VswitchAttachment"} ${id} is left in place`);
    expect(s.res(name)!.id).toBe(id);
  }
  // A rename without an alias: the new name takes the attachment, the old name's delete leaves it.
  const renamed = await s.run("up", program("data"));
  expect(renamed.ok ? "" : show(renamed)).toBe("");
  expect(await truth(vm, diskId)).toEqual({ diskOn: vm, vmVswitch: vswitchId });
  const check = await s.run("preview", program("data"), { refresh: true, expectNoChanges: true });
  expect(check.ok ? "" : show(check)).toBe("");

  // `pulumi destroy` is another deployment: it detaches them.
  const destroy = await s.run("destroy", program("data"));
  expect(destroy.ok ? "" : show(destroy)).toBe("");
  expect((await truth(vm, diskId)).diskOn).toBeNull();
});

test("a VM replaced (templateId) under a BlockStorageAttachment with deletedWith: vm moves the disk in the same up, and the old VM's delete (removeBlockStorage) spares it", async () => {
  // deletedWith makes the engine replace the attachment with the VM, without Diff, create-before-delete
  // (step_generator.go diff(): "marked for replacement because ... its DeletedWith resource is being replaced"):
  // its create runs while the old VM still holds the disk.
  const { diskId, vswitchId } = await catalogue("jkt-data-100");
  const program = (templateId: number): Res[] => [
    { type: "Instance", name: "vm", args: vmArgs("att-vm-replaced", { templateId, deleteOptions: { removePublicIp: true, removeBlockStorage: true } }) },
    { type: "BlockStorageAttachment", name: "disk", args: { instanceId: "$id:vm", blockStorageId: diskId }, opts: { deletedWith: "vm" } },
    { type: "VswitchAttachment", name: "net", args: { instanceId: "$id:vm", vswitchId }, opts: { deletedWith: "vm" } },
  ];
  const s = await suite.newStack();
  const up = await s.run("up", program(1));
  expect(up.ok ? "" : show(up)).toBe("");
  const oldVm = s.res("vm")!.id!;
  expect(await truth(oldVm, diskId)).toEqual({ diskOn: oldVm, vmVswitch: vswitchId });

  const replaced = await s.run("up", program(2));
  expect(replaced.ok ? "" : show(replaced)).toBe("");
  const newVm = s.res("vm")!.id!;
  expect(newVm).not.toBe(oldVm);
  expect(replaced.stdout).toContain(`block storage ${diskId} is attached to instance ${oldVm}, which this up replaces: it is detached there first`);
  const st = await simState(suite.sim);
  expect(st.instances.filter((i) => i.hostname === "att-vm-replaced").map((i) => i.uuid)).toEqual([newVm]);
  expect(await truth(newVm, diskId)).toEqual({ diskOn: newVm, vmVswitch: vswitchId }); // the disk exists, on the new VM
  expect(s.res("disk")!.id).toBe(diskId);
  const check = await s.run("preview", program(2), { refresh: true, expectNoChanges: true });
  expect(check.ok ? "" : show(check)).toBe("");
  const destroy = await s.run("destroy", program(2));
  expect(destroy.ok ? "" : show(destroy)).toBe("");
});

test("with deleteBeforeReplace on the VM, its replacement under a BlockStorageAttachment with deletedWith: vm keeps the disk (removeBlockStorage spares a replaced VM's disks)", async () => {
  // The engine deletes the old VM first and skips the attachment's delete (deletedWith: step.go isDeletedWith), so
  // the disk is still on the old VM when it is deleted: with removeBlockStorage the API would delete the disk.
  const { diskId } = await catalogue("jkt-archive-20");
  const program = (templateId: number): Res[] => [
    {
      type: "Instance", name: "vm", opts: { deleteBeforeReplace: true },
      args: vmArgs("att-vm-dbr", { templateId, deleteOptions: { removePublicIp: true, removeBlockStorage: true } }),
    },
    { type: "BlockStorageAttachment", name: "disk", args: { instanceId: "$id:vm", blockStorageId: diskId }, opts: { deletedWith: "vm" } },
  ];
  const s = await suite.newStack();
  const up = await s.run("up", program(1));
  expect(up.ok ? "" : show(up)).toBe("");
  const oldVm = s.res("vm")!.id!;
  const replaced = await s.run("up", program(2));
  expect(replaced.ok ? "" : show(replaced)).toBe("");
  const newVm = s.res("vm")!.id!;
  expect(newVm).not.toBe(oldVm);
  expect(replaced.stdout).toContain(`instance ${oldVm} is deleted as the old half of a replacement: its block storage is detached and kept`);
  expect((await truth(newVm, diskId)).diskOn).toBe(newVm); // the disk exists, on the new VM
  const check = await s.run("preview", program(2), { refresh: true, expectNoChanges: true });
  expect(check.ok ? "" : show(check)).toBe("");
  // a destroy is no replacement: removeBlockStorage deletes the disk with the VM, as declared
  const destroy = await s.run("destroy", program(2));
  expect(destroy.ok ? "" : show(destroy)).toBe("");
  expect((await simState(suite.sim)).blockStorages.map((b) => b.uuid)).not.toContain(diskId);
});

test("moving a network from a VswitchAttachment to the Instance's vswitchId takes one up: the VM stays on it, no drift after", async () => {
  const { vswitchId } = await catalogue("jkt-data-50");
  const s = await suite.newStack();
  const before: Res[] = [
    { type: "Instance", name: "vm", args: vmArgs("net-move") },
    { type: "VswitchAttachment", name: "net", args: { instanceId: "$id:vm", vswitchId } },
  ];
  const first = await s.run("up", before);
  expect(first.ok ? "" : show(first)).toBe("");
  const vm = s.res("vm")!.id!;
  const after: Res[] = [{ type: "Instance", name: "vm", args: vmArgs("net-move", { vswitchId }) }];
  const moved = await s.run("up", after);
  expect(moved.ok ? "" : show(moved)).toBe("");
  // the engine deletes the removed attachment after the Instance's update: it is left in place, as the Instance declares
  expect((await truth(vm, "")).vmVswitch).toBe(vswitchId);
  const check = await s.run("preview", after, { refresh: true, expectNoChanges: true });
  expect(check.ok ? "" : show(check)).toBe("");
});

test("moving a network from the Instance's vswitchId to a VswitchAttachment takes one up: taken over from the Instance, no drift after", async () => {
  const { vswitchId } = await catalogue("jkt-data-50");
  const s = await suite.newStack();
  const before: Res[] = [{ type: "Instance", name: "vm", args: vmArgs("net-move-back", { vswitchId }) }];
  const first = await s.run("up", before);
  expect(first.ok ? "" : show(first)).toBe("");
  const vm = s.res("vm")!.id!;
  const after: Res[] = [
    { type: "Instance", name: "vm", args: vmArgs("net-move-back") },
    { type: "VswitchAttachment", name: "net", args: { instanceId: "$id:vm", vswitchId } },
  ];
  const moved = await s.run("up", after);
  expect(moved.ok ? "" : show(moved)).toBe("");
  expect(moved.stdout).toContain("which declared this network as its vswitchId in the state and no longer does: this VswitchAttachment takes it over from that Instance");
  expect(moved.stdout).not.toContain("made by no resource this up has seen");
  expect((await truth(vm, "")).vmVswitch).toBe(vswitchId);
  const check = await s.run("preview", after, { refresh: true, expectNoChanges: true });
  expect(check.ok ? "" : show(check)).toBe("");
});

test("a VswitchAttachment replaced (instanceId) with ignoreChanges on vswitchId is not refused as a second attachment by its own second Check", async () => {
  // The engine checks a replaced resource twice: with olds and the inputs after ignoreChanges (the state's network),
  // then, once its Diff replaced it, without olds and with the program's raw inputs (step_generator.go
  // continueStepsFromDiff). Both Checks were counted as VswitchAttachments of the VM: a false "another
  // VswitchAttachment of this stack puts instance ... on private network" at preview and up.
  const st = await simState(suite.sim);
  const [n1, n2] = ["jkt-private-1", "jkt-private-2"].map((n) => st.vswitches.find((v) => v.name === n)!.uuid);
  const program = (vm: string, net: string): Res[] => [
    { type: "Instance", name: "vm1", args: vmArgs("att-ignored-1") },
    { type: "Instance", name: "vm2", args: vmArgs("att-ignored-2") },
    { type: "VswitchAttachment", name: "net", args: { instanceId: `$id:${vm}`, vswitchId: net }, opts: { ignoreChanges: ["vswitchId"] } },
  ];
  const s = await suite.newStack();
  const up = await s.run("up", program("vm1", n1!));
  expect(up.ok ? "" : show(up)).toBe("");
  const preview = await s.run("preview", program("vm2", n2!));
  expect(preview.ok ? "" : show(preview)).toBe("");
  const moved = await s.run("up", program("vm2", n2!));
  expect(moved.ok ? "" : show(moved)).toBe("");
  // The replacement is made from the program's raw inputs: vm2 joins n2, vm1 left n1.
  const after = await simState(suite.sim);
  const on = (name: string) => after.instances.find((i) => i.uuid === s.res(name)!.id)?.vswitchUuid ?? null;
  expect([on("vm1"), on("vm2")]).toEqual([null, n2]);
});
