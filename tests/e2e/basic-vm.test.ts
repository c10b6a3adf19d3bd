/**
 * examples/basic-vm end to end: the packed package installed as users install it, the program run by the
 * local engine (real Pulumi language runtime and dynamic-provider host) against the simulator.
 * The tests run in order and share one stack, like a user's successive commands.
 */
import { EngineResult } from "../../tools/local-engine";
import {
  ExampleStack,
  SimInstance,
  TestSimulator,
  VM_PASSWORD,
  expectOk,
  isSecretValue,
  patchInstance,
  simRequests,
  simState,
  startTestSimulator,
  stateResources,
} from "./helpers";

// Each test runs the engine up to three times (a few seconds each); leave room for a loaded machine.
jest.setTimeout(180_000);

let sim: TestSimulator;
let stack: ExampleStack;
let vmId = "";

beforeAll(async () => {
  sim = await startTestSimulator();
  stack = await ExampleStack.create("basic-vm", sim);
}, 120_000);

afterAll(async () => {
  await sim?.close();
  stack?.remove();
});

async function instance(uuid: string): Promise<SimInstance | undefined> {
  return (await simState(sim)).instances.find((i) => i.uuid === uuid);
}

function stepsOf(r: EngineResult, name: string): string[] {
  return r.steps.filter((s) => s.name === name && s.op !== "same").map((s) => s.op);
}

test("up creates the VM as declared, running, with a public address, and exports its outputs", async () => {
  const r = expectOk(await stack.run("up"));
  expect(stepsOf(r, "vm")).toEqual(["create"]);
  vmId = String(r.outputs.instanceId);
  const vm = await instance(vmId);
  expect(vm).toMatchObject({ hostname: "basic-vm-1", cpu: 1, memoryGb: 1, storageGb: 20, status: "Running", templateId: 1 });
  expect(vm?.publicIpAddress).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
  expect(r.outputs).toMatchObject({ hostname: "basic-vm-1", ipAddress: vm?.publicIpAddress, status: "Running" });
  expect(r.outputs.estimatedMonthlyPrice).toBeGreaterThan(0);
});

test("the state file holds no API key and no plain password; the password is stored as a secret", () => {
  const text = stack.stateText();
  expect(text).not.toContain(sim.apiKey);
  expect(text).not.toContain(VM_PASSWORD);
  const vm = stateResources(text).find((r) => r.name === "vm");
  expect(isSecretValue(vm?.outputs?.password)).toBe(true);
  expect(isSecretValue(vm?.inputs?.password)).toBe(true);
});

test("a preview right after up shows no changes", async () => {
  const r = expectOk(await stack.run("preview", { expectNoChanges: true }));
  expect(r.summary).toMatchObject({ create: 0, update: 0, replace: 0, delete: 0 });
});

test("an out-of-band change is shown by refresh, and up converges it", async () => {
  await patchInstance(sim, vmId, { cpu: 2, hostname: "renamed-in-panel" });

  const refresh = expectOk(await stack.run("refresh"));
  const drift = refresh.drift?.find((d) => d.name === "vm");
  expect(drift?.gone).toBe(false);
  // Refresh also shows the outputs that moved with the change (price, updatedAt), as `pulumi refresh` does.
  expect(drift?.properties.map((p) => p.name)).toEqual(expect.arrayContaining(["cpu", "hostname"]));
  expect(refresh.stdout).toContain("renamed-in-panel");

  const up = expectOk(await stack.run("up"));
  const step = up.steps.find((s) => s.name === "vm" && s.op !== "same");
  expect(step).toMatchObject({ op: "update" });
  // No [diff: ...] label, as with the real engine: the program's inputs did not change (Instance's read returns no
  // inputs, so the old inputs are the last up's), and the label lists only input changes; refresh showed the drift.
  expect(step?.diffs).toEqual([]);
  expect(await instance(vmId)).toMatchObject({ cpu: 1, hostname: "basic-vm-1", status: "Running" });

  // The CI drift check (`pulumi preview --refresh --expect-no-changes`) passes again: no false drift.
  expectOk(await stack.run("preview", { refresh: true, expectNoChanges: true }));
});

test("a changed cpu count updates the VM in place; a changed template replaces it (new VM first)", async () => {
  const resize = expectOk(await stack.run("up", { config: { cpu: "2" } }));
  expect(resize.steps.find((s) => s.name === "vm" && s.op !== "same")).toMatchObject({ op: "update", diffs: ["cpu"] });
  expect(await instance(vmId)).toMatchObject({ cpu: 2, status: "Running" });

  const replace = expectOk(await stack.run("up", { config: { cpu: "2", templateId: "2" } }));
  expect(replace.steps.find((s) => s.name === "vm" && s.op !== "same")).toMatchObject({ op: "replace", replaces: ["templateId"] });
  const newId = String(replace.outputs.instanceId);
  expect(newId).not.toBe(vmId);
  expect(await instance(vmId)).toBeUndefined();
  expect(await instance(newId)).toMatchObject({ templateId: 2, cpu: 2, hostname: "basic-vm-1", status: "Running" });
  // Create-before-delete: the old VM was deleted only after the new one had been created.
  const requests = await simRequests(sim);
  const created = requests.filter((q) => q.operation === "createInstance").at(-1)!;
  const deleted = requests.find((q) => q.operation === "deleteInstance" && q.path.includes(vmId))!;
  expect(deleted.seq).toBeGreaterThan(created.seq);
  vmId = newId;
});

test("destroy leaves no instance and no address of the stack behind", async () => {
  const r = expectOk(await stack.run("destroy", { config: { cpu: "2", templateId: "2" } }));
  expect(stepsOf(r, "vm")).toEqual(["delete"]);
  const state = await simState(sim);
  expect(state.instances).toEqual([]);
  // Addresses allocated for the stack are released (the seeded reserved ones stay, unassigned).
  expect(state.publicIps.filter((ip) => !ip.seeded || ip.instanceUuid !== null)).toEqual([]);
  expect(stateResources(stack.stateText())).toEqual([]);
});
