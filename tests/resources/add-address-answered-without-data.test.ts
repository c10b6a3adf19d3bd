/**
 * An Instance's address add (`addPublicIp`) that a host answers `200 {data: null}` after doing it, or at once with the
 * address added a moment later (a queued write): the VM holds a new address the stack made. Found by the soak's host
 * profiles (seed hD-16, create-without-id(queued)): the clone's address add failed "unexpected response format", and
 * the address, never recorded as the stack's, stayed reserved in no state after the VM's delete. Judged by the
 * simulator's state.
 */
import "./instance-env";
import { providers } from "../../provider";
import { forgetDeployment } from "../../provider/registry";
import { harnessSuite, type FullProvider } from "./attachment-helpers";
import { validCreate } from "./instance-cases";

const instance = providers.Instance as FullProvider;
const h = harnessSuite();
afterEach(() => h().clearFaults());

/** Creates from `inputs`: the VM holds an address, and the address is the stack's (the VM's delete releases it). */
async function expectCreatedWithOwnAddress(inputs: Record<string, unknown>): Promise<void> {
  const created = await instance.create(inputs);
  forgetDeployment();
  const vm = (await h().state()).instances.find((i) => i.uuid === created.id)!;
  expect(vm.publicIpUuid).not.toBeNull();
  await instance.delete(created.id, created.outs);
  expect((await h().state()).publicIps.filter((p) => p.uuid === vm.publicIpUuid)).toEqual([]);
}

/** The address the simulator gives VM `id` a moment after an add it queued (null if none came within about 10 s). */
async function lateAddressOf(id: string): Promise<string | null> {
  let held: string | null = null;
  for (let i = 0; i < 200 && held === null; i++) {
    held = (await h().state()).instances.find((v) => v.uuid === id)!.publicIpUuid;
    if (held === null) await new Promise((r) => setTimeout(r, 50));
  }
  return held;
}

it("addPublicIp answered data null after it took effect: the Instance update is done, once", async () => {
  const hostname = "ack-addpublicip";
  const checked = await instance.check({}, { ...validCreate, hostname });
  const created = await instance.create(checked.inputs);
  forgetDeployment();
  await h().setFaults({ respondNext: { operation: "addPublicIp", status: 200, data: null, message: "Sedang diproses.", afterProcessing: true } });
  const news = (await instance.check(created.outs, { ...validCreate, hostname, publicIp: true })).inputs;
  const mark = h().mark();
  const updated = await instance.update(created.id, created.outs, news);
  forgetDeployment();
  const vm = (await h().state()).instances.find((i) => i.uuid === created.id)!;
  expect(vm.publicIpUuid).not.toBeNull();
  expect((updated.outs as { publicIp: boolean }).publicIp).toBe(true);
  expect(h().operationsSince(mark).filter((o) => o === "addPublicIp")).toHaveLength(1);
  // the address is the stack's: the VM's delete releases it (nothing left reserved in no state)
  await instance.delete(created.id, updated.outs);
  const left = (await h().state()).publicIps.filter((p) => p.uuid === vm.publicIpUuid);
  expect(left).toEqual([]);
});

it.each([
  ["after it took effect", { afterProcessing: true }],
  ["at once, the address added 0.5 s later", { effectAfterMs: 500 }],
])("a create with publicIp whose addPublicIp is answered data null %s: the VM is created with its address, which is the stack's", async (_label, how) => {
  const hostname = `ack-add-${Object.keys(how)[0]!.toLowerCase()}`;
  const checked = await instance.check({}, { ...validCreate, hostname, publicIp: true });
  await h().setFaults({ respondNext: { operation: "addPublicIp", status: 200, data: null, message: "Sedang diproses.", ...how } });
  await expectCreatedWithOwnAddress(checked.inputs);
});

it.each([
  ["after it took effect", { afterProcessing: true }],
  ["at once, made 0.5 s later", { effectAfterMs: 500 }],
])("a clone with publicIp, its clone and address add answered data null %s: the clone has its address, the stack's", async (_label, how) => {
  const source = await h().newInstance(`ack-src-${Object.keys(how)[0]!.toLowerCase()}`);
  const hostname = `ack-clone-${Object.keys(how)[0]!.toLowerCase()}`;
  const checked = await instance.check({}, { hostname, locationId: 1, tierId: 1, cloneFrom: source, publicIp: true });
  expect(checked.failures ?? []).toEqual([]);
  for (const operation of ["cloneInstance", "addPublicIp"]) await h().setFaults({ respondNext: { operation, status: 200, data: null, message: "Sedang diproses.", ...how } });
  await expectCreatedWithOwnAddress(checked.inputs);
});

it("an address add refused in a 200 (no address ever shows) fails after the looks, not at the deadline, sent once", async () => {
  const hostname = "ack-add-refused";
  const checked = await instance.check({}, { ...validCreate, hostname });
  const created = await instance.create(checked.inputs);
  forgetDeployment();
  // (canned, not processed: the host refused it in a 200)
  await h().setFaults({ respondNext: { operation: "addPublicIp", status: 200, data: null, message: "Kuota IP habis." } });
  const news = (await instance.check(created.outs, { ...validCreate, hostname, publicIp: true, timeouts: { update: "30m" } })).inputs;
  const mark = h().mark();
  // (a look until the 30-minute deadline would outlast this test's own timeout)
  const failure = await instance.update(created.id, created.outs, news).then(() => undefined, (e: unknown) => e as Error);
  forgetDeployment();
  expect(failure?.message).toContain("Kuota IP habis.");
  expect(h().operationsSince(mark).filter((o) => o === "addPublicIp")).toHaveLength(1);
  expect((await h().state()).instances.find((i) => i.uuid === created.id)!.publicIpUuid).toBeNull();
  await instance.delete(created.id, created.outs);
});

it.each([
  ["during its looks for it", {}],
  ["before the VM was seen idle after the answer (a slow host)", { latencyMs: 900 }],
])("an address add answered data null whose address comes after the update gave up (%s) is still the stack's: the VM's delete releases it", async (label, slow) => {
  // soak stop15b-37, stop15d-9: the failed step recorded "the API gave no address" (madePublicIpId null) while the host
  // had taken the add; the address that came later was then never the stack's, and the destroy left it reserved in no state.
  const hostname = `ack-add-late-${label.length}`;
  const created = await instance.create((await instance.check({}, { ...validCreate, hostname })).inputs);
  forgetDeployment();
  await h().setFaults({ respondNext: { operation: "addPublicIp", status: 200, data: null, message: "Sedang diproses.", effectAfterMs: 4_000 }, ...slow });
  const news = (await instance.check(created.outs, { ...validCreate, hostname, publicIp: true, timeouts: { update: "2s" } })).inputs;
  const failure = (await instance.update(created.id, created.outs, news).then(() => undefined, (e: unknown) => e)) as { properties?: Record<string, unknown> } | undefined;
  expect(failure?.properties).toBeDefined();
  await h().clearFaults();
  forgetDeployment();
  const held = await lateAddressOf(created.id);
  expect(held).not.toBeNull();
  await instance.delete(created.id, failure!.properties!);
  expect((await h().state()).publicIps.filter((p) => p.uuid === held)).toEqual([]);
});

it("an address add answered data null whose address comes after the update gave up: a program then declaring publicIp: false removes it", async () => {
  // soak stop17d-176: the failed step recorded the VM without an address (publicIp false) and no publicIpId (not known);
  // read as none, publicIp: false planned nothing, and the address that came later stayed after an up that succeeded.
  const hostname = "ack-add-late-then-none";
  const created = await instance.create((await instance.check({}, { ...validCreate, hostname })).inputs);
  forgetDeployment();
  await h().setFaults({ respondNext: { operation: "addPublicIp", status: 200, data: null, message: "Sedang diproses.", effectAfterMs: 4_000 } });
  const news = (await instance.check(created.outs, { ...validCreate, hostname, publicIp: true, timeouts: { update: "2s" } })).inputs;
  const failure = (await instance.update(created.id, created.outs, news).then(() => undefined, (e: unknown) => e)) as { properties?: Record<string, unknown> } | undefined;
  const recorded = failure!.properties!;
  expect(recorded).toMatchObject({ publicIp: false });
  await h().clearFaults();
  forgetDeployment();
  const held = await lateAddressOf(created.id);
  expect(held).not.toBeNull();
  const none = (await instance.check(recorded, { ...validCreate, hostname, publicIp: false })).inputs;
  expect((await instance.diff(created.id, recorded, none)).changes).toBe(true);
  const updated = await instance.update(created.id, recorded, none);
  forgetDeployment();
  expect(updated.outs).toMatchObject({ publicIp: false, ipAddress: null });
  expect((await h().state()).instances.find((v) => v.uuid === created.id)!.publicIpUuid).toBeNull();
  await instance.delete(created.id, updated.outs);
  // (the address the add made is the stack's: kept reserved by the remove, released with the VM)
  expect((await h().state()).publicIps.filter((p) => p.uuid === held)).toEqual([]);
});
