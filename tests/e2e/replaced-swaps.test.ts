/**
 * Two Instances replaced in the same up swapping what they hold, through the local engine and the real
 * dynamic-provider host: the reserved addresses they pin (publicNetworkId), and their disks. The engine diffs the
 * second Instance only after the first one's create has begun, so the first create meets its address on a VM it
 * does not yet know is being replaced; a disk's new attachment meets the disk on the other Instance's old VM.
 */
import { admin, show, simState, specSuite, vmArgs, type Res } from "./spec-stack";

jest.setTimeout(300_000);
const suite = specSuite();

test("swapping pinned addresses with a replace goes through in one up, and neither of your addresses is released", async () => {
  const free = (await simState(suite.sim)).publicIps.filter((p) => p.seeded && p.instanceUuid === null && (p as { locationId?: number }).locationId === 1);
  const [r1, r2] = [free[0]!.uuid, free[1]!.uuid];
  const before: Res[] = [
    { type: "Instance", name: "a", args: vmArgs("pin-a", { publicNetworkId: r1 }) },
    { type: "Instance", name: "b", args: vmArgs("pin-b", { publicNetworkId: r2 }) },
  ];
  const s = await suite.newStack();
  const up = await s.run("up", before);
  expect(up.ok ? "" : show(up)).toBe("");
  const after: Res[] = [
    { type: "Instance", name: "a", args: vmArgs("pin-a", { templateId: 2, publicNetworkId: r2 }) },
    { type: "Instance", name: "b", args: vmArgs("pin-b", { templateId: 2, publicNetworkId: r1 }) },
  ];
  const swapped = await s.run("up", after);
  expect(swapped.ok ? "" : show(swapped)).toBe("");
  const [a, b] = [s.res("a")!.id!, s.res("b")!.id!];
  const truth = await simState(suite.sim);
  expect(truth.instances.filter((i) => i.hostname.startsWith("pin-")).map((i) => [i.uuid, i.publicIpUuid]).sort()).toEqual([[a, r2], [b, r1]].sort());
  const check = await s.run("preview", after, { refresh: true, expectNoChanges: true });
  expect(check.ok ? "" : show(check)).toBe("");
  const destroyed = await s.run("destroy", after);
  expect(destroyed.ok ? "" : show(destroyed)).toBe("");
});

test("two Instances replaced in one up swap their disks in that up, and nothing is left to do", async () => {
  const st = await simState(suite.sim);
  const [d1, d2] = ["jkt-data-50", "jkt-data-100"].map((name) => st.blockStorages.find((b) => b.name === name)!.uuid);
  const program = (templateId: number, da: string, db: string): Res[] => [
    { type: "Instance", name: "a", args: vmArgs("swap-disk-a", { templateId }) },
    { type: "Instance", name: "b", args: vmArgs("swap-disk-b", { templateId }) },
    { type: "BlockStorageAttachment", name: "a-disk", args: { instanceId: "$id:a", blockStorageId: da } },
    { type: "BlockStorageAttachment", name: "b-disk", args: { instanceId: "$id:b", blockStorageId: db } },
  ];
  const s = await suite.newStack();
  const up = await s.run("up", program(1, d1!, d2!));
  expect(up.ok ? "" : show(up)).toBe("");
  const swapped = await s.run("up", program(2, d2!, d1!));
  expect(swapped.ok ? "" : show(swapped)).toBe("");
  const [a, b] = [s.res("a")!.id!, s.res("b")!.id!];
  const disks = (await simState(suite.sim)).blockStorages.filter((x) => x.uuid === d1 || x.uuid === d2);
  expect(Object.fromEntries(disks.map((x) => [x.uuid, x.instanceUuid]))).toEqual({ [d1!]: b, [d2!]: a });
  const check = await s.run("preview", program(2, d2!, d1!), { refresh: true, expectNoChanges: true });
  expect(check.ok ? "" : show(check)).toBe("");
});

test("a replacement whose create failed half-way gets the address its old VM holds at the next up, which then deletes the old VM", async () => {
  // soak-145: the old VM waits in the state for deletion at the end of an up that succeeds (step_generator.go
  // GenerateDeletes), holding the address the next program pins on its replacement; that up was refused at every run.
  const free = (await simState(suite.sim)).publicIps.filter((p) => p.seeded && p.instanceUuid === null && (p as { locationId?: number }).locationId === 1);
  const [r1, r2] = [free[0]!.uuid, free[1]!.uuid];
  const s = await suite.newStack();
  const up = await s.run("up", [{ type: "Instance", name: "a", args: vmArgs("halfway-pin", { publicNetworkId: r1 }) }]);
  expect(up.ok ? "" : show(up)).toBe("");
  const old = s.res("a")!.id!;
  await admin(suite.sim, "POST", "/faults", { failNext: { kind: "create" } }); // the replacement's VM is made, then fails
  const failed = await s.run("up", [{ type: "Instance", name: "a", args: vmArgs("halfway-pin", { templateId: 2, publicNetworkId: r2 }) }]);
  expect(failed.ok).toBe(false);
  const replacement = s.res("a")!.id!;
  expect(replacement).not.toBe(old);
  expect((await simState(suite.sim)).instances.find((i) => i.uuid === old)?.publicIpUuid).toBe(r1);
  const program: Res[] = [{ type: "Instance", name: "a", args: vmArgs("halfway-pin", { templateId: 2, publicNetworkId: r1 }) }];
  // a slow host: the update's first steps (the failed VM started again) outlast the quiet pause after the engine's Diff,
  // so nothing else of the deployment runs when the address is refused (as in the soak, at a load of 33)
  await admin(suite.sim, "POST", "/faults", { latencyMs: 600 });
  const next = await s.run("up", program);
  await admin(suite.sim, "DELETE", "/faults");
  expect(next.ok ? "" : show(next)).toBe("");
  const truth = await simState(suite.sim);
  expect(truth.instances.filter((i) => i.hostname === "halfway-pin").map((i) => [i.uuid, i.publicIpUuid])).toEqual([[replacement, r1]]);
  expect(truth.publicIps.filter((p) => p.uuid === r1 || p.uuid === r2).map((p) => [p.uuid, p.instanceUuid]).sort()).toEqual([[r1, replacement], [r2, null]].sort());
  const check = await s.run("preview", program, { refresh: true, expectNoChanges: true });
  expect(check.ok ? "" : show(check)).toBe("");
  const destroyed = await s.run("destroy", program);
  expect(destroyed.ok ? "" : show(destroyed)).toBe("");
});
