/**
 * An `up` killed after it asked the API for a public address, before the engine recorded the outcome: the engine keeps
 * the outputs from before (no address), and the API's add answers no uuid. The next run, on the same machine, takes the
 * address the VM then holds as the one it asked for (common/asked-addresses.ts), so destroy releases it; before, it was
 * taken for an address put on the VM out of band and left reserved in the account, billing, in no state (soak sweeps:
 * q7-94, m8-0, m8-128). A PublicIp's next create takes its address instead of asking for adoptId.
 *
 * The provider runs in its own process (the soak's stand-in for the dynamic-provider host, from dist/: `make test`
 * builds first) and is killed with SIGKILL, as a cancelled CLI leaves it; the simulator's state is the judge.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startSimulator, type RunningSimulator } from "../simulator";
import type * as Host from "../tools/soak/host";
import type { CreateAnswer, Props, UpdateAnswer } from "../tools/soak/protocol";

const hostPath = path.join(__dirname, "..", "dist", "tools", "soak", "host.js");
const PROVIDER = { __provider: "soak:serialized-provider" };

let sim: RunningSimulator;
let cacheDir: string;
let host: Host.ProviderHost;

beforeAll(async () => {
  if (!fs.existsSync(hostPath)) throw new Error(`${hostPath} is missing: run make build first`);
  // Operations of 1 s: the killed run is still waiting for its stop when it is killed.
  sim = await startSimulator({ opSeconds: 1 });
  cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), "vmhost-killed-add-"));
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { ProviderHost } = require(hostPath) as typeof Host;
  host = new ProviderHost(1, { cacheDir });
  await host.configure({ "vmhost:apiKey": sim.apiKey, "vmhost:baseUrl": sim.url });
});

afterAll(async () => {
  await host?.close();
  await sim?.close();
  fs.rmSync(cacheDir, { recursive: true, force: true });
});

interface SimAddress { uuid: string; instanceUuid: string | null; seeded: boolean }
async function addresses(): Promise<SimAddress[]> {
  return ((await (await fetch(`${sim.adminUrl}/state`)).json()) as { publicIps: SimAddress[] }).publicIps;
}

/** check then create, through the provider process. */
async function create(resource: "Instance" | "PublicIp", inputs: Props): Promise<CreateAnswer> {
  const checked = await host.call<{ inputs: Props }>({ method: "check", resource, olds: {}, news: { ...inputs, ...PROVIDER } });
  return host.call<CreateAnswer>({ method: "create", resource, properties: checked.inputs });
}

/** check then update. */
async function update(id: string, olds: Props, program: Props): Promise<UpdateAnswer> {
  const checked = await host.call<{ inputs: Props }>({ method: "check", resource: "Instance", olds, news: { ...program, ...PROVIDER } });
  return host.call<UpdateAnswer>({ method: "update", resource: "Instance", id, olds, news: checked.inputs });
}

/**
 * Runs `call` and kills the provider process once the simulator has done `operation` (answered 200); the call's outcome
 * is lost. What follows `operation` must take the provider a while (an operation of 1 s, a 429 pause).
 */
async function killedAfter(operation: string, call: () => Promise<unknown>, thenOneMore = false): Promise<void> {
  const mark = sim.requests().length;
  const abandoned = call().catch(() => undefined);
  const deadline = Date.now() + 30_000;
  const reached = (): boolean => {
    const after = sim.requests().slice(mark);
    const at = after.findIndex((r) => r.operation === operation && r.status === 200);
    // thenOneMore: until the provider sent its next request, so it has handled the answer (a loaded machine is slow)
    return at >= 0 && (!thenOneMore || after.length > at + 1);
  };
  while (!reached()) {
    if (Date.now() > deadline) throw new Error(`the provider never sent ${operation}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await host.kill();
  await abandoned;
}

const vm = { locationId: 1, tierId: 2, templateId: 1, cpu: 2, memory: 4, storage: 40, username: "ops", password: "Secr3t-pass!" };

it("Instance: publicIp true added by a killed up; the next up records the address as its own, and destroy releases it", async () => {
  const program = { ...vm, hostname: "killed-add" };
  const made = await create("Instance", program);
  const before = made.properties;
  expect(before.madePublicIpId).toBeNull();
  // publicIp and a stop in one update: the add is sent first, then the stop, which takes a second; killed at the stop
  const next = { ...program, publicIp: true, powerState: "stopped" };
  await killedAfter("stopInstance", () => update(made.id, before, next));
  const ours = (await addresses()).find((a) => a.instanceUuid === made.id)!;
  expect(ours).toBeDefined();

  // the next `up`: a fresh provider process, the engine's state from before the killed run
  const outs = (await update(made.id, before, next)).properties;
  expect(outs).toMatchObject({ publicIpId: ours.uuid, madePublicIpId: ours.uuid });
  await host.call({ method: "delete", resource: "Instance", id: made.id, properties: outs });
  expect((await addresses()).find((a) => a.uuid === ours.uuid)).toBeUndefined(); // left reserved in no state before
}, 60_000);

it("Instance: destroy right after the killed up (no up between) releases the address too", async () => {
  // publicIp false from the start: the Instance manages its address (none), so nothing else releases it with the VM
  const program = { ...vm, hostname: "killed-add-destroy", publicIp: false };
  const made = await create("Instance", program);
  await killedAfter("stopInstance", () => update(made.id, made.properties, { ...program, publicIp: true, powerState: "stopped" }));
  const ours = (await addresses()).find((a) => a.instanceUuid === made.id)!;
  expect(ours).toBeDefined();
  await host.call({ method: "delete", resource: "Instance", id: made.id, properties: made.properties }); // the state from before
  expect((await addresses()).find((a) => a.uuid === ours.uuid)).toBeUndefined();
}, 60_000);

it("PublicIp: a create killed after the add; the next up's create takes the address instead of refusing it as someone else's", async () => {
  const made = await create("Instance", { ...vm, hostname: "killed-publicip" });
  // the PublicIp's add, then its wait, which a host allowing one request a second holds for about a second: killed then
  sim.setFaults({ rateLimitPerSecond: 1 });
  await killedAfter("addPublicIp", () => create("PublicIp", { instanceId: made.id, rdns: "killed.example.com" }));
  sim.setFaults({ rateLimitPerSecond: null });
  const ours = (await addresses()).find((a) => a.instanceUuid === made.id)!;
  expect(ours).toBeDefined();
  const again = await create("PublicIp", { instanceId: made.id, rdns: "killed.example.com" });
  expect(again.id).toBe(ours.uuid);
  expect((await addresses()).filter((a) => a.instanceUuid === made.id)).toHaveLength(1);
}, 60_000);

it("PublicIp on a host whose detail names no IP beside the address's uuid: a create killed once the add answered; the next create takes the address", async () => {
  // (soak stop22c-71: refused as someone else's, adopted as advised, and left reserved in no state by destroy)
  const made = await create("Instance", { ...vm, hostname: "killed-pip-no-ip" });
  sim.setFaults({ rateLimitPerSecond: 1, wire: { nullFields: ["ip_address"] } });
  try {
    // killed once the add's answer was handled (its note names the address), while its reverse DNS is still to be set
    await killedAfter("addPublicIp", () => create("PublicIp", { instanceId: made.id, rdns: "killed.example.com" }), true);
    sim.setFaults({ rateLimitPerSecond: null });
    const ours = (await addresses()).find((a) => a.instanceUuid === made.id)!;
    expect(ours).toBeDefined();
    const again = await create("PublicIp", { instanceId: made.id, rdns: "killed.example.com" });
    expect(again.id).toBe(ours.uuid);
  } finally {
    sim.setFaults({ rateLimitPerSecond: null, wire: { nullFields: [] } });
  }
}, 60_000);

it("an address put on the VM in the panel, with no add of the provider's pending, is still never taken as the resource's", async () => {
  const program = { ...vm, hostname: "panel-address" };
  const made = await create("Instance", program);
  const users = (await addresses()).find((a) => a.seeded && a.instanceUuid === null)!;
  await fetch(`${sim.adminUrl}/instances/${made.id}`, { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify({ publicIp: users.uuid }) });
  const outs = (await update(made.id, made.properties, { ...program, publicIp: true })).properties;
  expect(outs).toMatchObject({ publicIpId: users.uuid, madePublicIpId: null });
  await host.call({ method: "delete", resource: "Instance", id: made.id, properties: outs });
  expect((await addresses()).find((a) => a.uuid === users.uuid)).toMatchObject({ instanceUuid: null }); // the user's, kept
}, 60_000);

async function panelSwap(vmId: string, address: string): Promise<void> {
  await fetch(`${sim.adminUrl}/instances/${vmId}`, { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify({ publicIp: address }) });
}

describe("a killed add, then your reserved address put on the VM in the panel: the note names the address the add answered, so yours is never taken", () => {
  it("Instance: the next up does not record it as its own, and destroy leaves it in your account", async () => {
    const program = { ...vm, hostname: "killed-then-panel", publicIp: false };
    const made = await create("Instance", program);
    const next = { ...program, publicIp: true, powerState: "stopped" };
    await killedAfter("stopInstance", () => update(made.id, made.properties, next));
    const users = (await addresses()).find((a) => a.seeded && a.instanceUuid === null)!;
    await panelSwap(made.id, users.uuid);
    const outs = (await update(made.id, made.properties, next)).properties;
    expect(outs).toMatchObject({ publicIpId: users.uuid, madePublicIpId: null }); // recorded as its own before
    await host.call({ method: "delete", resource: "Instance", id: made.id, properties: outs });
    expect((await addresses()).find((a) => a.uuid === users.uuid)).toMatchObject({ instanceUuid: null });
  }, 60_000);

  it("Instance: a refresh with the program reverted does not record it either", async () => {
    const program = { ...vm, hostname: "killed-reverted", publicIp: false };
    const made = await create("Instance", program);
    await killedAfter("stopInstance", () => update(made.id, made.properties, { ...program, publicIp: true, powerState: "stopped" }));
    const users = (await addresses()).find((a) => a.seeded && a.instanceUuid === null)!;
    await panelSwap(made.id, users.uuid);
    const read = await host.call<{ id: string; properties: Props }>({ method: "read", resource: "Instance", id: made.id, properties: made.properties });
    expect(read.properties).toMatchObject({ publicIpId: users.uuid, madePublicIpId: null });
    const outs = (await update(made.id, read.properties, program)).properties;
    await host.call({ method: "delete", resource: "Instance", id: made.id, properties: outs });
    expect((await addresses()).find((a) => a.uuid === users.uuid)).toMatchObject({ instanceUuid: null });
  }, 60_000);

  it("PublicIp: the next create refuses it, asking for adoptId, instead of taking it as an address the API made", async () => {
    const made = await create("Instance", { ...vm, hostname: "killed-pip-panel" });
    sim.setFaults({ rateLimitPerSecond: 1 });
    // killed once the add's answer was handled (its note names the address): a kill before that is the one case a
    // note cannot tell (README)
    await killedAfter("addPublicIp", () => create("PublicIp", { instanceId: made.id }), true);
    sim.setFaults({ rateLimitPerSecond: null });
    const users = (await addresses()).find((a) => a.seeded && a.instanceUuid === null)!;
    await panelSwap(made.id, users.uuid);
    const refused = await create("PublicIp", { instanceId: made.id }).then(() => undefined, (e: unknown) => e as Error);
    expect(refused?.message).toContain(`To manage that address set adoptId: "${users.uuid}"`);
  }, 60_000);
});
