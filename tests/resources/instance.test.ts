/**
 * The Instance provider against the simulator (small operation delays): check, create / clone / adopt,
 * every update kind, power, delete options, drift, and the failure rules. Provider methods are called
 * directly, as the dynamic-provider host would; results are verified in the simulator's own state.
 */
import "./instance-env";
import { startSimulator, type RunningSimulator } from "../../simulator";
import { providers } from "../../provider";
import { createClient } from "../../provider/api";
import { getClient, resetContext, setProgressSink } from "../../provider/context";
import { ResourceInitError } from "../../provider/resources/common/errors";
import { forgetAdoptions } from "../../provider/resources/common/adoptions";
import { replacementsInProgress } from "../../provider/resources/common/replacements";
import { deploymentActivity } from "../../provider/resources/common/activity";
import { Deadline } from "../../provider/wait/poll";
import { forgetDeployment } from "../../provider/registry";
import type { InstanceInputs, InstanceOutputs } from "../../provider/resources/instance/inputs";
import { badInputs, validCreate } from "./instance-cases";
import { until } from "./attachment-helpers";

type Provider = Required<import("@pulumi/pulumi").dynamic.ResourceProvider>;
const provider = (): Provider => providers.Instance as Provider;

let sim: RunningSimulator;
const progress: string[] = [];

interface SimInstance {
  uuid: string;
  hostname: string;
  cpu: number;
  memoryGb: number;
  storageGb: number;
  dedicatedCpu: boolean;
  tierId: number;
  templateId: number;
  status: string;
  password: string;
  vswitchUuid: string | null;
  publicIpUuid: string | null;
  publicIpAddress: string | null;
  clonedFrom: string | null;
  operationFlag: number;
  sshKeys: string[];
  includeBackup: boolean;
}
interface SimState {
  instances: SimInstance[];
  publicIps: { uuid: string; address: string; locationId: number; instanceUuid: string | null; seeded: boolean }[];
  vswitches: { uuid: string; name: string; locationId: number }[];
  blockStorages: { uuid: string; name: string; locationId: number; instanceUuid: string | null }[];
}

async function admin<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${sim.adminUrl}${path}`, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as T;
  if (!res.ok) throw new Error(`admin ${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}
const simState = () => admin<SimState>("GET", "/state");
const simInstance = async (uuid: string) => (await simState()).instances.find((i) => i.uuid === uuid);
const outOfBand = (uuid: string, patch: Record<string, unknown>) => admin("PATCH", `/instances/${uuid}`, patch);

/** check + create, as the engine does. */
async function up(inputs: Record<string, unknown>): Promise<{ id: string; outs: InstanceOutputs; inputs: InstanceInputs }> {
  const checked = await provider().check({}, inputs);
  expect(checked.failures ?? []).toEqual([]);
  const created = await provider().create(checked.inputs);
  return { id: created.id, outs: created.outs as InstanceOutputs, inputs: checked.inputs as InstanceInputs };
}

/** check + diff + update, as the engine does; the diff must propose an update (not a replace). */
async function change(id: string, olds: InstanceOutputs, inputs: Record<string, unknown>): Promise<InstanceOutputs> {
  const checked = await provider().check(olds, inputs);
  expect(checked.failures ?? []).toEqual([]);
  const d = await provider().diff(id, olds, checked.inputs);
  expect(d).toMatchObject({ changes: true, replaces: [] });
  return (await provider().update(id, olds, checked.inputs)).outs as InstanceOutputs;
}

const requestCount = () => sim.requests().length;

const opsSince = (n: number) => sim.requests().slice(n).map((r) => r.operation);

let vs: SimState["vswitches"];
let reservedIps: SimState["publicIps"];

beforeAll(async () => {
  sim = await startSimulator({ opSeconds: 0.05 });
  process.env.VMHOST_API_KEY = sim.apiKey;
  process.env.VMHOST_BASE_URL = sim.url;
  resetContext();
  setProgressSink((line) => progress.push(line));
  const s = await simState();
  vs = s.vswitches.filter((v) => v.locationId === 1);
  reservedIps = s.publicIps.filter((p) => p.locationId === 1 && p.seeded);
});
afterAll(async () => {
  await sim?.close();
});
afterEach(async () => {
  await admin("DELETE", "/faults");
});

describe("check", () => {
  it.each(badInputs)("refuses %s before any API call", async (_what, inputs, property) => {
    const before = requestCount();
    const r = await provider().check({}, inputs);
    expect(r.failures?.map((f) => f.property || f.reason.split(/[ :]/)[0])).toContain(property);
    expect(requestCount()).toBe(before);
  });
});

describe("create, clone, adopt", () => {
  it("creates a VM, waits until it settled, and a read right after shows no change", async () => {
    const before = requestCount();
    const { id, outs, inputs } = await up({ ...validCreate, hostname: "create-1", publicIp: true, vswitchId: vs[0]!.uuid, powerState: "running", sshKeys: ["ssh-ed25519 AAAAC3Nz me@laptop"], backups: true });
    const vm = await simInstance(id);
    expect(vm).toMatchObject({ hostname: "create-1", cpu: 2, memoryGb: 4, storageGb: 40, status: "Running", operationFlag: 0, vswitchUuid: vs[0]!.uuid });
    // write-only at the API (never shown on a VM): what only the create request can carry
    expect(vm).toMatchObject({ sshKeys: ["ssh-ed25519 AAAAC3Nz me@laptop"], includeBackup: true });
    expect(vm!.publicIpAddress).not.toBeNull();
    // Everything declared comes with the create request: after it only the status list ticks, one detail read
    // and one network listing for the outputs (no password set again, no address or network change).
    const ops = opsSince(before);
    expect(ops.slice(ops.indexOf("createInstance") + 1).filter((o) => o !== "listInstances")).toEqual(["getInstance", "listVswitches"]);
    expect(outs).toMatchObject({ hostname: "create-1", status: "Running", publicIp: true, vswitchId: vs[0]!.uuid, powerState: "running", ipAddress: vm!.publicIpAddress, password: validCreate.password, privateNetwork: vs[0]!.name });
    const read = await provider().read(id, outs);
    expect(read.id).toBe(id);
    expect(read.props).toEqual(outs);
    // no inputs: Pulumi keeps the program's inputs of the last up
    expect(read.inputs).toBeUndefined();
    expect(await provider().diff(id, read.props as InstanceOutputs, inputs)).toMatchObject({ changes: false });
  });

  it("creates a VM on a reserved address named at create, in the create request itself", async () => {
    const free = (await simState()).publicIps.find((p) => p.locationId === 1 && p.seeded && p.instanceUuid === null)!;
    const before = requestCount();
    const { id, outs } = await up({ ...validCreate, hostname: "create-on-reserved", publicNetworkId: free.uuid });
    expect((await simInstance(id))!.publicIpUuid).toBe(free.uuid);
    expect(outs).toMatchObject({ publicNetworkId: free.uuid, ipAddress: free.address });
    expect(opsSince(before).filter((o) => ["addPublicIp", "changePublicIp"].includes(o ?? ""))).toEqual([]);
    // the address goes back to the account's reserve (later cases use it)
    await provider().delete(id, { ...outs, deleteOptions: { removePublicIp: false, removeBlockStorage: false } });
    expect((await simState()).publicIps.find((p) => p.uuid === free.uuid)).toMatchObject({ instanceUuid: null });
  });

  it("a replacement keeping its reserved address (publicNetworkId) gets it from the old VM, which the engine deletes after", async () => {
    const free = (await simState()).publicIps.find((p) => p.locationId === 1 && p.seeded && p.instanceUuid === null)!;
    const old = await up({ ...validCreate, hostname: "replace-pinned", publicNetworkId: free.uuid });
    const news = (await provider().check(old.outs, { ...validCreate, hostname: "replace-pinned", publicNetworkId: free.uuid, templateId: 2 })).inputs;
    // the registered provider's diff, as the engine calls it: a replace, create-before-delete (the old VM noted)
    expect(await providers.Instance.diff!(old.id, old.outs, news)).toMatchObject({ replaces: ["templateId"], deleteBeforeReplace: false });
    const replacement = await provider().create(news);
    expect((await simInstance(replacement.id))!.publicIpUuid).toBe(free.uuid);
    // (it names the VM it replaces: a later deployment, if this up fails before the old VM's delete, still knows it)
    expect(replacement.outs).toMatchObject({ replacing: old.id });
    expect((await simInstance(old.id))!.publicIpUuid).toBeNull();
    expect(progress.join("\n")).toContain(`address ${free.uuid} is held by instance ${old.id}, which this up replaces`);
    await provider().delete(old.id, old.outs); // the engine's delete of the old VM, last: the address stays with the new one
    expect((await simInstance(replacement.id))!.publicIpUuid).toBe(free.uuid);
    await provider().delete(replacement.id, { ...replacement.outs, deleteOptions: { removePublicIp: false, removeBlockStorage: false } });
  });

  it("delete never takes back a pinned reserved address the VM no longer holds (it moved on: releasing it would lose it)", async () => {
    const free = (await simState()).publicIps.find((p) => p.locationId === 1 && p.seeded && p.instanceUuid === null)!;
    const vm = await up({ ...validCreate, hostname: "pinned-moved-on", publicNetworkId: free.uuid });
    await outOfBand(vm.id, { publicIp: false }); // moved on (to a replacement, or in the panel): reserved again
    await provider().delete(vm.id, vm.outs); // default deleteOptions: removePublicIp true
    expect(await simInstance(vm.id)).toBeUndefined();
    expect((await simState()).publicIps.find((p) => p.uuid === free.uuid)).toMatchObject({ instanceUuid: null });
  });

  it("a replacement recorded half-way names the VM it replaces too, so a later deployment's diff knows it is still being replaced", async () => {
    const old = await up({ ...validCreate, hostname: "replace-halfway" });
    const news = { ...old.inputs, templateId: 2 } as InstanceInputs;
    expect(await providers.Instance.diff!(old.id, old.outs, news)).toMatchObject({ replaces: ["templateId"] });
    // (the VM made, then failed: a create timeout of 1 ms no longer gets as far as sending the create, 8b2e124)
    await admin("POST", "/faults", { failNext: { kind: "create" } });
    const init = (await provider().create(news).then(() => undefined, (e: unknown) => e)) as ResourceInitError;
    expect(init).toBeInstanceOf(ResourceInitError);
    expect(init.properties).toMatchObject({ replacing: old.id });
    // a new provider process (the next up): only the recorded outputs tell
    replacementsInProgress.clear();
    await providers.Instance.diff!(init.id, init.properties, news);
    expect(replacementsInProgress.isBeingReplaced("Instance:1/replace-halfway", old.id)).toBe(true);
  });

  it("a replacement recorded half-way takes its newly pinned address off the old VM at a later up, which nothing else in that up frees", async () => {
    // soak-145: the engine deletes the old VM only at the end of an up that succeeds (step_generator.go
    // GenerateDeletes), so while it held the address the replacement's update pinned, that update was refused at
    // every up ("already assigned to another instance"): stuck. A lone resource: no other activity to wait for.
    const [kept, pinnedLater] = (await simState()).publicIps.filter((p) => p.locationId === 1 && p.seeded && p.instanceUuid === null);
    const old = await up({ ...validCreate, hostname: "replace-halfway-pin", publicNetworkId: pinnedLater.uuid });
    const news = { ...old.inputs, templateId: 2, publicNetworkId: kept.uuid } as InstanceInputs;
    expect(await providers.Instance.diff!(old.id, old.outs, news)).toMatchObject({ replaces: ["templateId"] });
    await admin("POST", "/faults", { failNext: { kind: "create" } });
    const init = (await provider().create(news).then(() => undefined, (e: unknown) => e)) as ResourceInitError;
    expect(init).toBeInstanceOf(ResourceInitError);
    expect((await simInstance(old.id))!.publicIpUuid).toBe(pinnedLater.uuid); // the old VM, pending deletion, holds it
    // the next up (a new process) pins on the replacement the address the old VM holds
    forgetDeployment();
    const later = { ...news, publicNetworkId: pinnedLater.uuid } as InstanceInputs;
    expect((await providers.Instance.diff!(init.id, init.properties, later)).replaces ?? []).toEqual([]);
    // the engine's Diff was a while ago (the update's earlier steps took longer than the quiet pause): nothing else runs
    await deploymentActivity.waitForOthers(new Deadline(60_000, Date.now), false);
    const updated = await provider().update(init.id, init.properties, later);
    expect((await simInstance(init.id))!.publicIpUuid).toBe(pinnedLater.uuid);
    expect(updated.outs).toMatchObject({ publicNetworkId: pinnedLater.uuid, replacing: old.id });
    expect((await simInstance(old.id))!.publicIpUuid).toBeNull();
    expect((await simState()).publicIps.find((p) => p.uuid === kept.uuid)?.instanceUuid).toBeNull(); // back in the account
    await provider().delete(old.id, old.outs); // the engine's delete of the old VM at the end of that up
    expect((await simInstance(init.id))!.publicIpUuid).toBe(pinnedLater.uuid);
    await provider().delete(init.id, { ...updated.outs, deleteOptions: { removePublicIp: false, removeBlockStorage: false } });
  });

  it("a resource diffed after another one recorded the adoption of its VM (it waits for something unseen) is refused, naming pulumi state delete", async () => {
    const managed = await up({ ...validCreate, hostname: "adopted-first" });
    forgetDeployment(); // the next deployment: nothing diffed yet
    const adopter = (await provider().check({}, { ...validCreate, hostname: "adopted-first", adoptId: managed.id })).inputs;
    expect((await provider().create(adopter)).id).toBe(managed.id); // the managing resource was not diffed yet
    const error = (await provider().diff(managed.id, managed.outs, managed.inputs).then(() => undefined, (e: unknown) => e)) as Error;
    expect(error.message).toContain(`Instance ${managed.id} belongs to this resource, and another resource of this stack adopts it in this up`);
    expect(error.message).toContain("`pulumi state delete <its urn>`");
    forgetDeployment();
    await provider().delete(managed.id, managed.outs);
  });

  it("a second replacement names the VM it replaces now, not the one the first replacement replaced", async () => {
    const first = await up({ ...validCreate, hostname: "replaced-twice" });
    const once = { ...first.inputs, username: "deploy2" } as InstanceInputs;
    expect(await providers.Instance.diff!(first.id, first.outs, once)).toMatchObject({ replaces: ["username"] });
    const n1 = await provider().create(once);
    expect(n1.outs).toMatchObject({ replacing: first.id });
    await provider().delete(first.id, first.outs); // the engine's delete of the old VM, at the end of that up
    forgetDeployment();
    const twice = { ...once, username: "deploy3" } as InstanceInputs;
    expect(await providers.Instance.diff!(n1.id, n1.outs, twice)).toMatchObject({ replaces: ["username"] });
    const n2 = await provider().create(twice);
    // audit: it named the first old VM (carried in n1's outputs), so the pinned-address move and a later up's look
    // for what is still replaced followed a VM long gone
    expect(n2.outs).toMatchObject({ replacing: n1.id });
    await provider().delete(n1.id, n1.outs);
    await provider().delete(n2.id, n2.outs);
  });

  it("a third replacement after two ups that failed before their deletes stands beside both old VMs still waiting for theirs", async () => {
    // (the family of soak stop17c-466, whose own case, a rename, stays a documented limit) each failed up leaves its
    // old VM for the engine to delete at the end of an up without errors (pulumi/pulumi
    // pkg/resource/deploy/step_generator.go GenerateDeletes); the second replacement named only the VM it replaced,
    // so the third's create met the first old VM as a stranger and was refused at every up
    const first = await up({ ...validCreate, hostname: "replaced-thrice" });
    const replaceWith = async (last: { id: string; outs?: Record<string, unknown> }, username: string) => {
      forgetDeployment(); // each up: a new provider process, which refreshes first (`pulumi up --refresh`)
      const olds = (await provider().read(last.id, last.outs as InstanceOutputs)).props as InstanceOutputs;
      const news = (await provider().check(olds, { ...first.inputs, username })).inputs as InstanceInputs;
      expect(await providers.Instance.diff!(last.id, olds, news)).toMatchObject({ replaces: ["username"] });
      return provider().create(news); // the up then fails for another resource: the old VM is not deleted
    };
    const second = await replaceWith(first, "deploy2");
    const third = await replaceWith(second, "deploy3");
    expect(third.outs).toMatchObject({ replacing: second.id });
    const fourth = await replaceWith(third, "deploy4");
    expect(fourth.outs).toMatchObject({ replacing: third.id });
    expect((await simState()).instances.filter((i) => i.hostname === "replaced-thrice").map((i) => i.uuid).sort())
      .toEqual([first.id, second.id, third.id, fourth.id].sort());
    for (const vm of [first, second, third, fourth]) await provider().delete(vm.id, vm.outs as InstanceOutputs);
  });

  it("a replacement whose create stayed unconfirmed names the VM it replaces, so the next up's create stands beside it", async () => {
    const old = await up({ ...validCreate, hostname: "replace-unconfirmed" });
    const program = { ...old.inputs, username: "deploy2" }; // replace-forcing, same hostname: create-before-delete
    const news = (await provider().check(old.outs, { ...program, timeouts: { create: "1s" } })).inputs as InstanceInputs;
    expect(await providers.Instance.diff!(old.id, old.outs, news)).toMatchObject({ replaces: ["username"] });
    // the create's answer is lost and every listing fails until the deadline: recorded as unconfirmed
    sim.setFaults({ resetNext: { operation: "createInstance", count: 1, afterProcessing: false } });
    sim.setFaults({ resetNext: { operation: "listInstances", skip: 1, count: 100_000 } });
    const init = (await provider().create(news).then(() => undefined, (e: unknown) => e)) as ResourceInitError;
    await admin("DELETE", "/faults");
    expect(init).toBeInstanceOf(ResourceInitError);
    expect(init.id).toMatch(/^unconfirmed-/);
    expect(init.properties).toMatchObject({ replacing: old.id });
    // the next up, a new provider process: the placeholder is replaced (deleted first: nothing was made), then created;
    // the old VM still waits for its delete at the end of the up (soak: refused as a stranger at every run)
    forgetDeployment();
    const again = (await provider().check(init.properties, program)).inputs as InstanceInputs;
    expect(await providers.Instance.diff!(init.id, init.properties, again)).toMatchObject({ replaces: ["unconfirmedCreate"] });
    await provider().delete(init.id, init.properties);
    const created = await provider().create(again);
    expect(created.id).not.toBe(old.id);
    expect(created.outs).toMatchObject({ replacing: old.id });
    await provider().delete(old.id, old.outs);
  });

  it("a replacement that adopts (adoptId set on it after an interrupted create, as the refusal advises) names the VM it replaces too", async () => {
    const old = await up({ ...validCreate, hostname: "replace-adopting" });
    // what the interrupted create of the replacement made
    const made = await admin<{ data: { uuid: string } }>("POST", "/instances", {
      hostname: "replace-adopting", username: validCreate.username, tierId: validCreate.tierId, templateId: validCreate.templateId, cpu: validCreate.cpu, memory: validCreate.memory, storage: validCreate.storage,
    });
    const news = { ...old.inputs, sshKeys: ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAreplace user@ci"], adoptId: made.data.uuid } as InstanceInputs;
    expect(await providers.Instance.diff!(old.id, old.outs, news)).toMatchObject({ replaces: expect.arrayContaining(["sshKeys"]) });
    const adopted = await provider().create(news);
    expect(adopted.id).toBe(made.data.uuid);
    expect(adopted.outs).toMatchObject({ replacing: old.id });
    replacementsInProgress.clear(); // the next deployment
    forgetAdoptions();
    await providers.Instance.diff!(adopted.id, adopted.outs, news);
    expect(replacementsInProgress.isBeingReplaced("Instance:1/replace-adopting", old.id)).toBe(true);
  });

  it("a replacement that takes the reserved address and then fails with no VM made puts it back on the old VM", async () => {
    const free = (await simState()).publicIps.find((p) => p.locationId === 1 && p.seeded && p.instanceUuid === null)!;
    const old = await up({ ...validCreate, hostname: "replace-pinned-fails", publicNetworkId: free.uuid });
    // a replacement the create refuses after the address was taken (below the template's minimum: check, which
    // would say so at preview, is skipped here)
    const news = { ...old.inputs, templateId: 2, storage: 1 };
    expect(await providers.Instance.diff!(old.id, old.outs, news)).toMatchObject({ replaces: ["templateId"] });
    await expect(provider().create(news)).rejects.toThrow(/storage: template 2 needs at least/);
    expect((await simInstance(old.id))!.publicIpUuid).toBe(free.uuid);
    expect(progress.join("\n")).toContain(`address ${free.uuid} is back on instance ${old.id}`);
    await provider().delete(old.id, { ...old.outs, deleteOptions: { removePublicIp: false, removeBlockStorage: false } });
  });

  it("creates a VM with dedicated CPU in the create request itself, not by a resize after it", async () => {
    const before = requestCount();
    const { id, outs } = await up({ ...validCreate, hostname: "create-dedicated", tierId: 3, dedicatedCpu: true });
    expect((await simInstance(id))!.dedicatedCpu).toBe(true);
    expect(outs).toMatchObject({ dedicatedCpu: true });
    expect(opsSince(before)).not.toContain("resizeInstance");
    // no private network declared: the outputs need no network listing
    const ops = opsSince(before);
    expect(ops.slice(ops.indexOf("createInstance"))).not.toContain("listVswitches");
  });

  it("refuses storage below the template minimum at check (preview), before creating anything", async () => {
    const before = requestCount();
    const checked = await provider().check({}, { ...validCreate, hostname: "too-small", templateId: 4, cpu: 2, memory: 4, storage: 30 });
    expect(checked.failures).toEqual([{ property: "storage", reason: expect.stringMatching(/^Windows Server 2022 \(template 4\) needs at least 40 GB/) }]);
    expect(opsSince(before)).not.toContain("createInstance");
  });

  it("still refuses storage below the template minimum at create when check was skipped", async () => {
    const before = requestCount();
    const inputs = { ...validCreate, hostname: "too-small", templateId: 4, cpu: 2, memory: 4, storage: 30, dedicatedCpu: false, deleteOptions: { removePublicIp: true, removeBlockStorage: false } };
    await expect(provider().create(inputs)).rejects.toThrow(/storage: template 4 needs at least 40 GB/);
    await expect(provider().create({ ...inputs, cpu: 1, storage: 40 })).rejects.toThrow(
      new Error("cpu: template 4 needs at least 2 CPU; raise cpu to 2 or more"),
    );
    expect(opsSince(before)).not.toContain("createInstance");
  });

  it("creates a stopped VM when powerState is stopped", async () => {
    const { id, outs } = await up({ ...validCreate, hostname: "create-stopped", powerState: "stopped" });
    expect((await simInstance(id))!.status).toBe("Stopped");
    expect(outs.powerState).toBe("stopped");
  });

  it("clones a VM, then applies the declared sizes and password", async () => {
    const source = await up({ ...validCreate, hostname: "clone-src" });
    // storage as the source's (40 GB): allowed, a clone's disk may stay as it is
    const { id, outs } = await up({ cloneFrom: source.id, hostname: "clone-1", locationId: 1, tierId: 2, cpu: 4, storage: 40, password: "Green-Cat-77" });
    const vm = await simInstance(id);
    expect(vm).toMatchObject({ clonedFrom: source.id, hostname: "clone-1", cpu: 4, password: "Green-Cat-77", status: "Running" });
    expect(outs).toMatchObject({ cloneFrom: source.id, cpu: 4, memory: 4, storage: 40, templateId: 1 });
    const read = await provider().read(id, outs);
    expect(read.props).toEqual(outs);
    // a clone's state holds values the program never declared (templateId, username): Pulumi keeps its inputs
    expect(read.inputs).toBeUndefined();
    const program = (await provider().check(outs, { cloneFrom: source.id, hostname: "clone-1", locationId: 1, tierId: 2, cpu: 4, storage: 40, password: "Green-Cat-77" })).inputs;
    expect(await provider().diff(id, read.props, program)).toMatchObject({ changes: false });
  });

  it("refuses a clone smaller than its source before cloning", async () => {
    const source = await up({ ...validCreate, hostname: "clone-src-2", storage: 60 });
    const before = requestCount();
    const small = { cloneFrom: source.id, hostname: "clone-small", locationId: 1, tierId: 2, storage: 40 };
    // at preview (check reads the source), and at create when check was skipped
    expect((await provider().check({}, small)).failures).toEqual([{ property: "storage", reason: expect.stringMatching(/^a clone starts with its source's 60 GB disk/) }]);
    await expect(provider().create(small)).rejects.toThrow(/storage: a clone starts with its source's 60 GB disk/);
    expect(opsSince(before)).not.toContain("cloneInstance");
  });

  it("waits for a busy source to be idle before cloning it (the API refuses to clone a busy VM)", async () => {
    const source = await up({ ...validCreate, hostname: "clone-busy-src" });
    await admin("POST", "/faults", { stickNext: { kind: "stop" } });
    await createClient({ baseUrl: sim.url, apiKey: sim.apiKey }).instances.stop(source.id);
    const before = requestCount();
    const cloning = up({ cloneFrom: source.id, hostname: "clone-busy", locationId: 1, tierId: 2 });
    // the provider keeps polling the busy source (through the shared status list) and sends nothing yet
    await until(() => sim.requests().slice(before).filter((r) => r.operation === "listInstances" && !r.path.includes("search=")).length >= 3);
    expect(opsSince(before)).not.toContain("cloneInstance");
    await admin("POST", `/instances/${source.id}/finish-operation`, {});
    const { id } = await cloning;
    expect(opsSince(before).filter((o) => o === "cloneInstance")).toHaveLength(1);
    expect(await simInstance(id)).toMatchObject({ clonedFrom: source.id, status: "Running" });
  });

  it("a clone of a source that stays busy fails at its deadline, naming the wait for the source", async () => {
    const source = await up({ ...validCreate, hostname: "clone-stuck-src" });
    await admin("POST", "/faults", { stickNext: { kind: "stop" } });
    await createClient({ baseUrl: sim.url, apiKey: sim.apiKey }).instances.stop(source.id);
    const before = requestCount();
    await expect(up({ cloneFrom: source.id, hostname: "clone-late", locationId: 1, tierId: 2, timeouts: { create: "1s" } })).rejects.toThrow(
      new RegExp(`^timed out after .* waiting for instance ${source.id} to be cloned as clone-late: instance ${source.id} to be idle`),
    );
    expect(opsSince(before)).not.toContain("cloneInstance");
    await admin("POST", `/instances/${source.id}/finish-operation`, {});
  });

  it("adopts an existing VM without creating one or changing it", async () => {
    const existing = await up({ ...validCreate, hostname: "adopt-me" });
    const before = requestCount();
    const { id, outs } = await up({ adoptId: existing.id, hostname: "adopt-me", cpu: 2 });
    expect(id).toBe(existing.id);
    expect(opsSince(before).filter((o) => o !== "getInstance" && o !== "listInstances" && o !== "listVswitches")).toEqual([]);
    expect(outs).toMatchObject({ adoptId: existing.id, hostname: "adopt-me", cpu: 2, memory: 4 });
    forgetAdoptions(); // the next preview: a new provider process
    expect(await provider().diff(id, outs, { adoptId: existing.id, hostname: "adopt-me", cpu: 2, deleteOptions: outs.deleteOptions })).toMatchObject({ changes: false });
  });

  it("adopting makes the VM as declared in the same up (size, address, power, password), so the next preview shows no change", async () => {
    const existing = await up({ ...validCreate, hostname: "adopt-converge" });
    await outOfBand(existing.id, { powerState: "stopped" });
    const declared = { adoptId: existing.id, hostname: "adopt-converge", cpu: 4, publicIp: true, powerState: "running", password: "Adopted-Passw0rd" };
    const { id, outs, inputs } = await up(declared);
    expect(id).toBe(existing.id);
    // (the password is write-only: whether the VM had it cannot be seen, so a declared one is set)
    expect(await simInstance(id)).toMatchObject({ cpu: 4, status: "Running", publicIpUuid: expect.any(String), password: "Adopted-Passw0rd" });
    expect(outs).toMatchObject({ cpu: 4, powerState: "running", publicIp: true });
    // said at preview already (check: the engine shows the adoption as a create only), and again when done
    expect(progress.join("\n")).toContain(`adopting instance ${id} also makes it as declared: instance ${id} to resize to 4 CPU`);
    expect(progress.join("\n")).toMatch(new RegExp(`adopting instance ${id}: making it as declared`));
    forgetAdoptions(); // the next preview: a new provider process
    expect(await provider().diff(id, outs, inputs)).toMatchObject({ changes: false });
    await provider().delete(id, outs);
  });

  it("refuses to adopt a VM whose disk is larger than declared (adopting resizes, disks cannot shrink), before any change", async () => {
    const existing = await up({ ...validCreate, hostname: "adopt-bigdisk", storage: 60 });
    const inputs = { adoptId: existing.id, storage: 40 };
    expect((await provider().check({}, inputs)).failures).toEqual([
      { property: "adoptId", reason: expect.stringMatching(/storage: the VM's disk is 60 GB and disks cannot shrink/) },
    ]);
    const before = requestCount();
    await expect(provider().create({ ...inputs, deleteOptions: { removePublicIp: true, removeBlockStorage: false } })).rejects.toThrow(/cannot adopt instance .*storage: the VM's disk is 60 GB/);
    expect(opsSince(before).filter((o) => o !== "getInstance")).toEqual([]);
    expect(await simInstance(existing.id)).toMatchObject({ storageGb: 60 });
    forgetAdoptions(); // `pulumi destroy`: a later deployment (in this one, the failed adoption keeps the VM)
    await provider().delete(existing.id, existing.outs);
  });

  it("adopts a VM left in Error, recorded (to repair or delete it under Pulumi), but the up fails saying so", async () => {
    const broken = await up({ ...validCreate, hostname: "adopt-broken" });
    await outOfBand(broken.id, { status: "Error" });
    const checked = (await provider().check({}, { adoptId: broken.id, password: "Adopted-Broken-1" })).inputs as InstanceInputs;
    const failure = await provider().create(checked).then(() => undefined, (e: unknown) => e);
    expect(failure).toBeInstanceOf(ResourceInitError);
    const { id, properties, message } = failure as ResourceInitError;
    expect(message).toMatch(/was adopted, but it is in status Error: it is recorded in the stack, and `pulumi up` again starts it/);
    expect(id).toBe(broken.id);
    const outs = properties as unknown as InstanceOutputs;
    expect(outs.status).toBe("Error");
    // the declared password was not set yet: not recorded as if it were (the next up would never set it)
    expect(outs.password).toBeUndefined();
    // the next up (init errors force an update; after a refresh the diff asks for it) repairs it
    forgetAdoptions();
    expect(await provider().diff(id, outs, checked)).toMatchObject({ changes: true });
    const repaired = (await provider().update(id, outs, checked)).outs as InstanceOutputs;
    expect(repaired.status).toBe("Running");
    expect(await simInstance(id)).toMatchObject({ status: "Running", password: "Adopted-Broken-1" });
    forgetAdoptions(); // `pulumi destroy`: a later deployment (a new provider process)
    await provider().delete(id, repaired);
    expect(await simInstance(id)).toBeUndefined();
  });

  it("a deployment never deletes a VM it adopted: the old half of `up --replace` (no Diff asked) or of a rename is kept, saying why", async () => {
    const existing = await up({ ...validCreate, hostname: "adopt-replaced" });
    forgetAdoptions(); // the up that adopted it was an earlier deployment
    const adopted = await up({ adoptId: existing.id });
    // `pulumi up --replace <urn>`: the engine creates the replacement (which adopts the same VM again), then deletes the old
    forgetAdoptions();
    const replacement = await up({ adoptId: existing.id });
    expect(replacement.id).toBe(existing.id);
    await provider().delete(existing.id, adopted.outs);
    expect(await simInstance(existing.id)).toBeDefined();
    expect(progress.join("\n")).toContain(`Instance ${existing.id} is not deleted: a resource of this deployment adopted it (adoptId)`);
    // `pulumi destroy`, a later deployment, deletes it
    forgetAdoptions();
    await provider().delete(existing.id, replacement.outs);
    expect(await simInstance(existing.id)).toBeUndefined();
  });

  it("with deleteBeforeReplace the old half of `up --replace` of an adopted VM is deleted before the create: check's note keeps it", async () => {
    const existing = await up({ ...validCreate, hostname: "adopt-dbr" });
    forgetAdoptions(); // adopted in an earlier deployment
    const adopted = await up({ adoptId: existing.id });
    forgetAdoptions(); // `pulumi up --replace <urn>` with deleteBeforeReplace: a new deployment...
    // ...whose Check of the resource runs when it registers, then the delete, then the create (step_generator.go)
    const checked = await provider().check({}, { adoptId: existing.id.toUpperCase() });
    expect(checked.failures ?? []).toEqual([]);
    await provider().delete(existing.id, adopted.outs);
    expect(await simInstance(existing.id)).toBeDefined();
    const again = await provider().create(checked.inputs);
    expect(again.id).toBe(existing.id);
    forgetAdoptions();
    await provider().delete(existing.id, again.outs as InstanceOutputs);
    expect(await simInstance(existing.id)).toBeUndefined();
  });

  it("refuses to adopt a VM another resource of this stack manages (its diff named it), before any change", async () => {
    const first = await up({ ...validCreate, hostname: "owned-by-first" });
    // the engine diffs the existing resource first (it is declared first), then creates the one that adopts
    await providers.Instance.diff!(first.id, first.outs, first.inputs);
    const before = requestCount();
    const checked = (await provider().check({}, { adoptId: first.id, hostname: "second-owner", password: "Second-Owner-1" })).inputs;
    await expect(provider().create(checked)).rejects.toThrow(
      `adoptId: Instance ${first.id} belongs to another resource of this stack; two resources would own one object, and removing either would delete it`,
    );
    expect(opsSince(before).filter((o) => !/^(get|list)/.test(o ?? ""))).toEqual([]);
    expect(await simInstance(first.id)).toMatchObject({ hostname: "owned-by-first" });
    // the same resource adopting its own VM again (the engine's own replace of an adopted VM, `up --replace`: no
    // Diff asked in that deployment) is not refused
    forgetAdoptions();
    const adopted = await provider().create((await provider().check({}, { adoptId: first.id })).inputs);
    forgetAdoptions();
    expect((await provider().create((await provider().check({}, { adoptId: first.id })).inputs)).id).toBe(first.id);
    forgetAdoptions();
    await provider().delete(first.id, adopted.outs);
  });

  it("at preview, an adopted VM whose replace-forcing input is still unknown (another resource's output) is not refused", async () => {
    const existing = await up({ ...validCreate, hostname: "adopt-unknown-later" });
    forgetAdoptions();
    const adopted = await up({ adoptId: existing.id, locationId: 1 });
    forgetAdoptions(); // the next preview: a new provider process
    const unknown = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
    const news = { ...adopted.inputs, locationId: unknown, password: "Changed-Passw0rd-1" } as unknown as InstanceInputs;
    expect(await providers.Instance.diff!(existing.id, adopted.outs, news)).toMatchObject({ changes: true, replaces: [] });
    // known, and not the VM's: refused as before
    await expect(providers.Instance.diff!(existing.id, adopted.outs, { ...news, locationId: 2 })).rejects.toThrow(/was adopted \(adoptId\) and locationId/);
    forgetAdoptions();
    await provider().delete(existing.id, adopted.outs);
  });

  it("refuses to adopt an instance that does not exist: at preview (check), and at create when check was skipped", async () => {
    const checked = await provider().check({}, { adoptId: "6f1c0a2e-1111-4222-8333-444455556666" });
    expect(checked.failures).toEqual([{ property: "adoptId", reason: expect.stringMatching(/no instance 6f1c0a2e-1111-4222-8333-444455556666 in this account to adopt/) }]);
    const inputs = { adoptId: "6f1c0a2e-1111-4222-8333-444455556666", deleteOptions: { removePublicIp: true, removeBlockStorage: false } };
    await expect(provider().create(inputs)).rejects.toThrow(/no instance 6f1c0a2e-1111-4222-8333-444455556666 to adopt/);
  });
});

describe("update", () => {
  let id: string;
  let outs: InstanceOutputs;
  let program: Record<string, unknown>;
  beforeAll(async () => {
    program = { ...validCreate, hostname: "upd-1", publicIp: true, vswitchId: vs[0]!.uuid, powerState: "running" };
    ({ id, outs } = await up(program));
  });
  /** The progress lines of the last apply: each step says what it waits for. */
  let said: string[] = [];
  const apply = async (delta: Record<string, unknown>) => {
    const mark = progress.length;
    program = { ...program, ...delta };
    outs = await change(id, outs, program);
    said = progress.slice(mark);
    return outs;
  };

  it("changes the tier in place", async () => {
    await apply({ tierId: 3 });
    expect((await simInstance(id))!.tierId).toBe(3);
    expect(outs).toMatchObject({ tierId: 3, tierName: "Premium" });
    expect(said).toContain(`instance ${id} to change to tier 3`);
  });
  it("resizes cpu, memory and grows storage in place", async () => {
    await apply({ cpu: 4, memory: 8, storage: 60 });
    expect(await simInstance(id)).toMatchObject({ uuid: id, cpu: 4, memoryGb: 8, storageGb: 60 });
    expect(outs).toMatchObject({ cpu: 4, memory: 8, storage: 60 });
    expect(said).toContain(`instance ${id} to resize to 4 CPU / 8 GB memory / 60 GB storage`);
  });
  it("switches to dedicated CPU in place, and back to shared CPU before a tier that has none", async () => {
    await apply({ dedicatedCpu: true });
    expect((await simInstance(id))!.dedicatedCpu).toBe(true);
    const before = requestCount();
    await apply({ dedicatedCpu: false, tierId: 2 });
    expect(opsSince(before).filter((o) => o === "resizeInstance" || o === "changeTier")).toEqual(["resizeInstance", "changeTier"]);
    expect(await simInstance(id)).toMatchObject({ dedicatedCpu: false, tierId: 2 });
  });
  it("renames in place", async () => {
    await apply({ hostname: "upd-renamed" });
    expect((await simInstance(id))!.hostname).toBe("upd-renamed");
    expect(said).toContain(`instance ${id} to be renamed upd-renamed`);
  });
  it("sets the password in place (write-only: kept from the state)", async () => {
    await apply({ password: "Green-Cat-77" });
    expect((await simInstance(id))!.password).toBe("Green-Cat-77");
    expect(outs.password).toBe("Green-Cat-77");
    expect(said).toContain(`instance ${id} to set its password`);
  });
  it("removes and adds the public address", async () => {
    await apply({ publicIp: false });
    expect((await simInstance(id))!.publicIpAddress).toBeNull();
    expect(outs).toMatchObject({ publicIp: false, ipAddress: null });
    expect(said).toContain(`instance ${id} to drop its public address`);
    await apply({ publicIp: true });
    expect((await simInstance(id))!.publicIpAddress).not.toBeNull();
    expect(outs.publicIp).toBe(true);
    expect(said).toContain(`instance ${id} to get a public address`);
  });
  it("uses a reserved public address", async () => {
    await apply({ publicNetworkId: reservedIps[0]!.uuid });
    expect((await simInstance(id))!.publicIpUuid).toBe(reservedIps[0]!.uuid);
    expect(outs).toMatchObject({ publicNetworkId: reservedIps[0]!.uuid, ipAddress: reservedIps[0]!.address });
    expect(said).toContain(`instance ${id} to use public address ${reservedIps[0]!.uuid}`);
  });
  it("moves to another private network, then leaves it", async () => {
    await apply({ vswitchId: vs[1]!.uuid });
    expect((await simInstance(id))!.vswitchUuid).toBe(vs[1]!.uuid);
    expect(outs.vswitchId).toBe(vs[1]!.uuid);
    expect(said).toContain(`instance ${id} to join private network ${vs[1]!.uuid}`);
    await apply({ vswitchId: "" });
    expect((await simInstance(id))!.vswitchUuid).toBeNull();
    expect(outs).toMatchObject({ vswitchId: "", privateNetwork: null });
    expect(said).toContain(`instance ${id} to leave its private network`);
  });
  it("stops and starts the VM", async () => {
    await apply({ powerState: "stopped" });
    expect((await simInstance(id))!.status).toBe("Stopped");
    expect(said).toContain(`instance ${id} to be stopped`);
    await apply({ powerState: "running" });
    expect((await simInstance(id))!.status).toBe("Running");
    expect(said).toContain(`instance ${id} to be running`);
  });
  it("applies several changes in one update, in the fixed order, each waited", async () => {
    const before = requestCount();
    await apply({ tierId: 1, cpu: 2, hostname: "upd-multi", password: "Red-Fox-2024", publicNetworkId: reservedIps[1]!.uuid, vswitchId: vs[0]!.uuid, powerState: "stopped" });
    const writes = opsSince(before).filter((o) => o && !["getInstance", "listVswitches", "listInstances"].includes(o));
    expect(writes).toEqual(["changeTier", "resizeInstance", "updateHostname", "setPassword", "changePublicIp", "updatePrivateNetwork", "stopInstance"]);
    expect(await simInstance(id)).toMatchObject({ tierId: 1, cpu: 2, hostname: "upd-multi", password: "Red-Fox-2024", publicIpUuid: reservedIps[1]!.uuid, vswitchUuid: vs[0]!.uuid, status: "Stopped" });
    const read = await provider().read(id, outs);
    expect(read.props).toEqual(outs);
    // a refresh as the engine runs it: its Diff follows the Read (step.go RefreshStep.Apply), and shows no drift
    expect((await provider().diff(id, read.props, (await provider().check(outs, program)).inputs)).changes).toBe(false);
  });
  it("skips a step the VM already shows (a re-run after a half-done update repeats nothing), and lists networks only for a network step", async () => {
    const vm = await up({ ...validCreate, hostname: "upd-skip", tierId: 2 });
    await outOfBand(vm.id, { tierId: 3 });
    const before = requestCount();
    const after = await change(vm.id, vm.outs, { ...validCreate, hostname: "upd-skip", tierId: 3 });
    expect(opsSince(before)).not.toContain("changeTier");
    expect(opsSince(before)).not.toContain("listVswitches");
    expect(after).toMatchObject({ tierId: 3 });
    expect((await simInstance(vm.id))!.tierId).toBe(3);
  });
  it("never replaces the VM for a smaller disk: the diff (so a preview) and the update refuse it before any API call", async () => {
    const disk = outs.storage!;
    const checked = await provider().check(outs, { ...program, storage: 20, cpu: 4 });
    const refusal = new RegExp(`disks cannot shrink\\. Declare storage: ${disk} \\(or more\\).*pulumi up --replace.*Nothing was changed`);
    const before = requestCount();
    await expect(provider().diff(id, outs, checked.inputs)).rejects.toThrow(refusal);
    await expect(provider().update(id, outs, checked.inputs)).rejects.toThrow(refusal);
    expect(opsSince(before)).toEqual([]); // not even the cpu change: nothing half done
    expect(await simInstance(id)).toMatchObject({ storageGb: disk, cpu: outs.cpu });
  });
});

describe("drift", () => {
  let id: string;
  let outs: InstanceOutputs;
  let inputs: InstanceInputs;
  let n = 0;
  beforeEach(async () => {
    // a hostname per case: a create refuses to make a twin of a VM it does not manage (see the failures cases)
    ({ id, outs, inputs } = await up({ ...validCreate, hostname: `drift-${++n}`, publicIp: true, vswitchId: vs[0]!.uuid, powerState: "running" }));
  });

  const cases: [string, () => Record<string, unknown>, Partial<InstanceOutputs> | (() => Partial<InstanceOutputs>), { replaces?: string[]; refused?: boolean }][] = [
    ["hostname", () => ({ hostname: "renamed-by-hand" }), { hostname: "renamed-by-hand" }, {}],
    ["cpu", () => ({ cpu: 1 }), { cpu: 1 }, {}],
    ["memory", () => ({ memory: 2 }), { memory: 2 }, {}],
    // grown by hand: shown as a change (never a replace that would delete the VM and its data); the update
    // refuses it, asking the user to declare the bigger disk or replace deliberately
    ["storage (grown by hand)", () => ({ storage: 80 }), { storage: 80 }, { refused: true }],
    ["tier", () => ({ tierId: 1 }), { tierId: 1 }, {}],
    ["power", () => ({ powerState: "stopped" }), { powerState: "stopped", status: "Stopped" }, {}],
    ["public address removed", () => ({ publicIp: false }), { publicIp: false, ipAddress: null }, {}],
    ["private network changed", () => ({ vswitchId: vs[1]!.uuid }), () => ({ vswitchId: vs[1]!.uuid }), {}],
    ["private network left", () => ({ vswitchId: null }), { vswitchId: "" }, {}],
  ];

  it.each(cases)("shows an out-of-band %s change, and the diff proposes the fix", async (_what, patch, shown, expected) => {
    await outOfBand(id, patch());
    const read = await provider().read(id, outs);
    expect(read.props).toMatchObject(typeof shown === "function" ? shown() : shown);
    // no inputs handed back: Pulumi keeps the program's, so the drift stays visible refresh after refresh
    expect(read.inputs).toBeUndefined();
    const d = await provider().diff(id, read.props, inputs);
    expect(d).toMatchObject({ changes: true, replaces: expected.replaces ?? [] });
    if (expected.refused) {
      // the refresh's Diff (right after its Read) shows the drift; the Diff of the preview or up after it refuses, as the update does
      await expect(provider().diff(id, read.props, inputs)).rejects.toThrow(/disks cannot shrink/);
      await expect(provider().update(id, read.props, inputs)).rejects.toThrow(/disks cannot shrink/);
    } else if (!expected.replaces) {
      // the update fixes it, and a read afterwards shows no more drift
      const fixed = (await provider().update(id, read.props, inputs)).outs as InstanceOutputs;
      expect(await provider().diff(id, (await provider().read(id, fixed)).props, inputs)).toMatchObject({ changes: false });
    }
  });

  // Refresh as the engine does it (step.go RefreshStep.Apply): stores the read's outputs, and its inputs if it
  // returned any (else the old ones), then reports drift as the provider's diff of those outputs against those
  // inputs. Rebuilding inputs from the state's outputs made them lag one refresh behind: after a change in the
  // panel and its undo, the next refresh reported drift on a VM as declared.
  it("a change in the panel and its undo: drift reported while it lasts, none after, refresh after refresh", async () => {
    let state = { outputs: outs, inputs: inputs as unknown as Record<string, unknown> };
    const refresh = async (): Promise<boolean> => {
      const r = await provider().read(id, state.outputs);
      state = { outputs: r.props as InstanceOutputs, inputs: (r.inputs as Record<string, unknown> | undefined) ?? state.inputs };
      return (await provider().diff(id, state.outputs, state.inputs as unknown as InstanceInputs)).changes === true;
    };
    await outOfBand(id, { memory: 8 });
    expect(await refresh()).toBe(true);
    expect(await refresh()).toBe(true); // still drifted: still reported
    await outOfBand(id, { memory: 4 });
    expect(await refresh()).toBe(false);
    expect(await refresh()).toBe(false);
    expect(state.outputs.memory).toBe(4);
  });

  it("an address removed in the panel (still reserved, billing) is assigned back by the next up, not a second one", async () => {
    const before = (await simInstance(id))!.publicIpAddress;
    const unattached = async () => (await simState()).publicIps.filter((p) => p.instanceUuid === null && !p.seeded).map((p) => p.uuid).sort();
    const unattachedBefore = await unattached(); // left by earlier cases of this file
    await outOfBand(id, { publicIp: false });
    expect((await simState()).publicIps.filter((p) => p.address === before && p.instanceUuid === null)).toHaveLength(1);
    const read = (await provider().read(id, outs)).props as InstanceOutputs;
    expect(read).toMatchObject({ publicIp: false, reservedPublicIpId: outs.publicIpId });
    expect(await provider().diff(id, read, inputs)).toMatchObject({ changes: true });
    const fixed = (await provider().update(id, read, inputs)).outs as InstanceOutputs;
    expect(fixed).toMatchObject({ publicIp: true, publicIpId: outs.publicIpId, ipAddress: before });
    expect(fixed.reservedPublicIpId).toBeUndefined();
    // nothing more left reserved in the account than before the panel change
    expect(await unattached()).toEqual(unattachedBefore);
  });

  it("shows a VM deleted out of band as gone", async () => {
    await outOfBand(id, { deleted: true });
    const read = await provider().read(id, outs);
    expect(read.id).toBeFalsy();
  });

  it("an address or network managed by other resources is not drift of an Instance that leaves them unset", async () => {
    const plain = await up({ ...validCreate, hostname: "drift-unmanaged" });
    await outOfBand(plain.id, { publicIp: reservedIps[2]!.uuid, vswitchId: vs[1]!.uuid });
    const before = requestCount();
    const read = await provider().read(plain.id, plain.outs);
    expect(opsSince(before)).toEqual(["getInstance"]); // refresh: one request, no network listing for an unmanaged network
    expect(read.props).toMatchObject({ ipAddress: reservedIps[2]!.address, privateNetwork: vs[1]!.name });
    expect(await provider().diff(plain.id, read.props, plain.inputs)).toMatchObject({ changes: false });
  });
});

describe("delete", () => {
  it("deletes and releases the public address by default; a missing VM is already deleted", async () => {
    const { id, outs } = await up({ ...validCreate, hostname: "del-1", publicIp: true });
    const ip = (await simInstance(id))!.publicIpUuid;
    let before = requestCount();
    await provider().delete(id, outs);
    // the shared status list says "idle": no detail read of its own before the DELETE
    expect(opsSince(before).slice(0, opsSince(before).indexOf("deleteInstance"))).not.toContain("getInstance");
    const s = await simState();
    expect(s.instances.find((i) => i.uuid === id)).toBeUndefined();
    expect(s.publicIps.find((p) => p.uuid === ip)).toBeUndefined();
    before = requestCount();
    await expect(provider().delete(id, outs)).resolves.toBeUndefined();
    expect(opsSince(before)).not.toContain("deleteInstance");
  });

  it("a state without deleteOptions (written before the option existed) deletes with the defaults: address released, disks kept", async () => {
    const { id, outs } = await up({ ...validCreate, hostname: "del-defaults", publicIp: true });
    const ip = (await simInstance(id))!.publicIpUuid;
    const disk = (await simState()).blockStorages.find((b) => b.locationId === 1 && b.instanceUuid === null)!;
    await createClient({ baseUrl: sim.url, apiKey: sim.apiKey }).storage.attach(disk.uuid, { instanceId: id });
    await provider().delete(id, { ...outs, deleteOptions: undefined });
    const s = await simState();
    expect(s.instances.find((i) => i.uuid === id)).toBeUndefined();
    expect(s.publicIps.find((p) => p.uuid === ip)).toBeUndefined();
    expect(s.blockStorages.find((b) => b.uuid === disk.uuid)).toMatchObject({ instanceUuid: null });
  });

  it("returns only once the VM is gone, and past its deadline names the wait", async () => {
    const { id, outs } = await up({ ...validCreate, hostname: "del-slow" });
    await admin("POST", "/faults", { stickNext: { kind: "delete" } });
    let done = false;
    const before = requestCount();
    const deleting = provider().delete(id, outs).finally(() => (done = true));
    const after = () => opsSince(before).slice(opsSince(before).indexOf("deleteInstance") + 1);
    await until(() => opsSince(before).includes("deleteInstance") && after().filter((o) => o === "listInstances").length >= 2);
    expect(done).toBe(false); // still "deleting" at the host: not reported deleted
    await admin("POST", `/instances/${id}/finish-operation`, {});
    await deleting;
    expect((await simState()).instances.find((i) => i.uuid === id)).toBeUndefined();

    const late = await up({ ...validCreate, hostname: "del-late", timeouts: { delete: "1s" } });
    await admin("POST", "/faults", { stickNext: { kind: "delete" } });
    await expect(provider().delete(late.id, late.outs)).rejects.toThrow(new RegExp(`^timed out after .* waiting for instance ${late.id} to be deleted`));
    await admin("POST", `/instances/${late.id}/finish-operation`, {});
  });

  it("a delete the API ends with status Error: the error says the VM is still there and how to finish the job; the next delete does", async () => {
    const { id, outs } = await up({ ...validCreate, hostname: "del-failed" });
    await admin("POST", "/faults", { failNext: { kind: "delete" } });
    // audit (destroy): "instance … to be deleted failed: the instance reports status Error", nothing about what is left
    await expect(provider().delete(id, outs)).rejects.toThrow(
      new RegExp(`^instance ${id} was not deleted: the instance reports status Error after its delete, and the VM still exists \\(it may bill\\)\\. It stays in the stack: the next \`pulumi destroy\``),
    );
    expect((await simState()).instances.find((i) => i.uuid === id)).toMatchObject({ status: "Error" });
    await provider().delete(id, outs);
    expect((await simState()).instances.find((i) => i.uuid === id)).toBeUndefined();
  });

  it("a VM that stays busy past the delete deadline: the error names the wait for it to be idle, and nothing was sent", async () => {
    const { id, outs } = await up({ ...validCreate, hostname: "del-busy-late", timeouts: { delete: "1s" } });
    await admin("POST", "/faults", { stickNext: { kind: "stop" } });
    await createClient({ baseUrl: sim.url, apiKey: sim.apiKey }).instances.stop(id);
    const before = requestCount();
    await expect(provider().delete(id, outs)).rejects.toThrow(new RegExp(`^timed out after .* waiting for instance ${id} to be idle before deleting it`));
    expect(opsSince(before)).not.toContain("deleteInstance");
    await admin("POST", `/instances/${id}/finish-operation`, {});
  });

  it("keeps the public address and deletes block storage when the delete options say so", async () => {
    const free = (await simState()).publicIps.find((p) => p.locationId === 1 && p.seeded && p.instanceUuid === null)!;
    const { id, outs } = await up({
      ...validCreate, hostname: "del-2", publicNetworkId: free.uuid,
      deleteOptions: { removePublicIp: false, removeBlockStorage: true },
    });
    const disk = (await simState()).blockStorages.find((b) => b.locationId === 1 && b.instanceUuid === null)!;
    await createClient({ baseUrl: sim.url, apiKey: sim.apiKey }).storage.attach(disk.uuid, { instanceId: id });
    const mark = progress.length;
    await provider().delete(id, outs);
    const s = await simState();
    expect(s.instances.find((i) => i.uuid === id)).toBeUndefined();
    expect(s.publicIps.find((p) => p.uuid === free.uuid)).toMatchObject({ instanceUuid: null });
    // said, as a reserved address may bill (the address of an unconfirmed create's VM was never in the state)
    expect(progress.slice(mark)).toContainEqual(expect.stringMatching(new RegExp(`^instance ${id} is deleted keeping its address ${free.address}: it stays reserved in your account .*may bill`)));
    expect(s.blockStorages.find((b) => b.uuid === disk.uuid)).toBeUndefined();
  });

  it("waits for a running operation to end before deleting (a VM in Error can still be deleted)", async () => {
    const { id, outs } = await up({ ...validCreate, hostname: "del-busy" });
    await admin("POST", "/faults", { stickNext: { kind: "stop" } });
    await createClient({ baseUrl: sim.url, apiKey: sim.apiKey }).instances.stop(id);
    const before = requestCount();
    const deleting = provider().delete(id, outs);
    // polled (through the shared status poller's list, or the detail) while the stop runs, and not deleted
    await until(() => sim.requests().slice(before).filter((r) => r.operation === "getInstance" || r.operation === "listInstances").length >= 3);
    expect(opsSince(before)).not.toContain("deleteInstance");
    // the stuck operation ends in failure: the VM is left in Error, and is deleted all the same
    await admin("POST", `/instances/${id}/finish-operation`, { outcome: "failure" });
    await deleting;
    expect((await simState()).instances.find((i) => i.uuid === id)).toBeUndefined();
  });

  it("keeps block storage by default", async () => {
    const { id, outs } = await up({ ...validCreate, hostname: "del-3" });
    const disk = (await simState()).blockStorages.find((b) => b.locationId === 1 && b.instanceUuid === null)!;
    await createClient({ baseUrl: sim.url, apiKey: sim.apiKey }).storage.attach(disk.uuid, { instanceId: id });
    await provider().delete(id, outs);
    expect((await simState()).blockStorages.find((b) => b.uuid === disk.uuid)).toMatchObject({ instanceUuid: null });
  });
});

describe("failures", () => {
  it("a create that ends in a failure status is an error carrying the VM's id", async () => {
    await admin("POST", "/faults", { failNext: { kind: "create" } });
    const err = await up({ ...validCreate, hostname: "fail-status" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResourceInitError);
    const init = err as ResourceInitError;
    const vm = (await simState()).instances.find((i) => i.hostname === "fail-status")!;
    expect(init.id).toBe(vm.uuid);
    expect(init.message).toMatch(/Error/);
    expect(init.properties).toMatchObject({ hostname: "fail-status", status: "Error" });
  });

  it("a create past its deadline is an error carrying the id and the last status", async () => {
    await admin("POST", "/faults", { stickNext: { kind: "create" } });
    const err = await up({ ...validCreate, hostname: "fail-deadline", timeouts: { create: "1s" } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResourceInitError);
    const vm = (await simState()).instances.find((i) => i.hostname === "fail-deadline")!;
    expect((err as ResourceInitError).id).toBe(vm.uuid);
    expect((err as Error).message).toMatch(
      new RegExp(`^instance ${vm.uuid} \\(fail-deadline\\) was created but did not become ready: timed out after .* waiting for instance ${vm.uuid} \\(fail-deadline\\) to finish creating \\(last status seen: creating`),
    );
    // what to do next, and Pulumi's "failed to initialize" reasons say the same
    expect((err as Error).message).toMatch(
      /\. It is recorded in the stack: `pulumi up` reads it again and finishes or repairs it \(a VM in status Error is started\), and `pulumi destroy` deletes it\.$/,
    );
    expect((err as ResourceInitError).reasons).toEqual([(err as Error).message]);
    expect((err as Error).cause).toBeInstanceOf(Error);
  });

  it("a clone past its deadline says it was cloned, naming the wait; it records no password the clone does not have", async () => {
    const source = await up({ ...validCreate, hostname: "clone-deadline-src" });
    await admin("POST", "/faults", { stickNext: { kind: "clone" } });
    const err = await up({ cloneFrom: source.id, hostname: "clone-deadline", locationId: 1, tierId: 2, password: "Green-Cat-77", timeouts: { create: "1s" } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResourceInitError);
    const id = (err as ResourceInitError).id;
    expect((err as Error).message).toMatch(
      new RegExp(`^instance ${id} \\(clone-deadline\\) was cloned but did not become ready: timed out after .* waiting for instance ${id} \\(clone-deadline\\) to finish cloning`),
    );
    // the clone has its source's password until the password step ran: the state must not claim the declared one
    expect((err as ResourceInitError).properties.password).toBeUndefined();
    await admin("POST", `/instances/${id}/finish-operation`, {});
  });

  /**
   * The clone request is sent through the SOURCE's operation queue, which waits for the source to settle after
   * the API answered. `afterAnswer` runs right after the answer (the clone exists from then on) to make that
   * wait fail; the clone must still be recorded under its uuid, never orphaned.
   */
  async function cloneWhoseSourceWaitFails(hostname: string, afterAnswer: (sourceId: string) => Promise<unknown>, extra: Record<string, unknown> = {}) {
    const source = await up({ ...validCreate, hostname: `${hostname}-src` });
    const instances = getClient().instances;
    const realClone = instances.clone.bind(instances);
    const spy = jest.spyOn(instances, "clone").mockImplementation(async (...args) => {
      const answer = await realClone(...args);
      await afterAnswer(source.id);
      return answer;
    });
    try {
      const result = await up({ cloneFrom: source.id, hostname, locationId: 1, tierId: 2, ...extra }).catch((e: unknown) => e);
      const clones = (await simState()).instances.filter((i) => i.hostname === hostname);
      expect(clones).toHaveLength(1);
      return { result, clone: clones[0]!, sourceId: source.id };
    } finally {
      spy.mockRestore();
    }
  }

  it("a clone answered by the API whose source then fell into Error is finished and recorded under its uuid", async () => {
    const { result, clone } = await cloneWhoseSourceWaitFails("clone-src-error", (sourceId) => outOfBand(sourceId, { status: "Error" }));
    expect(result).toMatchObject({ id: clone.uuid });
    expect(clone).toMatchObject({ status: "Running" });
  });

  it("a clone answered by the API whose source then stays busy past the deadline is an error carrying the clone's uuid", async () => {
    // the clone is slow too, so the create cannot finish once the source's wait ate the deadline (a clone done
    // by then would be finished and recorded as well: the outcome this test pins is "recorded under its uuid")
    await admin("POST", "/faults", { stickNext: { kind: "clone" } });
    const { result, clone, sourceId } = await cloneWhoseSourceWaitFails(
      "clone-src-busy",
      async (id) => {
        await admin("POST", "/faults", { stickNext: { kind: "stop" } });
        await getClient().instances.stop(id); // never ends: the wait for the source runs into the deadline
      },
      { timeouts: { create: "1s" } },
    );
    expect(result).toBeInstanceOf(ResourceInitError);
    expect((result as ResourceInitError).id).toBe(clone.uuid);
    expect((result as Error).message).toMatch(new RegExp(`^instance ${clone.uuid} \\(clone-src-busy\\) was cloned but did not become ready: `));
    expect((result as ResourceInitError).properties).toMatchObject({ cloneFrom: sourceId, hostname: "clone-src-busy" });
    await outOfBand(sourceId, { cancelOperation: true });
    await admin("POST", `/instances/${clone.uuid}/finish-operation`, {});
  });

  it("a clone whose password was set before a later step failed records that password", async () => {
    const source = await up({ ...validCreate, hostname: "clone-pw-src" });
    await admin("POST", "/faults", { failNext: { kind: "stop" } });
    const err = await up({ cloneFrom: source.id, hostname: "clone-pw", locationId: 1, tierId: 2, password: "Green-Cat-77", powerState: "stopped" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResourceInitError);
    expect((await simInstance((err as ResourceInitError).id))!.password).toBe("Green-Cat-77");
    expect((err as ResourceInitError).properties).toMatchObject({ password: "Green-Cat-77" });
  });

  it("succeeds under a host rate limit, learned from its X-RateLimit headers instead of hammering into 429s", async () => {
    // A host of its own (another base URL): the limiter keeps what it learned per host and key for the life of
    // the process, as a provider process does for one run, so the other cases (a host that never limits) are not
    // paced by it (they took 5-16 s each after this case instead of < 1 s).
    const limited = await startSimulator({ opSeconds: 0.05 });
    const env = { key: process.env.VMHOST_API_KEY, url: process.env.VMHOST_BASE_URL };
    process.env.VMHOST_API_KEY = limited.apiKey;
    process.env.VMHOST_BASE_URL = limited.url;
    try {
      limited.setFaults({ rateLimitPerSecond: 3 });
      const { id, outs } = await up({ ...validCreate, hostname: "storm-429", powerState: "stopped" });
      // Without the limiter every poll burst met 429s; with it at most the odd probe does.
      const answers = limited.requests();
      expect(answers.length).toBeGreaterThan(5);
      expect(answers.filter((r) => r.status === 429).length).toBeLessThanOrEqual(2);
      const res = await fetch(`${limited.adminUrl}/state`);
      expect(((await res.json()) as SimState).instances.find((i) => i.uuid === id)?.status).toBe("Stopped");
      await provider().delete(id, outs);
    } finally {
      process.env.VMHOST_API_KEY = env.key;
      process.env.VMHOST_BASE_URL = env.url;
      await limited.close();
    }
  });

  it("succeeds with a 5xx rate, and exactly one VM results", async () => {
    // 503: the transient 5xx the client retries on reads; on the create it is ambiguous and reconciled
    await admin("POST", "/faults", { errorRate: 0.25, errorStatus: 503 });
    const { id } = await up({ ...validCreate, hostname: "storm-5xx" });
    await admin("DELETE", "/faults");
    expect(sim.requests().some((r) => (r.status ?? 0) >= 500)).toBe(true);
    expect((await simState()).instances.filter((i) => i.hostname === "storm-5xx").map((i) => i.uuid)).toEqual([id]);
  });

  it("a connection reset right after the create request leaves exactly one VM, adopted", async () => {
    await admin("POST", "/faults", { resetNext: { operation: "createInstance", afterProcessing: true } });
    const before = requestCount();
    const { id, outs } = await up({ ...validCreate, hostname: "reset-1" });
    const vms = (await simState()).instances.filter((i) => i.hostname === "reset-1");
    expect(vms.map((v) => v.uuid)).toEqual([id]);
    expect(opsSince(before).filter((o) => o === "createInstance")).toHaveLength(1);
    expect(outs.status).toBe("Running");
  });

  it("after a reset, an older VM with the same hostname (e.g. the one a replace is replacing) is never taken for the new one", async () => {
    const older = await up({ ...validCreate, hostname: "reset-3" });
    forgetDeployment(); // the replacing up: a new provider process
    // the engine diffs before a replacement's create: the diff reports the replace of the older VM
    const news = (await provider().check(older.outs, { ...validCreate, hostname: "reset-3", templateId: 2 })).inputs;
    expect((await provider().diff(older.id, older.outs, news)).replaces).toEqual(["templateId"]);
    await admin("POST", "/faults", { resetNext: { operation: "createInstance", afterProcessing: true } });
    const { id } = await up({ ...validCreate, hostname: "reset-3", templateId: 2 });
    expect(id).not.toBe(older.id);
    const named = (await simState()).instances.filter((i) => i.hostname === "reset-3");
    expect(named.map((i) => i.uuid).sort()).toEqual([older.id, id].sort());
    expect(named.find((i) => i.uuid === id)!.templateId).toBe(2);
  });

  it("a reset before the request was processed is re-sent once, still exactly one VM", async () => {
    await admin("POST", "/faults", { resetNext: { operation: "createInstance", afterProcessing: false } });
    const before = requestCount();
    const { id } = await up({ ...validCreate, hostname: "reset-2" });
    expect((await simState()).instances.filter((i) => i.hostname === "reset-2").map((v) => v.uuid)).toEqual([id]);
    expect(opsSince(before).filter((o) => o === "createInstance")).toHaveLength(2);
  });

  it("an operation that ends without its change (dropped by the host) is never taken as done: the update fails saying so", async () => {
    const { id, outs } = await up({ ...validCreate, hostname: "dropped-op" });
    await admin("POST", "/faults", { stickNext: { kind: "resize" } });
    const news = (await provider().check(outs, { ...validCreate, hostname: "dropped-op", cpu: 4, timeouts: { update: "2s" } })).inputs;
    const before = requestCount();
    const updating = provider().update(id, outs, news).catch((e: unknown) => e);
    await until(() => opsSince(before).includes("resizeInstance"));
    // the resize running, and seen running by a status read of the update's wait
    while ((await simInstance(id))?.status === "Running") await new Promise((r) => setTimeout(r, 10));
    const seen = requestCount();
    await until(() => opsSince(seen).some((o) => o === "listInstances" || o === "getInstance"));
    await outOfBand(id, { cancelOperation: true }); // idle again, still 2 CPU
    const err = await updating;
    expect(err).toBeInstanceOf(ResourceInitError);
    // (before its deadline, once the VM stayed idle without the change for the grace: wait/instance.ts OUTCOME_GRACE_MS)
    expect((err as Error).message).toMatch(new RegExp(`instance ${id} to resize to 4 CPU / 4 GB memory / 40 GB storage failed: its operation ended, but the instance is not as asked`));
    expect((err as ResourceInitError).properties).toMatchObject({ cpu: 2 });
  });

  it("a VM deleted by someone else while being created: the error carries its id and status Unknown (the next up reads it again)", async () => {
    await admin("POST", "/faults", { stickNext: { kind: "create" } });
    const before = requestCount();
    const creating = up({ ...validCreate, hostname: "vanished" }).catch((e: unknown) => e);
    await until(() => opsSince(before).includes("createInstance"));
    const vm = (await simState()).instances.find((i) => i.hostname === "vanished")!;
    await outOfBand(vm.uuid, { deleted: true });
    const err = await creating;
    expect(err).toBeInstanceOf(ResourceInitError);
    expect((err as ResourceInitError).id).toBe(vm.uuid);
    expect((err as Error).message).toContain(`instance ${vm.uuid} no longer exists`);
    expect((err as ResourceInitError).properties).toMatchObject({ hostname: "vanished", cpu: 2, status: "Unknown" });
  });

  it("an address add whose answer was lost after the host did it is read back, not sent again (no second address billed)", async () => {
    const { id, outs } = await up({ ...validCreate, hostname: "lost-answer" });
    await admin("POST", "/faults", { resetNext: { operation: "addPublicIp", afterProcessing: true } });
    const addressesBefore = (await simState()).publicIps.length;
    const before = requestCount();
    const after = await change(id, outs, { ...validCreate, hostname: "lost-answer", publicIp: true });
    expect(opsSince(before).filter((o) => o === "addPublicIp")).toHaveLength(1);
    expect((await simState()).publicIps.length).toBe(addressesBefore + 1);
    expect(after.ipAddress).toBe((await simInstance(id))!.publicIpAddress);
    expect(after.ipAddress).toBeTruthy();
  });

  it("an address add lost before the host did it fails the update at once saying so, with no address added; the next up adds one", async () => {
    const { id, outs } = await up({ ...validCreate, hostname: "lost-before" });
    await admin("POST", "/faults", { resetNext: { operation: "addPublicIp", afterProcessing: false } });
    const addressesBefore = (await simState()).publicIps.length;
    const before = requestCount();
    const err = await change(id, outs, { ...validCreate, hostname: "lost-before", publicIp: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResourceInitError);
    // (satellites audit: it said "check whether it happened", which the update had just done)
    expect((err as Error).message).toMatch(
      new RegExp(
        `^updating instance ${id} failed: instance ${id} to get a public address: addPublicIp \\(PATCH /instance/\\{instance_uuid\\}/ip/add\\) failed: network error .*` +
          "The VM, read once idle, is not as asked and shows no change, so the request did not take effect; it was not sent again " +
          "\\(a request still on its way could make it happen twice\\)\\. The state records what the VM has now; `pulumi up` retries what is left\\.$",
      ),
    );
    expect((err as ResourceInitError).id).toBe(id);
    expect((err as ResourceInitError).properties).toMatchObject({ publicIp: false, ipAddress: null });
    // read back once (not re-sent blindly, not waited on until the deadline)
    expect(opsSince(before).filter((o) => o === "addPublicIp")).toHaveLength(1);
    expect(opsSince(before).filter((o) => o === "getInstance").length).toBeLessThanOrEqual(3);
    expect((await simState()).publicIps.length).toBe(addressesBefore);
    const after = await change(id, outs, { ...validCreate, hostname: "lost-before", publicIp: true });
    expect((await simState()).publicIps.length).toBe(addressesBefore + 1);
    expect(after.ipAddress).toBe((await simInstance(id))!.publicIpAddress);
  });

  it("a clone whose source is gone by create time (check skipped) is refused naming cloneFrom, before any write", async () => {
    const before = requestCount();
    const missing = "6f1c0a2e-1111-4222-8333-444455556666";
    await expect(provider().create({ cloneFrom: missing, hostname: "clone-nothing", locationId: 1, tierId: 2, deleteOptions: { removePublicIp: true, removeBlockStorage: false } })).rejects.toThrow(
      new Error(`cloneFrom: there is no instance ${missing} to clone (check the uuid with getInstances)`),
    );
    expect(opsSince(before)).not.toContain("cloneInstance");
  });

  it("a VM deleted while waiting to adopt it is an error naming adoptId", async () => {
    const { id } = await up({ ...validCreate, hostname: "adopt-vanish" });
    await admin("POST", "/faults", { stickNext: { kind: "stop" } });
    await createClient({ baseUrl: sim.url, apiKey: sim.apiKey }).instances.stop(id);
    const before = requestCount();
    const adopting = up({ adoptId: id }).catch((e: unknown) => e);
    await until(() => opsSince(before).filter((o) => o === "listInstances").length >= 2);
    await outOfBand(id, { deleted: true });
    expect(await adopting).toEqual(new Error(`adoptId: instance ${id} disappeared while being adopted`));
  });

  it("an update that fails while the VM cannot be read records no declared value as observed: the next up still does the resize", async () => {
    const { id, outs } = await up({ ...validCreate, hostname: "unreadable" });
    await admin("POST", "/faults", { stickNext: { kind: "resize" } });
    const news = (await provider().check(outs, { ...validCreate, hostname: "unreadable", cpu: 4, timeouts: { update: "1s" } })).inputs;
    const before = requestCount();
    // once the resize is accepted, the VM cannot be read until the update gave up and reported (an outage; a
    // real run of 5xx would be retried with seconds of backoff first)
    const instances = getClient().instances;
    const realFind = instances.find.bind(instances);
    const spy = jest.spyOn(instances, "find").mockImplementation(async (...args) => {
      if (opsSince(before).includes("resizeInstance")) throw new Error("Server Error (the API is unreachable)");
      return realFind(...args);
    });
    const err = await provider().update(id, outs, news).catch((e: unknown) => e);
    spy.mockRestore();
    expect(opsSince(before)).toContain("resizeInstance");
    expect(err).toBeInstanceOf(ResourceInitError);
    const recorded = (err as ResourceInitError).properties as InstanceOutputs;
    expect(recorded).toMatchObject({ cpu: 2, status: "Unknown" }); // what was last seen, not what was asked
    // the host's resize then fails: the VM is in Error with its old size
    await admin("POST", `/instances/${id}/finish-operation`, { outcome: "failure" });
    expect(await simInstance(id)).toMatchObject({ status: "Error", cpu: 2 });
    // the next up (the engine sends the recorded outputs) repairs AND resizes
    const again = (await provider().check(recorded, { ...validCreate, hostname: "unreadable", cpu: 4 })).inputs;
    expect(await provider().diff(id, recorded, again)).toMatchObject({ changes: true, replaces: [] });
    await provider().update(id, recorded, again);
    expect(await simInstance(id)).toMatchObject({ status: "Running", cpu: 4 });
  });

  it("an update that runs out of time while its operation still runs records it as not seen at rest: the next up, asking for the old value again, gets it", async () => {
    const { id, outs } = await up({ ...validCreate, hostname: "mid-operation" });
    await admin("POST", "/faults", { stickNext: { kind: "changeTier" } });
    const toTier3 = (await provider().check(outs, { ...validCreate, hostname: "mid-operation", tierId: 3, timeouts: { update: "1s" } })).inputs;
    const err = await provider().update(id, outs, toTier3).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResourceInitError);
    // the VM still shows tier 2 while the change runs: recorded, but not as its end state
    const recorded = (err as ResourceInitError).properties as InstanceOutputs;
    expect(recorded).toMatchObject({ tierId: 2, status: "Unknown" });
    // a refresh while it still runs keeps the mark
    const refreshed = (await provider().read(id, recorded)).props as InstanceOutputs;
    expect(refreshed).toMatchObject({ tierId: 2, status: "Unknown" });
    // the user gives up on tier 3 (the program says tier 2 again); the host's change to tier 3 then ends
    const back = (await provider().check(refreshed, { ...validCreate, hostname: "mid-operation" })).inputs;
    expect(await provider().diff(id, refreshed, back)).toMatchObject({ changes: true, replaces: [] });
    await admin("POST", `/instances/${id}/finish-operation`, { outcome: "success" });
    expect(await simInstance(id)).toMatchObject({ tierId: 3 });
    const updated = (await provider().update(id, refreshed, back)).outs as InstanceOutputs;
    expect(updated).toMatchObject({ tierId: 2, status: "Running" });
    expect(await simInstance(id)).toMatchObject({ tierId: 2, status: "Running" });
    // at rest again: a refresh records what it sees, and nothing is left to do
    const atRest = (await provider().read(id, updated)).props as InstanceOutputs;
    expect(atRest.status).toBe("Running");
    expect(await provider().diff(id, atRest, back)).toMatchObject({ changes: false });
  });

  it("an update planned from a record not seen at rest waits for the running operation, then plans from what it left", async () => {
    const { id, outs } = await up({ ...validCreate, hostname: "wait-then-plan" });
    await admin("POST", "/faults", { stickNext: { kind: "resize" } });
    const bigger = (await provider().check(outs, { ...validCreate, hostname: "wait-then-plan", cpu: 4, timeouts: { update: "1s" } })).inputs;
    const recorded = ((await provider().update(id, outs, bigger).catch((e: unknown) => e)) as ResourceInitError).properties as InstanceOutputs;
    expect(recorded).toMatchObject({ cpu: 2, status: "Unknown" });
    const before = requestCount();
    const again = (await provider().check(recorded, { ...validCreate, hostname: "wait-then-plan", cpu: 4 })).inputs;
    const updating = provider().update(id, recorded, again);
    await until(() => opsSince(before).length >= 2);
    await admin("POST", `/instances/${id}/finish-operation`, { outcome: "success" });
    expect((await updating).outs).toMatchObject({ cpu: 4, status: "Running" });
    // the resize that finished is not sent again
    expect(opsSince(before)).not.toContain("resizeInstance");
  });

  it("a state written with status Unknown and the declared values (a create that could not read its VM) is planned from a fresh read", async () => {
    const { id, outs } = await up({ ...validCreate, hostname: "unknown-declared" });
    // what a create's error report records when the VM cannot be read: the declared values, status Unknown;
    // here the VM is not as declared (a clone keeps its source's size until its resize step ran)
    await outOfBand(id, { cpu: 1 });
    const recorded = { ...outs, cpu: 2, status: "Unknown" };
    const news = (await provider().check(recorded, { ...validCreate, hostname: "unknown-declared" })).inputs;
    expect(await provider().diff(id, recorded, news)).toMatchObject({ changes: true, replaces: [] });
    const updated = (await provider().update(id, recorded, news)).outs as InstanceOutputs;
    expect(updated).toMatchObject({ cpu: 2, status: "Running" });
    expect(await simInstance(id)).toMatchObject({ cpu: 2, status: "Running" });
  });

  it("an update that fails half-way reports the truth with the id", async () => {
    const { id, outs } = await up({ ...validCreate, hostname: "half-way" });
    await admin("POST", "/faults", { failNext: { kind: "resize" } });
    const news = (await provider().check(outs, { ...validCreate, hostname: "half-way", tierId: 3, cpu: 4 })).inputs;
    const err = await provider().update(id, outs, news).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResourceInitError);
    expect((err as ResourceInitError).id).toBe(id);
    expect((err as ResourceInitError).properties).toMatchObject({ tierId: 3, cpu: 2, status: "Error" });
    // the message says what failed, what was done before (the tier, not the resize), and what the next up does
    expect((err as Error).message).toMatch(
      new RegExp(`^updating instance ${id} failed: .*status Error.* \\(done before the failure: changeTier\\)\\. The state records what the VM has now; \`pulumi up\` retries what is left\\.$`),
    );
    expect((err as ResourceInitError).reasons).toEqual([(err as Error).message]);
    expect((err as Error).cause).toBeInstanceOf(Error);
  });
});
