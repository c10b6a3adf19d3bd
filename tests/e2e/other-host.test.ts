/**
 * examples/storage-and-snapshots end to end against a simulator written as another host of this API may write it
 * (real-api-facts.md, beyond what the simulator does by default): list rows without `os`, the private network by
 * uuid, a finished snapshot called "Completed", paged lists that take at most 50 rows, `operation_flag` always 0 (the
 * status word alone says an operation runs), and "busy" answered as a 422 in Indonesian. up, a refresh with no drift,
 * destroy: judged by the simulator's state.
 */
import { EngineResult } from "../../tools/local-engine";
import { ExampleStack, TestSimulator, expectOk, simRequests, simState, startTestSimulator, stateResources } from "./helpers";

jest.setTimeout(180_000);

let sim: TestSimulator;
let stack: ExampleStack;
let diskId = "";

async function faults(body: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${sim.adminUrl}/faults`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`POST /__sim/faults: ${res.status} ${await res.text()}`);
}

beforeAll(async () => {
  sim = await startTestSimulator(0.5);
  diskId = (await simState(sim)).blockStorages.find((b) => b.name === "jkt-data-50")!.uuid;
  stack = await ExampleStack.create("storage-and-snapshots", sim, { blockStorageId: diskId });
  // (after the example's install, which can hold the event loop for seconds: a keep-alive connection from before it
  // is then closed by the simulator as the next request goes out, ECONNRESET)
  await faults({ wire: { listOs: false, privateNetwork: "uuid", snapshotReady: "Completed", maxPageSize: 50, operationFlag: false } });
}, 120_000);

afterAll(async () => {
  await sim?.close();
  stack?.remove();
});

const changed = (r: EngineResult) => Object.fromEntries(r.steps.filter((s) => s.op !== "same").map((s) => [s.name, s.op]));

test("up: one VM, the disk attached and one snapshot, through busy answers worded as a 422 in Indonesian", async () => {
  const busy = { status: 422, message: "VM sedang diproses, silakan coba lagi nanti.", count: 1 };
  await faults({ respondNext: { operation: "attachBlockStorage", ...busy } });
  await faults({ respondNext: { operation: "createSnapshot", ...busy } });
  const r = expectOk(await stack.run("up"));
  expect(changed(r)).toMatchObject({ vm: "create", data: "create", snapshot: "create" });
  const state = await simState(sim);
  expect(state.instances.map((i) => [i.uuid, i.status, i.blockStorageIds])).toEqual([[String(r.outputs.instanceId), "Running", [diskId]]]);
  expect(state.snapshots.map((s) => [s.uuid, s.status])).toEqual([[String(r.outputs.snapshotId), "Ready"]]);
  expect(r.outputs.snapshotStatus).toBe("Completed");
  const writes = (await simRequests(sim)).filter((q) => q.method !== "GET").map((q) => `${q.operation} ${q.status}`);
  expect(writes).toEqual(["createInstance 200", "attachBlockStorage 422", "attachBlockStorage 200", "createSnapshot 422", "createSnapshot 200"]);
  expect((await simRequests(sim)).filter((q) => q.operation === "listInstances").every((q) => q.status === 200 || q.status === 422)).toBe(true);
});

test("a refresh right after shows no drift; preview --refresh --expect-no-changes passes", async () => {
  expectOk(await stack.run("preview", { refresh: true, expectNoChanges: true }));
});

test("destroy: the VM and its snapshot are gone, the disk is kept detached, the state is empty", async () => {
  const r = expectOk(await stack.run("destroy"));
  expect(changed(r)).toMatchObject({ vm: "delete", data: "delete", snapshot: "delete" });
  const state = await simState(sim);
  expect(state.instances).toEqual([]);
  expect(state.snapshots).toEqual([]);
  expect(state.blockStorages.find((b) => b.uuid === diskId)).toMatchObject({ instanceUuid: null });
  expect(stateResources(stack.stateText())).toEqual([]);
});
