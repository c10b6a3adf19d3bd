/**
 * examples/storage-and-snapshots end to end (packed package, local engine, simulator): a VM, a block storage
 * disk attached to it, and a snapshot taken after the attach. The tests run in order and share one stack.
 */
import { EngineResult } from "../../tools/local-engine";
import {
  ExampleStack,
  SimInstance,
  TestSimulator,
  VM_PASSWORD,
  expectOk,
  patchInstance,
  simState,
  startTestSimulator,
  stateResources,
} from "./helpers";

// Each test runs the engine up to three times (a few seconds each); leave room for a loaded machine.
jest.setTimeout(180_000);

let sim: TestSimulator;
let stack: ExampleStack;
let diskId = "";
let vmId = "";
let snapshotId = "";

beforeAll(async () => {
  sim = await startTestSimulator();
  diskId = (await simState(sim)).blockStorages.find((b) => b.name === "jkt-data-50")!.uuid;
  stack = await ExampleStack.create("storage-and-snapshots", sim, { blockStorageId: diskId });
}, 120_000);

afterAll(async () => {
  await sim?.close();
  stack?.remove();
});

function changed(r: EngineResult): Record<string, string> {
  return Object.fromEntries(r.steps.filter((s) => s.op !== "same").map((s) => [s.name, s.op]));
}

async function instance(uuid: string): Promise<SimInstance | undefined> {
  return (await simState(sim)).instances.find((i) => i.uuid === uuid);
}

test("up creates the VM, attaches the disk, then snapshots the VM with the disk", async () => {
  const r = expectOk(await stack.run("up"));
  expect(changed(r)).toMatchObject({ vm: "create", data: "create", snapshot: "create" });
  vmId = String(r.outputs.instanceId);
  snapshotId = String(r.outputs.snapshotId);

  expect(await instance(vmId)).toMatchObject({ hostname: "data-1", memoryGb: 2, storageGb: 30, blockStorageIds: [diskId] });
  const state = await simState(sim);
  const snapshot = state.snapshots.find((s) => s.uuid === snapshotId);
  expect(snapshot).toMatchObject({ instanceUuid: vmId, name: "baseline", status: "Ready" });
  // dependsOn: the snapshot was taken after the attach, so it covers the disk.
  expect(snapshot?.attachedStorage).toEqual([expect.objectContaining({ id: diskId })]);
  expect(r.outputs).toMatchObject({ dataDiskName: "jkt-data-50", dataDiskSizeGb: 50, snapshotStatus: "Ready" });

  expect(stack.stateText()).not.toContain(sim.apiKey);
  expect(stack.stateText()).not.toContain(VM_PASSWORD);
});

test("a preview right after up shows no changes", async () => {
  const r = expectOk(await stack.run("preview", { expectNoChanges: true }));
  expect(r.summary).toMatchObject({ create: 0, update: 0, replace: 0, delete: 0 });
});

test("memory changed in the panel: the drift check fails, refresh shows it, up resizes back", async () => {
  await patchInstance(sim, vmId, { memory: 4 });

  // The CI drift check: `pulumi preview --refresh --expect-no-changes` fails, naming the drifted property.
  const check = await stack.run("preview", { refresh: true, expectNoChanges: true });
  expect(check.ok).toBe(false);
  expect(check.drift?.find((d) => d.name === "vm")?.properties.map((p) => p.name)).toContain("memory");
  // An update with no property label: the real engine labels a step by old inputs against new ones (a dynamic provider
  // sends no detailed diff: pkg/backend/display/rows.go getDiffInfo), and the program did not change; the drift above
  // names memory.
  expect(check.steps.find((s) => s.name === "vm" && s.op !== "same")).toMatchObject({ op: "update", diffs: [] });

  const refresh = expectOk(await stack.run("refresh"));
  const drift = refresh.drift?.find((d) => d.name === "vm");
  expect(drift?.properties.find((p) => p.name === "memory")).toMatchObject({ old: "2", new: "4" });

  const up = expectOk(await stack.run("up"));
  expect(changed(up)).toEqual({ vm: "update" });
  expect(await instance(vmId)).toMatchObject({ memoryGb: 2, blockStorageIds: [diskId] });
});

test("a renamed snapshot is replaced (the API cannot rename); a bigger disk size resizes the VM in place", async () => {
  const r = expectOk(await stack.run("up", { config: { snapshotName: "after-upgrade", storage: "40" } }));
  expect(changed(r)).toEqual({ vm: "update", snapshot: "replace" });
  expect(r.steps.find((s) => s.name === "snapshot" && s.op === "replace")?.replaces).toEqual(["name"]);

  const state = await simState(sim);
  expect(state.instances.find((i) => i.uuid === vmId)).toMatchObject({ storageGb: 40 });
  expect(state.snapshots.map((s) => s.name)).toEqual(["after-upgrade"]);
  expect(state.snapshots[0]?.uuid).not.toBe(snapshotId);
});

test("destroy deletes the VM and its snapshot and detaches the disk, which stays in the account", async () => {
  const r = expectOk(await stack.run("destroy", { config: { snapshotName: "after-upgrade", storage: "40" } }));
  expect(changed(r)).toMatchObject({ vm: "delete", data: "delete", snapshot: "delete" });
  const state = await simState(sim);
  expect(state.instances).toEqual([]);
  expect(state.snapshots).toEqual([]);
  expect(state.blockStorages.find((b) => b.uuid === diskId)).toMatchObject({ instanceUuid: null });
  expect(state.publicIps.filter((ip) => !ip.seeded || ip.instanceUuid !== null)).toEqual([]);
  expect(stateResources(stack.stateText())).toEqual([]);
});
