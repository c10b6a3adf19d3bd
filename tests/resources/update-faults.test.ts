/**
 * Updates of an Instance under lost answers and interrupted runs (audit): an operation the API started must not be
 * started a second time, and an update must not be judged done on a VM whose operation still runs. Through the
 * registered provider against the simulator; counts are the simulator's own request log.
 */
import "./instance-env";
import { providers } from "../../provider";
import { harnessSuite, up, type FullProvider } from "./attachment-helpers";
import { validCreate } from "./instance-cases";

const instance = providers.Instance as FullProvider;
const harness = harnessSuite();

type Outs = Record<string, unknown> & { cpu: number; memory: number; status: string };

/** check then update, as the engine does for an up. */
async function update(id: string, olds: Outs, program: Record<string, unknown>): Promise<Outs> {
  const checked = await instance.check(olds, program);
  expect(checked.failures ?? []).toEqual([]);
  return (await instance.update(id, olds, checked.inputs)).outs as Outs;
}

const requestsOf = (mark: number, operation: string): number => harness().operationsSince(mark).filter((o) => o === operation).length;

it("a resize whose answer is lost after the API did it runs once, and the up succeeds", async () => {
  const h = harness();
  const program = { ...validCreate, hostname: "resize-lost" };
  const vm = await up<Outs>(instance, program);
  const mark = h.mark();
  await h.setFaults({ resetNext: { operation: "resizeInstance", count: 1, afterProcessing: true } });
  const outs = await update(vm.id, vm.outs, { ...program, cpu: 4, memory: 8 });
  expect(outs).toMatchObject({ cpu: 4, memory: 8 });
  // Before: the client repeated it (409 busy), then sent it again once the VM was idle: a second resize.
  expect(requestsOf(mark, "resizeInstance")).toBe(1);
  expect(await h.instance(vm.id)).toMatchObject({ cpu: 4 });
});

it("a tier change whose answer is lost after the API did it is not sent again", async () => {
  const h = harness();
  const program = { ...validCreate, hostname: "tier-lost" };
  const vm = await up<Outs>(instance, program);
  const mark = h.mark();
  await h.setFaults({ resetNext: { operation: "changeTier", count: 1, afterProcessing: true } });
  const outs = await update(vm.id, vm.outs, { ...program, tierId: 3 });
  expect(outs).toMatchObject({ tierId: 3 });
  expect(requestsOf(mark, "changeTier")).toBe(1);
});

it("an up after a killed one waits for the resize still running and does not send a second", async () => {
  const h = harness();
  const program = { ...validCreate, hostname: "resize-killed" };
  const vm = await up<Outs>(instance, program);
  // The killed up's resize: sent, still running; the state kept the old outputs (cpu 2).
  await h.setFaults({ stickNext: { kind: "resize", count: 1 } });
  await h.client.instances.resize(vm.id, { cpu: 4, memory: 8, storage: 40, useDedicatedCpu: false });
  const mark = h.mark();
  const updating = update(vm.id, vm.outs, { ...program, cpu: 4, memory: 8 });
  // (the update is waiting: it polls the VM and sends nothing while the operation runs)
  await new Promise<void>((resolve, reject) => {
    const look = (): void => void (h.operationsSince(mark).length >= 2 ? resolve() : setTimeout(look, 10));
    setTimeout(() => reject(new Error("the update did not start polling")), 10_000);
    look();
  });
  await h.admin("POST", `/instances/${vm.id}/finish-operation`, {});
  const outs = await updating;
  expect(outs).toMatchObject({ cpu: 4, memory: 8 });
  expect(requestsOf(mark, "resizeInstance")).toBe(0);
});

it("a repair is not judged done while a start still runs: after that start fails, the up starts the VM itself", async () => {
  const h = harness();
  const program = { ...validCreate, hostname: "repair-busy" };
  const vm = await up<Outs>(instance, program);
  await h.outOfBand(vm.id, { status: "Error" });
  const broken = { ...vm.outs, status: "Error" };
  // A start already under way (a killed up's repair, or the panel's), which then fails.
  await h.setFaults({ stickNext: { kind: "start", count: 1 } });
  await h.client.instances.start(vm.id);
  const mark = h.mark();
  const updating = update(vm.id, broken, program);
  await new Promise<void>((resolve, reject) => {
    const look = (): void => void (h.operationsSince(mark).length >= 2 ? resolve() : setTimeout(look, 10));
    setTimeout(() => reject(new Error("the update did not start polling")), 10_000);
    look();
  });
  await h.admin("POST", `/instances/${vm.id}/finish-operation`, { outcome: "failure" });
  const outs = await updating;
  // Before: success at once with status "starting" (not a failure status), no start of its own, and the VM then in
  // Error with a state that said nothing was left to do.
  expect(requestsOf(mark, "startInstance")).toBe(1);
  expect(outs.status).toBe("Running");
  expect((await h.instance(vm.id))?.status).toBe("Running");
});
