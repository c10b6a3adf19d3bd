/**
 * "Busy" answers as another host may word them (real-api-facts.md: Laravel shapes from Indonesian hosts; api-spec.md
 * §7 shows no error status): a 400 or 422 saying an operation is in progress, instead of the simulator's 409. The
 * provider waits them out and sends again (a refusal changed nothing), within the resource's deadline; a 422 about a
 * field the request sent is the program's mistake and fails at once. Judged by the simulator's state.
 */
import "./instance-env";
import { providers } from "../../provider";
import { harnessSuite, progressSuite, up, type FullProvider } from "./attachment-helpers";
import { validCreate } from "./instance-cases";

const instance = providers.Instance as FullProvider;
const snapshot = providers.Snapshot as FullProvider;
const h = harnessSuite();
const said = progressSuite();
afterEach(() => h().clearFaults());

let n = 0;
async function newVm(timeouts?: Record<string, string>) {
  return up(instance, { ...validCreate, hostname: `busy-words-${++n}`, ...(timeouts ? { timeouts } : {}) });
}

it.each<[number, string, Record<string, string[]> | undefined]>([
  [400, "Another operation is in progress on this instance.", undefined],
  [422, "VM is still in progress.", { vm: ["VM is still in progress."] }],
  [422, "Instance sedang diproses, silakan coba lagi nanti.", undefined],
])("a rename answered %i %j twice is waited out and done once", async (status, message, errors) => {
  const vm = await newVm();
  await h().setFaults({ respondNext: { operation: "updateHostname", status, message, errors, count: 2 } });
  const renamed = `${vm.inputs.hostname as string}-b`;
  const next = (await instance.check(vm.inputs, { ...vm.inputs, hostname: renamed })).inputs;
  const mark = h().mark();
  const result = await instance.update(vm.id, vm.outs, next);
  expect((result.outs as { hostname: string }).hostname).toBe(renamed);
  expect((await h().instance(vm.id))!.hostname).toBe(renamed);
  const sent = h().sim.requests().slice(mark).filter((r) => r.operation === "updateHostname").map((r) => r.status);
  expect(sent).toEqual([status, status, 200]); // the two refusals, then the one rename
  expect(said.join("\n")).toContain(`the API answered busy: HTTP ${status} ${JSON.stringify(message)}; waiting for the instance to be idle`);
});

it("a snapshot (never sent twice) answered 422 busy is sent again after the refusal: one snapshot", async () => {
  const vm = await newVm();
  await h().setFaults({ respondNext: { operation: "createSnapshot", status: 422, message: "Instance is on cloning progress", count: 1 } });
  const snap = await up(snapshot, { instanceId: vm.id, name: "after-busy" });
  const snaps = ((await h().state()) as unknown as { snapshots: { uuid: string; name: string; instanceUuid: string }[] }).snapshots.filter((s) => s.instanceUuid === vm.id);
  expect(snaps.map((s) => [s.uuid, s.name])).toEqual([[snap.id, "after-busy"]]);
});

it("a host that keeps answering busy fails at the deadline, quoting its last answer and naming the timeout to raise", async () => {
  const vm = await newVm({ update: "3s" });
  await h().setFaults({ respondNext: { operation: "updateHostname", status: 422, message: "VM is still in progress.", count: 1000 } });
  const next = (await instance.check(vm.inputs, { ...vm.inputs, hostname: `${vm.inputs.hostname as string}-c` })).inputs;
  const error = (await instance.update(vm.id, vm.outs, next).then(() => undefined, (e: unknown) => e)) as Error;
  expect(error.message).toContain('(the API kept answering busy: HTTP 422 "VM is still in progress.")');
  expect(error.message).toContain("raise timeouts.update");
  expect((await h().instance(vm.id))!.hostname).toBe(vm.inputs.hostname);
});

it("a 422 about a field the request sent fails at once, whatever its words: no wait, sent once", async () => {
  const vm = await newVm();
  await h().setFaults({ respondNext: { operation: "updateHostname", status: 422, message: "The hostname is still being processed.", errors: { hostname: ["The hostname is still being processed."] } } });
  const next = (await instance.check(vm.inputs, { ...vm.inputs, hostname: `${vm.inputs.hostname as string}-d` })).inputs;
  const mark = h().mark();
  const error = (await instance.update(vm.id, vm.outs, next).then(() => undefined, (e: unknown) => e)) as Error;
  expect(error.message).toContain("HTTP 422 the request was rejected as invalid");
  expect(error.message).toContain("hostname: The hostname is still being processed.");
  expect(h().operationsSince(mark).filter((op) => op === "updateHostname")).toHaveLength(1);
});

it("a refusal about the VM's power state ('This action requires the instance to be running.') fails at once: not waited on as busy", async () => {
  const vm = await newVm();
  await h().setFaults({ respondNext: { operation: "updateHostname", status: 422, message: "This action requires the instance to be running.", count: 1000 } });
  const next = (await instance.check(vm.inputs, { ...vm.inputs, hostname: `${vm.inputs.hostname as string}-e` })).inputs;
  const mark = h().mark();
  const error = (await instance.update(vm.id, vm.outs, next).then(() => undefined, (e: unknown) => e)) as Error;
  expect(error.message).toContain("This action requires the instance to be running.");
  expect(error.message).not.toContain("kept answering busy");
  expect(h().operationsSince(mark).filter((op) => op === "updateHostname")).toHaveLength(1);
});
