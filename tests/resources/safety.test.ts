/**
 * The safety promise (issue 9) through the provider objects, as the real engine calls them, checked against
 * the simulator's own state: never lost, never twice, always destroyable.
 * - ambiguous creates whose reconciliation reads fail for a while still end with exactly one VM, recorded;
 * - an interrupted `up` (a VM created but never recorded) is never silently duplicated by the next `up`;
 * - an adopted VM is never replaced (which would delete it);
 * - a VM in status Error: `up` repairs it or fails naming ways out, never reports success; every dependent
 *   resource can still be deleted;
 * - toggling `publicIp` never piles up reserved addresses, and an address the Instance takes off is remembered
 *   (so destroy releases it) however the call ends: a 5xx after the work, a lost answer, a killed run;
 * - every wait, the per-instance lock included, ends by the resource's deadline, naming the right key.
 */
import type * as pulumi from "@pulumi/pulumi";
import { providers } from "../../provider";
import { NetworkError } from "../../provider/api";
import { getClient, resetContext, setProgressSink } from "../../provider/context";
import { ProviderError, ResourceInitError } from "../../provider/resources/common/errors";
import { instanceLock } from "../../provider/resources/common/lock";
import { objectsOfThisStack, replacementsInProgress } from "../../provider/resources/common/replacements";
import { forgetDeployment } from "../../provider/registry";
import { forgetPreviewNotes } from "../../provider/resources/common/preflight";
import type { InstanceInputs, InstanceOutputs } from "../../provider/resources/instance/inputs";
import { startHarness, up, type FullProvider, type SimHarness } from "./attachment-helpers";
import { validCreate } from "./instance-cases";
import { instanceProvider } from "../../provider/resources/instance/provider";

const instance = () => providers.Instance as FullProvider;
let h: SimHarness;
const progress: string[] = [];

beforeAll(async () => {
  h = await startHarness();
  resetContext();
  setProgressSink((line) => progress.push(line));
});
afterAll(async () => {
  await h?.close();
});
afterEach(async () => {
  await h.clearFaults();
  replacementsInProgress.clear(); // each case is a new provider process
  objectsOfThisStack.clear();
  forgetPreviewNotes();
});

const named = async (hostname: string) => (await h.state()).instances.filter((i) => i.hostname === hostname);

/** What the real engine does with a create that threw: an error with an id is recorded with its properties. */
async function createAsEngine(inputs: Record<string, unknown>): Promise<{ id: string; outs: InstanceOutputs } | { error: unknown }> {
  const checked = await instance().check({}, inputs);
  expect(checked.failures ?? []).toEqual([]);
  try {
    const created = await instance().create(checked.inputs);
    return { id: created.id, outs: created.outs as InstanceOutputs };
  } catch (error) {
    if (error instanceof ResourceInitError) return { id: error.id, outs: error.properties as InstanceOutputs };
    return { error };
  }
}

describe("ambiguous creates whose reconciliation reads fail", () => {
  it("a create reset after processing, then listings that fail past the client's retries, still yields exactly one VM", async () => {
    await h.setFaults({ resetNext: { operation: "createInstance", afterProcessing: true } });
    // the client retries a read 4 times: 8 failed listings exhaust it twice, the reconciliation keeps reading
    await h.setFaults({ resetNext: { operation: "listInstances", count: 8, afterProcessing: false } });
    const result = await createAsEngine({ ...validCreate, hostname: "amb-list" });
    expect("id" in result).toBe(true);
    const vms = await named("amb-list");
    expect(vms.map((v) => v.uuid)).toEqual([(result as { id: string }).id]);
  });
  // the outcome-unknown message is unit-tested in provider/resources/common/reconcile.test.ts
});

describe("a create whose outcome cannot be checked before its deadline is recorded as unconfirmed, never lost", () => {
  /**
   * The create takes effect (or not) but its connection is reset, and every listing after the first (the one
   * before the send) is reset until the create's 1 s deadline: whether the VM exists cannot be known.
   */
  async function unconfirmedCreate(hostname: string, created: boolean): Promise<{ id: string; outs: InstanceOutputs; message: string }> {
    await h.setFaults({ resetNext: { operation: "createInstance", afterProcessing: created } });
    await h.setFaults({ resetNext: { operation: "listInstances", skip: 1, count: 100_000 } });
    const checked = await instance().check({}, { ...validCreate, hostname, timeouts: { create: "1s" } });
    const error = await instance().create(checked.inputs).then(() => undefined, (e: unknown) => e);
    await h.clearFaults();
    expect(error).toBeInstanceOf(ResourceInitError);
    const { id, properties, message } = error as ResourceInitError;
    expect(id).toMatch(/^unconfirmed-/);
    return { id, outs: properties as InstanceOutputs, message };
  }

  it("the error says it may exist and how it is recorded; refresh then records the VM under its uuid", async () => {
    const unconfirmed = await unconfirmedCreate("unconfirmed-refresh", true);
    expect(unconfirmed.message).toMatch(
      /instance unconfirmed-refresh in location 1 failed ambiguously .* may exist: look for it with getInstances.* recorded in the stack as unconfirmed .*`pulumi refresh` looks for it .*next `pulumi up` deletes it if it exists and creates it anew/,
    );
    const [vm] = await named("unconfirmed-refresh");
    expect(vm).toBeDefined();
    const read = await instance().read(unconfirmed.id, unconfirmed.outs);
    expect(read.id).toBe(vm!.uuid);
    expect(read.props).toMatchObject({ hostname: "unconfirmed-refresh", status: "Running" });
    // from then on it is an ordinary VM of the stack: no change at the next up
    const news = (await instance().check(read.props, { ...validCreate, hostname: "unconfirmed-refresh", timeouts: { create: "1s" } })).inputs;
    expect((await instance().diff(read.id!, read.props, news)).replaces ?? []).toEqual([]);
    expect(await named("unconfirmed-refresh")).toHaveLength(1);
  });

  it("the next up without a refresh deletes it first, then creates one: exactly one VM, recorded", async () => {
    const unconfirmed = await unconfirmedCreate("unconfirmed-up", true);
    const stray = (await named("unconfirmed-up"))[0]!.uuid;
    const news = (await instance().check(unconfirmed.outs, { ...validCreate, hostname: "unconfirmed-up" })).inputs;
    const diff = await instance().diff(unconfirmed.id, unconfirmed.outs, news);
    expect(diff).toMatchObject({ replaces: ["unconfirmedCreate"], deleteBeforeReplace: true });
    await instance().delete(unconfirmed.id, unconfirmed.outs);
    const created = await instance().create(news);
    expect((await named("unconfirmed-up")).map((v) => v.uuid)).toEqual([created.id]);
    expect(created.id).not.toBe(stray);
  });

  it("destroy deletes the VM if it was made; refresh and destroy of one that was not made leave nothing", async () => {
    const made = await unconfirmedCreate("unconfirmed-destroy", true);
    expect(await named("unconfirmed-destroy")).toHaveLength(1);
    await instance().delete(made.id, made.outs);
    expect(await named("unconfirmed-destroy")).toHaveLength(0);

    const notMade = await unconfirmedCreate("unconfirmed-none", false);
    expect(await named("unconfirmed-none")).toHaveLength(0);
    expect(await instance().read(notMade.id, notMade.outs)).toEqual({}); // refresh drops it
    await instance().delete(notMade.id, notMade.outs); // destroy: nothing to delete
  });

  it("an update of an unconfirmed create is refused, naming pulumi refresh", async () => {
    const unconfirmed = await unconfirmedCreate("unconfirmed-update", false);
    await expect(instance().update(unconfirmed.id, unconfirmed.outs, unconfirmed.outs)).rejects.toThrow(/run `pulumi refresh`/);
  });
});

describe("an interrupted up", () => {
  it("a VM created by an up that was interrupted is not duplicated: the next create refuses, naming it and adoptId", async () => {
    // the interrupted up: the API created the VM, the engine never heard back (no id in the state)
    const orphan = await h.client.instances.create({
      locationId: 1, tierId: 2, templateId: 1, hostname: "interrupted", cpu: 2, memory: 4, storage: 40,
      username: "deploy", password: "Blue-Horse-42", usePublicIp: false,
    });
    const mark = h.mark();
    const next = await createAsEngine({ ...validCreate, hostname: "interrupted" });
    expect((next as { error: ProviderError }).error).toBeInstanceOf(ProviderError);
    expect((next as { error: Error }).error.message).toBe(
      `hostname: an instance named interrupted already exists in location 1 (${orphan.uuid}) and this resource does not manage it, ` +
        "so no second one was created. It may be another stack's or someone else's on this account (stacks of one program " +
        "sharing an account need a hostname each, e.g. from stack config or pulumi.getStack()): never adopt those, since " +
        "adopting makes the VM as this Instance declares and this stack's destroy would delete it. " +
        "If another Instance of this stack renames it away in this up, its update came too late: " +
        "if it waits for another resource, give this Instance dependsOn on that Instance; if it depends on this one, do the " +
        "rename in an up of its own first. If it is the old VM of another Instance's replacement that a failed `pulumi up` left " +
        "(the engine deletes it only at the end of an up without errors), run `pulumi up --target <that Instance's urn>` first. " +
        "If you renamed this resource or moved it under a component, add the resource option aliases with its old name or parent. " +
        "If it was left by an interrupted or failed `pulumi up` and no resource of this stack holds it (`pulumi stack export` " +
        `lists their ids), set adoptId: "${orphan.uuid}" on this Instance to manage it (then \`pulumi refresh --clear-pending-creates\` ` +
        "drops Pulumi's warning about the interrupted create, once every VM it names is adopted or deleted). Never adopt a VM " +
        "another resource of this stack declares (with `--target` or `--exclude` the provider cannot tell which those are). " +
        "Otherwise, if it is nobody's, delete it, or choose another hostname. (Replacing an Instance with `pulumi up --replace` " +
        "while keeping its hostname needs the resource option deleteBeforeReplace: true.)",
    );
    expect(h.operationsSince(mark)).not.toContain("createInstance");
    expect(await named("interrupted")).toHaveLength(1);
    // the way out it names works: adopting it (in the next up: a new provider process)
    forgetPreviewNotes();
    const adopted = await createAsEngine({ ...validCreate, hostname: "interrupted", adoptId: orphan.uuid });
    expect(adopted).toMatchObject({ id: orphan.uuid });
  });

  it("a VM of the same hostname in another location is no twin: the create goes ahead", async () => {
    const elsewhere = await h.client.instances.create({
      locationId: 2, tierId: 2, templateId: 1, hostname: "two-cities", cpu: 2, memory: 4, storage: 40,
      username: "deploy", password: "Blue-Horse-42", usePublicIp: false,
    });
    const created = await createAsEngine({ ...validCreate, hostname: "two-cities" });
    expect(created).toMatchObject({ id: expect.any(String) });
    expect((created as { id: string }).id).not.toBe(elsewhere.uuid);
    expect(await named("two-cities")).toHaveLength(2);
  });

  // Adopting the other resource's VM would make two resources own one VM (deleting either deletes the other's):
  // the refusal says it is a clash inside the stack and never advises adoptId.
  it("two resources of one stack declaring the same hostname: the second one's Check refuses it (so the preview); created at once: one VM, the other refused as a clash", async () => {
    const inputs = (await instance().check({}, { ...validCreate, hostname: "twice" })).inputs;
    expect((await instance().check({}, { ...validCreate, hostname: "twice" })).failures).toEqual([{
      property: "hostname",
      reason: "another Instance of this program declares hostname twice in location 1, so the second create would be refused: two " +
        "Instances cannot share a hostname in one location. Give this Instance another hostname. Nothing was changed.",
    }]);
    // the creates' own guard (a backstop, e.g. behind checks that could not tell), both at once
    const createBoth = async () => instance().create(inputs).then((c) => ({ id: c.id }), (error: unknown) => ({ error }));
    const [a, b] = await Promise.all([createBoth(), createBoth()]);
    const vms = await named("twice");
    expect(vms).toHaveLength(1);
    const refused = ("error" in a ? a : b) as { error: Error };
    expect(refused.error.message).toContain(`instance ${vms[0]!.uuid} named twice in location 1 belongs to another resource of this stack`);
    expect(refused.error.message).toContain("Give this Instance another hostname");
    expect(refused.error.message).not.toContain("adoptId");
    expect([a, b].filter((r) => "id" in r)).toEqual([expect.objectContaining({ id: vms[0]!.uuid })]);
  });

  it("a new resource named like a VM of the stack from an earlier up (seen in this deployment's Diff) is refused as a clash", async () => {
    const first = await up<InstanceOutputs>(instance(), { ...validCreate, hostname: "taken" });
    objectsOfThisStack.clear(); // a later deployment: a new provider process
    replacementsInProgress.clear();
    forgetPreviewNotes();
    // the engine diffs the existing resource (the program still declares it), then creates the new one
    const checked = (await instance().check(first.outs, { ...validCreate, hostname: "taken" })).inputs as InstanceInputs;
    expect(await instance().diff(first.id, first.outs, checked)).toMatchObject({ changes: false });
    const second = await createAsEngine({ ...validCreate, hostname: "taken" });
    expect((second as { error: Error }).error.message).toContain(`instance ${first.id} named taken in location 1 belongs to another resource of this stack`);
    expect(await named("taken")).toHaveLength(1);
  });

  it("a create-before-delete replacement that keeps the hostname still works (the old VM is known from Diff)", async () => {
    const old = await up<InstanceOutputs>(instance(), { ...validCreate, hostname: "replaced" });
    const news = (await instance().check(old.outs, { ...validCreate, hostname: "replaced", username: "ops" })).inputs;
    expect((await instance().diff(old.id, old.outs, news)).replaces).toEqual(["username"]);
    const created = await instance().create(news);
    expect(created.id).not.toBe(old.id);
    await instance().delete(old.id, old.outs);
    expect((await named("replaced")).map((v) => v.uuid)).toEqual([created.id]);
  });

  // The option's replaces are added outside the Instance's own diff (common/replace-on-changes.ts); the old VM
  // must be known as replaced there too, or the replacement's create refuses it as a stranger of that name.
  it("a replacement forced by replaceOnChanges that keeps the hostname works too", async () => {
    const old = await up<InstanceOutputs>(instance(), { ...validCreate, hostname: "replaced-by-option" });
    const news = (await instance().check(old.outs, { ...validCreate, hostname: "replaced-by-option", cpu: 4, __replaceOnChanges: ["cpu"] })).inputs;
    expect((await instance().diff(old.id, old.outs, news)).replaces).toEqual(["cpu"]);
    const created = await instance().create(news);
    expect(created.id).not.toBe(old.id);
    await instance().delete(old.id, old.outs);
    expect((await named("replaced-by-option")).map((v) => v.uuid)).toEqual([created.id]);
  });
});

describe("adoption", () => {
  /** The create as it runs when preview could not read the VM (a transient failure there): no preview check. */
  const createUnchecked = async (inputs: Record<string, unknown>): Promise<unknown> => {
    const checked = await (instanceProvider as pulumi.dynamic.ResourceProvider).check!({}, inputs);
    expect(checked.failures ?? []).toEqual([]);
    return instanceProvider.create(checked.inputs as InstanceInputs).then(() => undefined, (e: unknown) => e);
  };

  it("refuses to adopt a VM whose replace-forcing properties differ, at preview, and at create before any write", async () => {
    const vm = await up<InstanceOutputs>(instance(), { ...validCreate, hostname: "adopt-src" });
    forgetDeployment(); // the adopting up: a new provider process
    const inputs = { ...validCreate, hostname: "adopt-src", username: "someone", adoptId: vm.id };
    const mark = h.mark();
    expect((await instance().check({}, inputs)).failures).toEqual([
      { property: "adoptId", reason: expect.stringMatching(/cannot be adopted as declared \(username: the VM's user is "deploy"\)/) },
    ]);
    expect(((await createUnchecked(inputs)) as Error).message).toMatch(/cannot adopt instance .*username: the VM's user is "deploy"/);
    expect(h.operationsSince(mark).every((op) => op?.startsWith("get") || op?.startsWith("list"))).toBe(true);
  });

  it("a refusal names every differing replace-forcing property with the VM's value", async () => {
    const vm = await up<InstanceOutputs>(instance(), { ...validCreate, hostname: "adopt-all-wrong" });
    const error = (await createUnchecked({ ...validCreate, hostname: "adopt-all-wrong", locationId: 2, templateId: 2, username: "someone", adoptId: vm.id })) as Error;
    expect(error.message).toBe(
      `cannot adopt instance ${vm.id} as declared (locationId: the VM is in location 1; templateId: the VM runs template 1; ` +
        `username: the VM's user is "deploy"). An adopted VM is never replaced and disks only grow, so these cannot change: ` +
        "declare the VM's values (or leave them unset). Nothing was changed.",
    );
  });

  it("says that declared sshKeys and backups of an adopted VM are not checked (the API does not show them), and only then", async () => {
    const note = (id: string) =>
      `adopting instance ${id}: the API does not show a VM's ssh keys or backup setting, so the declared sshKeys/backups are recorded as declared but not checked against the VM`;
    const vm = await up<InstanceOutputs>(instance(), { ...validCreate, hostname: "adopt-note" });
    let mark = progress.length;
    await up<InstanceOutputs>(instance(), { adoptId: vm.id, backups: true });
    expect(progress.slice(mark)).toContain(note(vm.id));
    mark = progress.length;
    forgetDeployment(); // another stack's up (one adopter per object in a deployment)
    await up<InstanceOutputs>(instance(), { adoptId: vm.id });
    expect(progress.slice(mark)).not.toContain(note(vm.id));
  });

  it("waits out a running operation before adopting; past the deadline the VM is recorded, the error naming that wait", async () => {
    const vm = await up<InstanceOutputs>(instance(), { ...validCreate, hostname: "adopt-busy" });
    await h.setFaults({ stickNext: { kind: "stop" } });
    await h.client.instances.stop(vm.id);
    forgetDeployment(); // an up of its own: nothing else runs, so the adoption does not wait for others first
    const checked = (await instance().check({}, { adoptId: vm.id, timeouts: { create: "1s" } })).inputs as InstanceInputs;
    const error = await instance().create(checked).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ResourceInitError);
    expect((error as ResourceInitError).id).toBe(vm.id);
    expect((error as Error).message).toMatch(
      new RegExp(`^instance ${vm.id} was adopted, but waiting for it to be idle failed: timed out after .* waiting for instance ${vm.id} \\(adopted\\) to be idle \\(last status seen: stopping.*It is recorded in the stack`),
    );
    // the next up (init errors force an update) finds it idle once the operation ended
    await h.admin("POST", `/instances/${vm.id}/finish-operation`, {});
    const outs = (error as ResourceInitError).properties as unknown as InstanceOutputs;
    const updated = (await instance().update(vm.id, outs, checked)).outs as InstanceOutputs;
    expect(updated.status).toBe("Stopped");
  });

  it("never replaces an adopted VM: the diff refuses, naming the property and the ways out, and the VM stays", async () => {
    const vm = await up<InstanceOutputs>(instance(), { ...validCreate, hostname: "adopt-keep" });
    const adopted = await up<InstanceOutputs>(instance(), { adoptId: vm.id, hostname: "adopt-keep" });
    expect(adopted.id).toBe(vm.id);
    forgetDeployment(); // the next up: a new provider process
    const news = (await instance().check(adopted.outs, { adoptId: vm.id, hostname: "adopt-keep", username: "other" })).inputs;
    await expect(instance().diff(adopted.id, adopted.outs, news)).rejects.toThrow(/adopted .*username .*never replaced.*remove adoptId/);
    expect(await h.instance(vm.id)).toBeDefined();
  });

  it("says that ssh keys of an adopted VM cannot be checked", async () => {
    const vm = await up<InstanceOutputs>(instance(), { ...validCreate, hostname: "adopt-keys" });
    progress.length = 0;
    await up(instance(), { adoptId: vm.id, sshKeys: ["ssh-ed25519 AAAAC3Nz me@laptop"] });
    expect(progress.join("\n")).toMatch(/does not show a VM's ssh keys/);
  });
});

describe("a VM in status Error", () => {
  it("after a failed create, the next up repairs it (starts it) instead of reporting success", async () => {
    await h.setFaults({ failNext: { kind: "create" } });
    const recorded = (await createAsEngine({ ...validCreate, hostname: "err-repair" })) as { id: string; outs: InstanceOutputs };
    expect(recorded.outs.status).toBe("Error");
    const news = (await instance().check(recorded.outs, { ...validCreate, hostname: "err-repair" })).inputs;
    expect(await instance().diff(recorded.id, recorded.outs, news)).toMatchObject({ changes: true, replaces: [] });
    const mark = progress.length;
    const updated = await instance().update(recorded.id, recorded.outs, news);
    expect(progress.slice(mark)).toContain(`instance ${recorded.id} (in status Error) to be started again`);
    expect(updated.outs).toMatchObject({ status: "Running" });
    expect(await h.instance(recorded.id)).toMatchObject({ status: "Running" });
  });

  it("when starting does not repair it, the update fails naming ways out that work", async () => {
    await h.setFaults({ failNext: { kind: "create" } });
    const recorded = (await createAsEngine({ ...validCreate, hostname: "err-stuck" })) as { id: string; outs: InstanceOutputs };
    await h.setFaults({ failNext: { kind: "start" } });
    const news = (await instance().check(recorded.outs, { ...validCreate, hostname: "err-stuck" })).inputs;
    const error = await instance().update(recorded.id, recorded.outs, news).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResourceInitError);
    expect((error as Error).message).toMatch(/status Error and starting it did not repair it.*pulumi up --replace.*pulumi destroy/);
    // The failed start stays reachable as the cause (for the debug log and programs that inspect errors).
    expect(((error as Error).cause as Error).cause).toBeInstanceOf(Error);
    expect((((error as Error).cause as Error).cause as Error).message).toMatch(/status Error/);
    // and destroy still works
    await instance().delete(recorded.id, (error as ResourceInitError).properties);
    expect(await h.instance(recorded.id)).toBeUndefined();
  });

  it("an update of a VM that fell into Error since the last up (the state shows it well) repairs it first, then does its step", async () => {
    // update audit: the step went to the broken VM and the up failed, asking for another up to start it (an operation of
    // a killed up that failed afterwards leaves exactly this: the state from before, the VM in Error)
    const vm = await up<InstanceOutputs>(instance(), { ...validCreate, hostname: "err-later" });
    await h.admin("PATCH", `/instances/${vm.id}`, { status: "Error" });
    const news = (await instance().check(vm.outs, { ...validCreate, hostname: "err-later", tierId: 3 })).inputs;
    const mark = h.mark();
    expect((await instance().update(vm.id, vm.outs, news)).outs).toMatchObject({ status: "Running", tierId: 3 });
    expect(h.operationsSince(mark).filter((o) => o === "startInstance" || o === "changeTier")).toEqual(["startInstance", "changeTier"]);
    expect(await h.instance(vm.id)).toMatchObject({ status: "Running", tierId: 3 });
  });

  it("an update of a VM that fell into Error since the last up, where starting it does not repair it: fails naming the ways out, nothing else sent", async () => {
    const vm = await up<InstanceOutputs>(instance(), { ...validCreate, hostname: "err-later-stuck" });
    await h.admin("PATCH", `/instances/${vm.id}`, { status: "Error" });
    await h.setFaults({ failNext: { kind: "start", count: 1 } });
    const news = (await instance().check(vm.outs, { ...validCreate, hostname: "err-later-stuck", tierId: 3 })).inputs;
    const mark = h.mark();
    const error = await instance().update(vm.id, vm.outs, news).catch((e: unknown) => e);
    await h.clearFaults();
    expect(error).toBeInstanceOf(ResourceInitError);
    expect((error as Error).message).toMatch(/status Error and starting it did not repair it.*pulumi up --replace.*pulumi destroy/);
    expect(h.operationsSince(mark)).not.toContain("changeTier");
    expect((error as ResourceInitError).properties).toMatchObject({ status: "Error", tierId: 2 });
  });

  it("its address, network, disk, rules and snapshots can still be deleted", async () => {
    const vm = await up<InstanceOutputs>(instance(), { ...validCreate, hostname: "err-deps" });
    const state = await h.state();
    const vswitch = state.vswitches.find((v) => v.locationId === 1)!;
    const disk = state.blockStorages.find((d) => d.locationId === 1 && d.instanceUuid === null)!;
    const ip = await up(providers.PublicIp as FullProvider, { instanceId: vm.id });
    const net = await up(providers.VswitchAttachment as FullProvider, { instanceId: vm.id, vswitchId: vswitch.uuid });
    const bsa = await up(providers.BlockStorageAttachment as FullProvider, { instanceId: vm.id, blockStorageId: disk.uuid });
    const rule = await up(providers.FirewallRule as FullProvider, { instanceId: vm.id, protocol: "tcp", port: "22", sourceIp: "10.0.0.0/8", action: "accept" });
    const snap = await up(providers.Snapshot as FullProvider, { instanceId: vm.id, name: "before-error" });
    await h.outOfBand(vm.id, { status: "Error" });
    forgetDeployment(); // the deletes are a later deployment's (pulumi destroy): a new provider process
    await Promise.all([
      (providers.PublicIp as FullProvider).delete(ip.id, ip.outs),
      (providers.VswitchAttachment as FullProvider).delete(net.id, net.outs),
      (providers.BlockStorageAttachment as FullProvider).delete(bsa.id, bsa.outs),
      (providers.FirewallRule as FullProvider).delete(rule.id, rule.outs),
      (providers.Snapshot as FullProvider).delete(snap.id, snap.outs),
    ]);
    const after = await h.instance(vm.id);
    expect(after).toMatchObject({ status: "Error", publicIpUuid: null, vswitchUuid: null, blockStorageIds: [] });
    expect((await h.client.snapshots.list(vm.id)).map((s) => s.id)).not.toContain(snap.id);
    await instance().delete(vm.id, vm.outs);
    expect(await h.instance(vm.id)).toBeUndefined();
  });
});

/** A VM made with `publicIp: true`, then updated to `false`: the address it took off is remembered as reserved. */
async function withAddressTakenOff(hostname: string): Promise<{ vm: { id: string; outs: InstanceOutputs }; first: string; outs: InstanceOutputs }> {
  const vm = await up<InstanceOutputs>(instance(), { ...validCreate, hostname, publicIp: true });
  const first = vm.outs.publicIpId!;
  const off = (await instance().check(vm.outs, { ...validCreate, hostname, publicIp: false })).inputs;
  const outs = (await instance().update(vm.id, vm.outs, off)).outs as InstanceOutputs;
  expect(outs.reservedPublicIpId).toBe(first);
  return { vm, first, outs };
}

describe("publicIp toggling", () => {
  it("true -> false -> true reuses the reserved address, and delete releases it: nothing piles up", async () => {
    const reservedBefore = (await h.state()).publicIps.filter((p) => p.instanceUuid === null).length;
    const vm = await up<InstanceOutputs>(instance(), { ...validCreate, hostname: "toggle", publicIp: true });
    const first = vm.outs.publicIpId;
    let outs = vm.outs;
    for (const publicIp of [false, true, false, true]) {
      const news = (await instance().check(outs, { ...validCreate, hostname: "toggle", publicIp })).inputs;
      outs = (await instance().update(vm.id, outs, news)).outs as InstanceOutputs;
    }
    expect(outs.publicIpId).toBe(first);
    expect(outs.reservedPublicIpId).toBeUndefined();
    expect((await h.state()).publicIps.filter((p) => p.instanceUuid === null).length).toBe(reservedBefore);
    // removed last, then the VM deleted: the reserved address goes with it
    const news = (await instance().check(outs, { ...validCreate, hostname: "toggle", publicIp: false })).inputs;
    outs = (await instance().update(vm.id, outs, news)).outs as InstanceOutputs;
    expect(outs.reservedPublicIpId).toBe(first);
    // taking the address back before the delete survives failures past the client's own retries
    await h.setFaults({ resetNext: { operation: "changePublicIp", count: 6, afterProcessing: false } });
    await instance().delete(vm.id, outs);
    const ips = (await h.state()).publicIps;
    expect(ips.find((p) => p.uuid === first)).toBeUndefined();
    expect(ips.filter((p) => p.instanceUuid === null).length).toBe(reservedBefore);
  });
});

describe("publicIp: the VM's own address swapped for a reserved one in the panel", () => {
  it("refresh remembers its own address, and delete releases it (the panel's goes back to the account reserved, as it was)", async () => {
    const vm = await up<InstanceOutputs>(instance(), { ...validCreate, hostname: "panel-swap", publicIp: true });
    const own = vm.outs.publicIpId!;
    const theirs = (await h.state()).publicIps.find((p) => p.locationId === 1 && p.seeded && p.instanceUuid === null)!.uuid;
    await h.outOfBand(vm.id, { publicIp: theirs });
    const refreshed = (await instance().read(vm.id, vm.outs)).props as InstanceOutputs;
    expect(refreshed).toMatchObject({ publicIpId: theirs, reservedPublicIpId: own });
    const mark = progress.length;
    await instance().delete(vm.id, refreshed);
    const ips = (await h.state()).publicIps;
    expect(ips.find((p) => p.uuid === own)).toBeUndefined(); // released with the VM
    expect(ips.find((p) => p.uuid === theirs)).toMatchObject({ instanceUuid: null }); // reserved again, as before
    expect(progress.slice(mark).join("\n")).toContain(`instance ${vm.id} holds address`);
  });
});

describe("addresses nothing can release any more are named, not hidden (the API releases an address only with its VM)", () => {
  it("a VM deleted in the panel while it kept an address reserved: refresh drops it and names the address", async () => {
    const { vm, first, outs } = await withAddressTakenOff("kept-then-deleted");
    await h.outOfBand(vm.id, { deleted: true });
    const mark = progress.length;
    expect(await instance().read(vm.id, outs)).toEqual({});
    expect(progress.slice(mark).join("\n")).toContain(`the public address ${first} it kept reserved stays in your account`);
  });

  it("a second address taken off (given in the panel while one is kept): it comes off, and the up names it", async () => {
    const { vm, first, outs } = await withAddressTakenOff("second-address");
    await h.outOfBand(vm.id, { publicIp: true });
    const refreshed = (await instance().read(vm.id, outs)).props as InstanceOutputs;
    const second = refreshed.publicIpId!;
    const mark = progress.length;
    const news = (await instance().check(refreshed, { ...validCreate, hostname: "second-address", publicIp: false })).inputs;
    const updated = (await instance().update(vm.id, refreshed, news)).outs as InstanceOutputs;
    expect(updated).toMatchObject({ publicIpId: null, reservedPublicIpId: first });
    expect(progress.slice(mark).join("\n")).toContain(`(${second}) comes off and stays reserved in your account`);
  });
});

describe("publicIp toggling when the reserved address is no longer ours to use", () => {
  /** A VM whose address this resource took off (so it is remembered as reserved), and that address taken by another VM. */
  async function reservedThenTaken(hostname: string): Promise<{ id: string; outs: InstanceOutputs; first: string }> {
    const { vm, first, outs } = await withAddressTakenOff(hostname);
    const other = await up<InstanceOutputs>(instance(), { ...validCreate, hostname: `${hostname}-other` });
    await h.outOfBand(other.id, { publicIp: first });
    return { id: vm.id, outs, first };
  }

  it("publicIp: true again adds a new address, saying why the earlier one could not be reused", async () => {
    const vm = await reservedThenTaken("reuse-taken");
    const mark = progress.length;
    const news = (await instance().check(vm.outs, { ...validCreate, hostname: "reuse-taken", publicIp: true })).inputs;
    const outs = (await instance().update(vm.id, vm.outs, news)).outs as InstanceOutputs;
    expect(outs.publicIpId).not.toBe(vm.first);
    expect(outs.publicIpId).toBeTruthy();
    expect(outs.reservedPublicIpId).toBeUndefined();
    expect(progress.slice(mark).find((l) => l.startsWith(`instance ${vm.id}: its earlier public address ${vm.first} cannot be reused (`))).toMatch(
      /\); adding a new one$/,
    );
  });

  it("delete goes ahead when the reserved address is held by another VM (no longer this one's to release), saying so", async () => {
    const vm = await reservedThenTaken("release-taken");
    const mark = progress.length;
    await instance().delete(vm.id, vm.outs);
    expect(await h.instance(vm.id)).toBeUndefined();
    expect(progress.slice(mark).find((l) => l.startsWith(`instance ${vm.id}: its reserved address ${vm.first} is no longer this VM's to take back (`))).toMatch(
      /\): released, or held by another VM; deleting the VM without it$/,
    );
    expect((await h.state()).publicIps.find((p) => p.uuid === vm.first)).toMatchObject({ instanceUuid: expect.any(String) });
  });

  it("delete fails, keeping the VM, when the reserved address cannot be taken back before the deadline; the next destroy releases it", async () => {
    const { vm, first, outs } = await withAddressTakenOff("takeback-fails");
    // every take-back fails as the client reports resets that outlast its retries (the simulator's `resetNext`
    // does this too, but the client's real backoff makes each attempt take seconds)
    const details = { operation: "changePublicIp", method: "PATCH" as const, path: "/instance/{instance_uuid}/ip/change" };
    const spy = jest.spyOn(getClient().network, "changePublicIp").mockRejectedValue(new NetworkError({ ...details, code: "UND_ERR_SOCKET", retries: 4 }));
    const mark = h.mark();
    const error = await instance().delete(vm.id, { ...outs, timeouts: { delete: "1s" } }).catch((e: unknown) => e);
    expect(spy).toHaveBeenCalled();
    spy.mockRestore();
    expect((error as Error).message).toMatch(
      new RegExp(`^instance ${vm.id} was not deleted: the address ${first} it held earlier is still reserved in the account .*Run \`pulumi destroy\` again when the API answers; .*removePublicIp: false`),
    );
    expect(h.operationsSince(mark)).not.toContain("deleteInstance");
    expect(await h.instance(vm.id)).toBeDefined();
    expect((await h.state()).publicIps.find((p) => p.uuid === first)).toMatchObject({ instanceUuid: null });
    // the state still holds the VM (a delete that failed): the next destroy takes the address back and releases it
    await instance().delete(vm.id, outs);
    expect(await h.instance(vm.id)).toBeUndefined();
    expect((await h.state()).publicIps.find((p) => p.uuid === first)).toBeUndefined();
  });

  it("reusing the reserved address says so; a refusal other than 'not usable' stops the update instead of adding another address", async () => {
    const { vm, first, outs } = await withAddressTakenOff("reuse-says");
    const on = (await instance().check(outs, { ...validCreate, hostname: "reuse-says", publicIp: true })).inputs;
    // the host fails the reuse for another reason (an outage): no second address is added behind the user's back
    const spy = jest.spyOn(getClient().network, "changePublicIp").mockRejectedValue(new Error("the host is down"));
    const mark = h.mark();
    const error = await instance().update(vm.id, outs, on).catch((e: unknown) => e);
    spy.mockRestore();
    expect((error as Error).message).toContain("the host is down");
    expect(h.operationsSince(mark)).not.toContain("addPublicIp");
    const before = progress.length;
    const back = (await instance().update(vm.id, outs, on)).outs as InstanceOutputs;
    expect(back.publicIpId).toBe(first);
    expect(progress.slice(before)).toContain(`instance ${vm.id}: reusing its earlier public address ${first}`);
  });

  it("a state that remembers a reserved address the VM holds again (assigned back outside Pulumi) reads without it", async () => {
    const { vm, first, outs } = await withAddressTakenOff("reserved-back");
    await h.outOfBand(vm.id, { publicIp: first });
    const read = await instance().read(vm.id, outs);
    expect(read.props).toMatchObject({ publicIpId: first });
    expect(read.props).not.toHaveProperty("reservedPublicIpId");
  });

  it("delete of a VM already gone, with a reserved address remembered, is done", async () => {
    const vm = await up<InstanceOutputs>(instance(), { ...validCreate, hostname: "gone-reserved", publicIp: true });
    const news = (await instance().check(vm.outs, { ...validCreate, hostname: "gone-reserved", publicIp: false })).inputs;
    const outs = (await instance().update(vm.id, vm.outs, news)).outs as InstanceOutputs;
    await h.outOfBand(vm.id, { deleted: true });
    const mark = h.mark();
    await expect(instance().delete(vm.id, outs)).resolves.toBeUndefined();
    expect(h.operationsSince(mark)).not.toContain("deleteInstance");
  });
});

describe("deadlines", () => {
  it("waiting behind another operation on the same VM ends by the resource's deadline, naming timeouts.update", async () => {
    const vm = await up<InstanceOutputs>(instance(), { ...validCreate, hostname: "lock-wait" });
    let release!: () => void;
    const held = instanceLock.run(vm.id, () => new Promise<void>((resolve) => (release = resolve)));
    const news = (await instance().check(vm.outs, { ...validCreate, hostname: "lock-wait", cpu: 4, timeouts: { update: "200ms" } })).inputs;
    const error = await instance().update(vm.id, vm.outs, news).catch((e: unknown) => e);
    release();
    await held;
    expect((error as Error).message).toMatch(/timed out after \d+ms waiting for .*other operations on the same instance.*raise timeouts\.update/);
    // the queue behind it still works
    const later = await instance().update(vm.id, vm.outs, { ...news, timeouts: undefined });
    expect(later.outs).toMatchObject({ cpu: 4 });
  });

  it("a delete's timeout hint names timeouts.delete", async () => {
    const vm = await up<InstanceOutputs>(instance(), { ...validCreate, hostname: "del-stuck" });
    await h.setFaults({ stickNext: { kind: "delete" } });
    const error = await instance().delete(vm.id, { ...vm.outs, timeouts: { delete: "300ms" } }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/raise timeouts\.delete/);
  });
});

describe("an address the Instance takes off is never forgotten, however the call ends", () => {
  /** The program's inputs for the VM `hostname`, checked against the state `olds`. */
  const program = async (olds: unknown, hostname: string, extra: Record<string, unknown>) =>
    (await instance().check(olds, { ...validCreate, hostname, ...extra })).inputs;

  /** Update as the engine does: on an error with properties, those become the state (a partial failure). */
  async function updateAsEngine(id: string, olds: InstanceOutputs, news: unknown): Promise<InstanceOutputs> {
    try {
      return (await instance().update(id, olds, news)).outs as InstanceOutputs;
    } catch (error) {
      expect(error).toBeInstanceOf(ResourceInitError);
      return (error as ResourceInitError).properties as InstanceOutputs;
    }
  }

  /** The host does the address change, then the answer is a server error (a gateway that gave up on a backend that did the work). */
  function changePublicIpAnswersErrorAfterDoingIt(): jest.SpyInstance {
    const network = getClient().network;
    const real = network.changePublicIp.bind(network);
    return jest.spyOn(network, "changePublicIp").mockImplementationOnce(async (...args) => {
      await real(...args);
      throw new Error("Server Error (502 from the gateway)");
    });
  }

  const addressExists = async (uuid: string) => (await h.state()).publicIps.some((p) => p.uuid === uuid);

  it("publicIp false done by the host but answered with a server error: the state remembers the address and destroy releases it", async () => {
    const vm = await up<InstanceOutputs>(instance(), { ...validCreate, hostname: "off-5xx", publicIp: true });
    const first = vm.outs.publicIpId!;
    const spy = changePublicIpAnswersErrorAfterDoingIt();
    const recorded = await updateAsEngine(vm.id, vm.outs, await program(vm.outs, "off-5xx", { publicIp: false }));
    spy.mockRestore();
    expect(await h.instance(vm.id)).toMatchObject({ publicIpUuid: null });
    expect(await addressExists(first)).toBe(true); // reserved in the account, billing
    await instance().delete(vm.id, recorded);
    expect(await addressExists(first)).toBe(false);
  });

  it("publicIp false done by the host whose answers were lost to resets past the client's retries: destroy releases the address", async () => {
    const vm = await up<InstanceOutputs>(instance(), { ...validCreate, hostname: "off-lost", publicIp: true });
    const first = vm.outs.publicIpId!;
    const network = getClient().network;
    const real = network.changePublicIp.bind(network);
    // what the client reports once resets after the work outlast its retries (`resetNext` with afterProcessing
    // does the same against the simulator, but the client's real backoff takes seconds)
    const details = { operation: "changePublicIp", method: "PATCH" as const, path: "/instance/{instance_uuid}/ip/change" };
    const spy = jest.spyOn(network, "changePublicIp").mockImplementationOnce(async (...args) => {
      await real(...args);
      throw new NetworkError({ ...details, code: "UND_ERR_SOCKET", retries: 4 });
    });
    const outs = await updateAsEngine(vm.id, vm.outs, await program(vm.outs, "off-lost", { publicIp: false }));
    spy.mockRestore();
    expect(await h.instance(vm.id)).toMatchObject({ publicIpUuid: null });
    await instance().delete(vm.id, outs);
    expect(await addressExists(first)).toBe(false);
  });

  it("an up killed right after the host took the address off: the next up skips the done step, still remembers the address, and destroy releases it", async () => {
    const vm = await up<InstanceOutputs>(instance(), { ...validCreate, hostname: "off-killed", publicIp: true });
    const first = vm.outs.publicIpId!;
    // the killed run's write; the engine keeps the old state (publicIp true, the address)
    await h.client.network.changePublicIp(vm.id, { publicNetwork: null });
    const mark = h.mark();
    const outs = await updateAsEngine(vm.id, vm.outs, await program(vm.outs, "off-killed", { publicIp: false }));
    expect(h.operationsSince(mark)).not.toContain("changePublicIp"); // already done: skipped
    await instance().delete(vm.id, outs);
    expect(await addressExists(first)).toBe(false);
  });

  it("an up killed right after the host took the address off, then destroy (no up between): the address is released with the VM", async () => {
    const vm = await up<InstanceOutputs>(instance(), { ...validCreate, hostname: "off-killed-destroy", publicIp: true });
    const first = vm.outs.publicIpId!;
    await h.client.network.changePublicIp(vm.id, { publicNetwork: null }); // the killed run's write
    await instance().delete(vm.id, vm.outs); // the engine's state: the old outputs
    expect(await h.instance(vm.id)).toBeUndefined();
    expect(await addressExists(first)).toBe(false);
  });

  it("destroy never claims an address the Instance does not manage (publicIp unset: a PublicIp resource's)", async () => {
    const vm = await up<InstanceOutputs>(instance(), { ...validCreate, hostname: "unmanaged-destroy" });
    const ip = await up<{ publicIpId?: string }>(providers.PublicIp as FullProvider, { instanceId: vm.id });
    const read = await instance().read(vm.id, vm.outs);
    await (providers.PublicIp as FullProvider).delete(ip.id, ip.outs); // leaves its address reserved, as documented
    const mark = h.mark();
    await instance().delete(vm.id, read.props);
    expect(h.operationsSince(mark)).not.toContain("changePublicIp");
    expect(await addressExists(ip.id)).toBe(true);
  });

  it("a swap from the VM's own address to a reserved one, answered with a server error after the host did it, still releases the VM's own address", async () => {
    const vm = await up<InstanceOutputs>(instance(), { ...validCreate, hostname: "swap-5xx", publicIp: true });
    const own = vm.outs.publicIpId!;
    const reserved = (await h.state()).publicIps.find((p) => p.locationId === 1 && p.seeded && p.instanceUuid === null)!.uuid;
    const spy = changePublicIpAnswersErrorAfterDoingIt();
    const swapped = await updateAsEngine(vm.id, vm.outs, await program(vm.outs, "swap-5xx", { publicNetworkId: reserved }));
    spy.mockRestore();
    expect(await h.instance(vm.id)).toMatchObject({ publicIpUuid: reserved });
    // then the program drops the address, and the stack is destroyed: the VM's own address goes; the reserved
    // address the program named stays in the account, unassigned, as it was before this stack used it
    const off = await updateAsEngine(vm.id, swapped, await program(swapped, "swap-5xx", { publicIp: false }));
    await instance().delete(vm.id, off);
    expect(await addressExists(own)).toBe(false);
    expect((await h.state()).publicIps.find((p) => p.uuid === reserved)).toMatchObject({ instanceUuid: null });
  });
});
