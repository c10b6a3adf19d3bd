/**
 * Updates of an Instance under lost answers and interrupted runs (audit): an operation the API started must not be
 * started a second time, and an update must not be judged done on a VM whose operation still runs. Through the
 * registered provider against the simulator; counts are the simulator's own request log.
 */
import "./instance-env";
import { providers } from "../../provider";
import { ValidationError } from "../../provider/api";
import { recordingUncertainUpdate, ResourceInitError } from "../../provider/resources/common/errors";
import { harnessSuite, preview, up, type FullProvider } from "./attachment-helpers";
import { validCreate } from "./instance-cases";

// A lost resize answer is looked at again once a request on its way would have arrived (the request bound): short here.
process.env.VMHOST_REQUEST_TIMEOUT = "2s";
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

it.each([
  // Before: the client repeated it (409 busy), then sent it again once the VM was idle: a second resize.
  ["a resize whose answer is lost after the API did it runs once", "resizeInstance", { cpu: 4, memory: 8 }, true, 1],
  ["a tier change whose answer is lost after the API did it is not sent again", "changeTier", { tierId: 3 }, true, 1],
  // Before the 'once' routes got this, one dropped connection failed the up (audit of the change).
  ["a resize whose connection dropped before the API saw it is sent once more", "resizeInstance", { cpu: 4, memory: 8 }, false, 2],
] as const)("%s, and the up succeeds", async (_what, operation, change, afterProcessing, requests) => {
  const h = harness();
  const program = { ...validCreate, hostname: `lost-${operation.toLowerCase()}-${afterProcessing}` };
  const vm = await up<Outs>(instance, program);
  const mark = h.mark();
  await h.setFaults({ resetNext: { operation, count: 1, afterProcessing } });
  const outs = await update(vm.id, vm.outs, { ...program, ...change });
  expect(outs).toMatchObject(change);
  expect(requestsOf(mark, operation)).toBe(requests);
  expect(await h.instance(vm.id)).toMatchObject("cpu" in change ? { cpu: change.cpu } : { tierId: change.tierId });
});

it("an update with nothing to send does not wait for an operation running on the VM (a restart in the panel)", async () => {
  const h = harness();
  const program = { ...validCreate, hostname: "restart-in-panel" };
  const vm = await up<Outs>(instance, program);
  await h.setFaults({ stickNext: { kind: "restart", count: 1 } });
  await h.client.instances.restart(vm.id);
  try {
    const outs = await update(vm.id, vm.outs, { ...program, timeouts: { update: "45m" } });
    expect(outs).toMatchObject({ timeouts: { update: "45m" } });
  } finally {
    await h.admin("POST", `/instances/${vm.id}/finish-operation`, {});
  }
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

it("an up after a killed one whose tier change then failed (VM in Error, the state from before): repairs first, then changes the tier, and succeeds", async () => {
  // update audit: the tier change went to the broken VM and the up failed, asking for another up to start it
  const h = harness();
  const program = { ...validCreate, hostname: "tier-killed-failed", powerState: "running" };
  const vm = await up<Outs>(instance, program);
  await h.setFaults({ failNext: { kind: "changeTier", count: 1 } });
  await h.client.instances.changeTier(vm.id, { tierId: 3 }); // the killed up's request
  await until(async () => (await h.instance(vm.id))?.status === "Error");
  const mark = h.mark();
  const outs = await update(vm.id, vm.outs, { ...program, tierId: 3 }); // the state still says Running, tier 2
  expect(h.operationsSince(mark).filter((o) => o === "startInstance" || o === "changeTier")).toEqual(["startInstance", "changeTier"]);
  expect(outs).toMatchObject({ tierId: 3, status: "Running", powerState: "running" });
  expect(await h.instance(vm.id)).toMatchObject({ status: "Running" });
});

it("an up after a killed one whose resize then failed, on a VM declared stopped: repairs, resizes, and stops it again", async () => {
  // soak stop16e-52: the repair started the VM, the state (from before) already recorded "stopped", so no stop was
  // planned, and the up reported success with the VM running (billing as running) while the program declares it stopped.
  const h = harness();
  const program = { ...validCreate, hostname: "resize-killed-stopped", powerState: "stopped" };
  const vm = await up<Outs>(instance, program);
  expect(vm.outs).toMatchObject({ powerState: "stopped" });
  await h.setFaults({ failNext: { kind: "resize", count: 1 } });
  await h.client.instances.resize(vm.id, { cpu: 4, memory: 8, storage: 40, useDedicatedCpu: false }); // the killed up's request
  await until(async () => (await h.instance(vm.id))?.status === "Error");
  const mark = h.mark();
  const outs = await update(vm.id, vm.outs, { ...program, cpu: 4, memory: 8 }); // the state still says Stopped, cpu 2
  expect(h.operationsSince(mark).filter((o) => o === "startInstance" || o === "resizeInstance" || o === "stopInstance"))
    .toEqual(["startInstance", "resizeInstance", "stopInstance"]);
  expect(outs).toMatchObject({ cpu: 4, memory: 8, powerState: "stopped" });
  expect(await h.instance(vm.id)).toMatchObject({ status: "Stopped", cpu: 4 });
});

it("an update of a VM stopped in the panel (the state says running, the program too) starts it again after the resize", async () => {
  // Before: resized and left stopped; the up succeeded and only the next up, from the outputs it recorded, started it.
  const h = harness();
  const program = { ...validCreate, hostname: "stopped-in-panel", powerState: "running" };
  const vm = await up<Outs>(instance, program);
  await h.client.instances.stop(vm.id); // the panel
  await until(async () => (await h.instance(vm.id))?.status === "Stopped");
  const mark = h.mark();
  const outs = await update(vm.id, vm.outs, { ...program, cpu: 4, memory: 8 });
  expect(h.operationsSince(mark).filter((o) => o === "resizeInstance" || o === "startInstance")).toEqual(["resizeInstance", "startInstance"]);
  expect(outs).toMatchObject({ cpu: 4, powerState: "running" });
  expect(await h.instance(vm.id)).toMatchObject({ status: "Running", cpu: 4 });
});
it.each([
  // Before: the update failed ("`pulumi up` again starts it to repair it"), a second up for what this one could do.
  ["in Error (an operation failed in the panel), declared running: starts it", "running", "Error", ["startInstance"], "Running"],
  ["in Error, declared stopped: starts it to repair it, then stops it", "stopped", "Error", ["startInstance", "stopInstance"], "Stopped"],
  // Before: success with the VM stopped, against the program (the README says every update ends as declared).
  ["stopped in the panel, declared running: starts it", "running", "Stopped", ["startInstance"], "Running"],
] as const)("an update with nothing planned (only timeouts changed) of a VM %s, and the up succeeds", async (_what, powerState, panel, sent, status) => {
  const h = harness();
  const program = { ...validCreate, hostname: `nothing-planned-${powerState}-${panel.toLowerCase()}`, powerState };
  const vm = await up<Outs>(instance, program);
  await h.outOfBand(vm.id, { status: panel });
  const mark = h.mark();
  const outs = await update(vm.id, vm.outs, { ...program, timeouts: { update: "45m" } }); // the state says as declared
  expect(h.operationsSince(mark).filter((o) => o === "startInstance" || o === "stopInstance")).toEqual(sent);
  expect(outs).toMatchObject({ status, powerState, timeouts: { update: "45m" } });
  expect(await h.instance(vm.id)).toMatchObject({ status });
});

it("an update with nothing planned of a VM as declared sends nothing but reads", async () => {
  const h = harness();
  const program = { ...validCreate, hostname: "nothing-planned-as-declared", powerState: "stopped" };
  const vm = await up<Outs>(instance, program);
  const mark = h.mark();
  await update(vm.id, vm.outs, { ...program, timeouts: { update: "45m" } });
  expect(new Set(h.operationsSince(mark))).toEqual(new Set(["getInstance"]));
});

describe("an update whose answers are all lost after the API made the change records what the object is now", () => {
  afterEach(() => harness().clearFaults());

  it("FirewallRule: the program reverted afterwards plans the change back (before: no change, the rule stayed on the new port)", async () => {
    const h = harness();
    const vm = await up<Outs>(instance, { ...validCreate, hostname: "rule-lost" });
    const firewallRule = providers.FirewallRule as FullProvider;
    const program = { instanceId: vm.id, protocol: "tcp", port: 22, action: "accept" };
    const rule = await up<Record<string, unknown>>(firewallRule, program);
    await h.setFaults({ resetNext: { operation: "updateFirewallRule", count: 50, afterProcessing: true } });
    const to2222 = (await firewallRule.check(rule.outs, { ...program, port: 2222 })).inputs;
    const failed = await firewallRule.update(rule.id, rule.outs, to2222).catch((e: unknown) => e);
    await h.clearFaults();
    expect(failed).toBeInstanceOf(ResourceInitError);
    expect((failed as Error).message).toMatch(/The change may have been made: what the object is now is recorded, and `pulumi up` again finishes it$/);
    const recorded = (failed as ResourceInitError).properties;
    expect(recorded).toMatchObject({ port: "2222" });
    expect(await preview(firewallRule, rule.id, recorded, program)).toMatchObject({ changes: true, replaces: [] });
  });

  it("PublicIp: an rdns change, the same", async () => {
    const h = harness();
    const vm = await up<Outs>(instance, { ...validCreate, hostname: "rdns-lost" });
    const publicIp = providers.PublicIp as FullProvider;
    const program = { instanceId: vm.id, rdns: "a.example.com" };
    const ip = await up<Record<string, unknown>>(publicIp, program);
    await h.setFaults({ resetNext: { operation: "updateRdns", count: 50, afterProcessing: true } });
    const toB = (await publicIp.check(ip.outs, { ...program, rdns: "b.example.com" })).inputs;
    const failed = await publicIp.update(ip.id, ip.outs, toB).catch((e: unknown) => e);
    await h.clearFaults();
    expect(failed).toBeInstanceOf(ResourceInitError);
    const recorded = (failed as ResourceInitError).properties;
    expect(recorded).toMatchObject({ rdns: "b.example.com" });
    expect(await preview(publicIp, ip.id, recorded, program)).toMatchObject({ changes: true });
  });

  it("a definite refusal (4xx: nothing changed) stays the plain error, and the old outputs stay", async () => {
    const refusal = new ValidationError({ operation: "updateFirewallRule", method: "PATCH", path: "/x", status: 422, apiMessage: "The port is invalid." });
    const fresh = jest.fn(async () => ({ port: "9" }));
    const failed = await recordingUncertainUpdate("r-1", { port: "22" }, ["port"], fresh, async () => {
      throw refusal;
    }).catch((e: unknown) => e);
    expect(failed).toBe(refusal);
    expect(fresh).not.toHaveBeenCalled();
    // unreadable after an uncertain failure: the old outputs without what was changing (the next diff shows it)
    const lost = await recordingUncertainUpdate("r-1", { port: "22", action: "accept" }, ["port"], async () => { throw new Error("down"); }, async () => {
      throw new Error("socket hang up");
    }).catch((e: unknown) => e);
    expect((lost as ResourceInitError).properties).toEqual({ action: "accept" });
  });
});

describe("an update of an object deleted outside Pulumi says to refresh (every up would fail the same way)", () => {
  const advice = /no longer exists \(deleted outside Pulumi, e\.g\. in the panel\): run `pulumi refresh` \(or `pulumi up --refresh`\), which drops it from the state; the next `pulumi up` then creates it as declared\. Nothing was changed\.$/;

  it("Instance, FirewallRule and PublicIp", async () => {
    const h = harness();
    const program = { ...validCreate, hostname: "gone-in-panel" };
    const vm = await up<Outs>(instance, program);
    const firewallRule = providers.FirewallRule as FullProvider;
    const publicIp = providers.PublicIp as FullProvider;
    const ruleProgram = { instanceId: vm.id, protocol: "tcp", port: 22, action: "accept" };
    const rule = await up<Record<string, unknown>>(firewallRule, ruleProgram);
    const ip = await up<Record<string, unknown>>(publicIp, { instanceId: vm.id, rdns: "a.example.com" });
    // the rule deleted in the panel
    await h.client.firewall.deleteRule(vm.id, rule.id);
    const ruleError = await firewallRule.update(rule.id, rule.outs, (await firewallRule.check(rule.outs, { ...ruleProgram, port: 2222 })).inputs).catch((e: unknown) => e);
    expect((ruleError as Error).message).toMatch(advice);
    expect(ruleError).not.toBeInstanceOf(ResourceInitError);
    // the VM deleted in the panel (its address with it)
    await h.client.instances.delete(vm.id, { removeIp: true, removeBlockStorage: false });
    await until(async () => (await h.instance(vm.id)) === undefined);
    const vmError = await update(vm.id, vm.outs, { ...program, cpu: 4 }).catch((e: unknown) => e);
    expect((vmError as Error).message).toMatch(new RegExp(`^instance ${vm.id} ${advice.source}`));
    const ipError = await publicIp.update(ip.id, ip.outs, (await publicIp.check(ip.outs, { instanceId: vm.id, rdns: "b.example.com" })).inputs).catch((e: unknown) => e);
    expect((ipError as Error).message).toMatch(/no longer exists \(deleted outside Pulumi, e\.g\. in the panel\): run `pulumi refresh`/);
    // the address may outlive its VM (deleted keeping it): how to keep it or release it
    expect((ipError as Error).message).toContain(`declare publicNetworkId: "${ip.id}" on the PublicIp of the new instance; else release it in the host's panel. Nothing was changed.`);
    expect(ipError).not.toBeInstanceOf(ResourceInitError);
  });
});

/** Polls until `condition` holds (what the simulator says), failing after 10 s instead of hanging. */
async function until(condition: () => Promise<boolean>): Promise<void> {
  for (const started = Date.now(); !(await condition()); ) {
    if (Date.now() - started > 10_000) throw new Error("condition not reached within 10 s");
    await new Promise((r) => setTimeout(r, 10));
  }
}

it("a stop cancelled in the panel while the update waits fails soon, saying so, instead of waiting out the deadline", async () => {
  const h = harness();
  const program = { ...validCreate, hostname: "cancel-stop", powerState: "running", timeouts: { update: "5m" } };
  const vm = await up<Outs>(instance, program);
  await h.setFaults({ stickNext: { kind: "stop", count: 1 } });
  const mark = h.mark();
  const started = Date.now();
  const updating = update(vm.id, vm.outs, { ...program, powerState: "stopped" }).catch((e: unknown) => e);
  // (the stop running: the simulator shows it stopping)
  await until(async () => h.operationsSince(mark).includes("stopInstance") && (await h.instance(vm.id))?.status !== "Running");
  // (and seen running by a status read of the update's wait)
  const seen = h.mark();
  await until(async () => h.operationsSince(seen).some((o) => o === "listInstances" || o === "getInstance"));
  await h.outOfBand(vm.id, { cancelOperation: true });
  const error = await updating;
  expect((error as Error).message).toMatch(/its operation ended, but the instance is not as asked \(status Running\): it was cancelled or changed outside Pulumi/);
  // (a bound far below the 5 minute deadline, not a timing assertion on the grace itself)
  expect(Date.now() - started).toBeLessThan(60_000);
  expect((error as ResourceInitError).properties).toMatchObject({ powerState: "running" });
});
