/**
 * One attachment, one owner (common/attachment-owners.ts; audit F1): a second BlockStorageAttachment of the same disk
 * on the same VM, or a VswitchAttachment on a VM whose Instance declares vswitchId, is refused instead of "created"
 * with no write (removing either owner later undid what the other declared). The take-over that a retried up needs
 * (an up interrupted right after the attach) keeps working, logged; so does a replacement created before the old
 * one is deleted. The registry's providers (every wrapper) against the simulator; engine order: Check, Diff of each
 * resource the program still declares, creates, then the deletes of what it no longer declares.
 */
process.env.VMHOST_POLL_FAST_MS ??= "20";
process.env.VMHOST_POLL_MAX_MS ??= "200";
import type * as pulumi from "@pulumi/pulumi";
import { providers } from "../../provider";
import { forgetDeployment } from "../../provider/registry";
import { deploymentActivity } from "../../provider/resources/common/activity";
import { harnessSuite, progressSuite, until, type SimState } from "./attachment-helpers";
import { validCreate } from "./instance-cases";

jest.setTimeout(120_000);
type P = Required<pulumi.dynamic.ResourceProvider>;
const bsa = () => providers.BlockStorageAttachment as P;
const vsa = () => providers.VswitchAttachment as P;
const instance = () => providers.Instance as P;
const harness = harnessSuite();
const said = progressSuite();
afterEach(async () => {
  forgetDeployment();
  // three disks in location 1: the VMs a test left holding one are deleted out of band (their disks detached)
  for (const b of (await harness().state()).blockStorages.filter((d) => d.instanceUuid !== null))
    await harness().outOfBand(b.instanceUuid!, { deleted: true });
});

const checked = async (p: P, news: Record<string, unknown>, olds: Record<string, unknown> = {}) => {
  const r = await p.check(olds, news);
  expect(r.failures ?? []).toEqual([]);
  return r.inputs as Record<string, unknown>;
};
/** A new resource in this deployment: Check without olds, then Create. */
const create = async (p: P, news: Record<string, unknown>) => p.create(await checked(p, news));
/** An existing resource the program still declares: Check with its olds, then Diff. */
const diffed = async (p: P, id: string, outs: Record<string, unknown>, news: Record<string, unknown>) =>
  p.diff(id, outs, await checked(p, news, outs));
const writes = (mark: number) => harness().methodsSince(mark).filter((m) => m !== "GET");
const freeDisk = async (): Promise<SimState["blockStorages"][number]> => {
  const d = (await harness().state()).blockStorages.find((b) => b.locationId === 1 && b.instanceUuid === null);
  if (!d) throw new Error("no free disk in location 1");
  return d;
};
const diskHolder = async (uuid: string) => (await harness().state()).blockStorages.find((b) => b.uuid === uuid)!.instanceUuid;

describe("BlockStorageAttachment", () => {
  it("refuses a second attachment of the same disk on the same VM created in the same up: at its Check (so at preview), and at create, also when both start at once", async () => {
    const vm = await harness().newInstance("own-bsa-1");
    const disk = await freeDisk();
    const program = { blockStorageId: disk.uuid, instanceId: vm };
    const mark = harness().mark();
    const inputs = await checked(bsa(), program);
    expect((await bsa().check({}, program)).failures).toEqual([{
      property: "blockStorageId",
      reason: expect.stringMatching(/^BlockStorageAttachment: block storage .* on instance .* \(blockStorageId and instanceId\) is already declared by another BlockStorageAttachment of this program\. .*Declare each attachment once.*Nothing was changed\.$/),
    }]);
    // the creates' own guard (a backstop: a create whose Check could not tell), both at once
    const results = await Promise.allSettled([bsa().create(inputs), bsa().create(inputs)]);
    const ok = results.filter((r) => r.status === "fulfilled");
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(ok).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.reason.message).toMatch(/block storage .* on instance .* \(blockStorageId and instanceId\) is already declared by another BlockStorageAttachment of this stack, created in this up/);
    expect(refused[0]!.reason.message).toMatch(/Declare each attachment once/);
    expect(harness().operationsSince(mark).filter((o) => o === "attachBlockStorage")).toHaveLength(1);
    expect(await diskHolder(disk.uuid)).toBe(vm);
  });

  it("an attachment checked with olds of another instance, then again without olds (its replacement: deletedWith its replaced VM) is one resource, not two", async () => {
    const disk = await freeDisk();
    const oldVm = await harness().newInstance("own-bsa-old");
    const newVm = await harness().newInstance("own-bsa-new");
    const news = { blockStorageId: disk.uuid, instanceId: newVm };
    // (the engine's Check with the state's inputs, then, once the replace is decided, its Check again without olds)
    expect((await bsa().check({ blockStorageId: disk.uuid, instanceId: oldVm }, news)).failures ?? []).toEqual([]);
    expect((await bsa().check({}, news)).failures ?? []).toEqual([]);
    // a second resource declaring it is refused
    expect((await bsa().check({}, news)).failures).toEqual([{ property: "blockStorageId", reason: expect.stringMatching(/already declared by another BlockStorageAttachment of this program/) }]);
  });

  it("refuses a new attachment of a disk that an attachment of the state holds (diffed first), with no write", async () => {
    const vm = await harness().newInstance("own-bsa-2");
    const disk = await freeDisk();
    const program = { blockStorageId: disk.uuid, instanceId: vm };
    const first = await create(bsa(), program);
    forgetDeployment(); // the next up
    await diffed(bsa(), first.id, first.outs, program);
    const mark = harness().mark();
    await expect(create(bsa(), program)).rejects.toThrow(new RegExp(`another BlockStorageAttachment of this stack \\(id ${disk.uuid}, already in the state\\)`));
    expect(writes(mark)).toEqual([]);
  });

  it("a new attachment whose create runs before the holder's Diff waits for the deployment, then is refused; a Diff after a take-over is refused", async () => {
    const vm = await harness().newInstance("own-bsa-3");
    const disk = await freeDisk();
    const program = { blockStorageId: disk.uuid, instanceId: vm };
    const first = await create(bsa(), program);
    forgetDeployment();
    // the new one's create starts first (right after the VM's Diff answered); the holder's Diff arrives while it waits
    // for the rest of the deployment
    deploymentActivity.noteDiffed();
    const mark = harness().mark();
    const newcomer = create(bsa(), program);
    // its last read before it looks at the deployment (the disk list): from there it waits for the quiet pause
    await until(() => harness().operationsSince(mark).includes("listBlockStorages"));
    await diffed(bsa(), first.id, first.outs, program);
    await expect(newcomer).rejects.toThrow(/already in the state/);
    // the other order, when the take-over could not wait for it: the Diff is refused (the backstop)
    forgetDeployment();
    await create(bsa(), program); // taken over, logged
    await expect(diffed(bsa(), first.id, first.outs, program)).rejects.toThrow(/created in this up.*Declare each attachment once/s);
  });

  it("two attachments of the state holding one disk (left by an earlier version): removing one from the program leaves the disk attached", async () => {
    const vm = await harness().newInstance("own-bsa-4");
    const disk = await freeDisk();
    const program = { blockStorageId: disk.uuid, instanceId: vm };
    // as left by an earlier version, which let both "create"
    const a = await create(bsa(), program);
    forgetDeployment();
    const b = await create(bsa(), program);
    forgetDeployment();
    // the user removes b from the program: a refresh diffs both, the program's a is checked and diffed, b is deleted at the end
    await bsa().diff(b.id, b.outs, b.outs);
    await diffed(bsa(), a.id, a.outs, program);
    const mark = harness().mark();
    await bsa().delete(b.id, b.outs);
    expect(writes(mark)).toEqual([]);
    expect(await diskHolder(disk.uuid)).toBe(vm);
    expect(said.some((l) => l.includes(`BlockStorageAttachment ${disk.uuid} is left in place: another BlockStorageAttachment`))).toBe(true);
    forgetDeployment(); // destroy
    await bsa().delete(a.id, a.outs);
    expect(await diskHolder(disk.uuid)).toBeNull();
  });

  it("removing the only attachment of a disk detaches it, although a refresh diffed it in the same up", async () => {
    const vm = await harness().newInstance("own-bsa-7");
    const disk = await freeDisk();
    const a = await create(bsa(), { blockStorageId: disk.uuid, instanceId: vm });
    forgetDeployment();
    await bsa().diff(a.id, a.outs, a.outs); // up --refresh: refreshed (and diffed), no longer in the program
    await bsa().delete(a.id, a.outs);
    expect(await diskHolder(disk.uuid)).toBeNull();
  });

  it("a retried up (attached by an up that was interrupted) takes the attachment over without a write, saying so", async () => {
    const vm = await harness().newInstance("own-bsa-5");
    const disk = await freeDisk();
    const program = { blockStorageId: disk.uuid, instanceId: vm };
    await create(bsa(), program); // its state was never written
    forgetDeployment();
    said.length = 0;
    const mark = harness().mark();
    const again = await create(bsa(), program);
    expect(again.id).toBe(disk.uuid);
    expect(writes(mark)).toEqual([]);
    expect(said.some((l) => /is in place already, made by no resource this up has seen .* adopts it .*If another stack manages it, remove it there/.test(l))).toBe(true);
  });

  it("a replacement created before the old one is deleted (replaceOnChanges) takes the disk in place and keeps it", async () => {
    const vm = await harness().newInstance("own-bsa-6");
    const disk = await freeDisk();
    const program = { blockStorageId: disk.uuid, instanceId: vm, __replaceOnChanges: ["timeouts"] };
    const old = await create(bsa(), program);
    forgetDeployment();
    const news = { ...program, timeouts: { create: "5m" } };
    const d = await diffed(bsa(), old.id, old.outs, news);
    expect(d.replaces).toEqual(["timeouts"]);
    expect(d.deleteBeforeReplace).toBeFalsy();
    const mark = harness().mark();
    const made = await create(bsa(), news);
    expect(made.id).toBe(disk.uuid);
    await bsa().delete(old.id, old.outs); // the old half, at the end of the up
    expect(writes(mark)).toEqual([]);
    expect(await diskHolder(disk.uuid)).toBe(vm);
  });
});

describe("VswitchAttachment", () => {
  let vswitch: string;
  beforeAll(async () => {
    vswitch = (await harness().state()).vswitches.find((v) => v.locationId === 1)!.uuid;
  });
  const vmOf = async (uuid: string) => (await harness().instance(uuid))!.vswitchUuid;

  it("is refused on a VM whose Instance declares vswitchId (new, and in the state), and its delete then leaves the VM on the network", async () => {
    const vmInputs = { ...validCreate, hostname: "own-vsa-1", cpu: 1, memory: 1, storage: 20, vswitchId: vswitch };
    const vm = await create(instance(), vmInputs);
    const program = { instanceId: vm.id, vswitchId: vswitch };
    const mark = harness().mark();
    const refusal = /the Instance of instance .* declares vswitchId: ".*" in this stack.*remove this VswitchAttachment.*or remove vswitchId from the Instance/s;
    // at its Check (so at preview), and at create (a backstop)
    expect((await vsa().check({}, program)).failures).toEqual([{ property: "vswitchId", reason: expect.stringMatching(refusal) }]);
    await expect(vsa().create(program)).rejects.toThrow(refusal);
    expect(writes(mark)).toEqual([]);
    // a stack that holds both (an earlier version let the attachment "create"): the attachment's Diff is refused, at
    // preview too; removing it from the program leaves the VM on the network the Instance declares
    const both = { id: `${vm.id}/${vswitch}`, outs: { instanceId: vm.id, vswitchId: vswitch, vswitchName: "x" } };
    forgetDeployment();
    await diffed(instance(), vm.id, vm.outs, vmInputs);
    await expect(diffed(vsa(), both.id, both.outs, program)).rejects.toThrow(/declares vswitchId/);
    forgetDeployment();
    await diffed(instance(), vm.id, vm.outs, vmInputs);
    await vsa().delete(both.id, both.outs);
    expect(await vmOf(vm.id)).toBe(vswitch);
    forgetDeployment();
    await instance().delete(vm.id, vm.outs);
  });

  it("moved from the Instance's vswitchId to a VswitchAttachment in one up: taken over without a write, the log naming the Instance", async () => {
    const vmInputs = { ...validCreate, hostname: "own-vsa-3", cpu: 1, memory: 1, storage: 20, vswitchId: vswitch };
    const vm = await create(instance(), vmInputs);
    expect(await vmOf(vm.id)).toBe(vswitch);
    forgetDeployment(); // the next up: vswitchId removed from the Instance (it leaves the VM on the network), the attachment added
    const { vswitchId: _dropped, ...withoutNetwork } = vmInputs;
    const d = await diffed(instance(), vm.id, vm.outs, withoutNetwork);
    expect(d.replaces ?? []).toEqual([]);
    said.length = 0;
    const mark = harness().mark();
    const made = await create(vsa(), { instanceId: vm.id, vswitchId: vswitch });
    expect(made.id).toBe(`${vm.id}/${vswitch}`);
    expect(writes(mark)).toEqual([]);
    expect(await vmOf(vm.id)).toBe(vswitch);
    const log = said.filter((l) => l.includes("is in place already"));
    expect(log).toEqual([
      expect.stringMatching(/VswitchAttachment: instance .* on private network .* is in place already, joined by the Instance of that VM, which declared this network as its vswitchId in the state and no longer does: this VswitchAttachment takes it over from that Instance/),
    ]);
    forgetDeployment(); // destroy
    await vsa().delete(made.id, made.outs);
    await instance().delete(vm.id, vm.outs);
  });

  it("refuses a second attachment of the same VM and network; a retried up takes one over, saying so", async () => {
    const vm = await harness().newInstance("own-vsa-2");
    const program = { instanceId: vm, vswitchId: vswitch };
    const first = await create(vsa(), program);
    expect(await vmOf(vm)).toBe(vswitch);
    const mark = harness().mark();
    // the second one's Check refuses (so at preview); its create does too (a backstop)
    expect((await vsa().check({}, program)).failures).toEqual([
      { property: "vswitchId", reason: expect.stringMatching(/\(instanceId and vswitchId\) is already declared by another VswitchAttachment of this program/) },
    ]);
    await expect(vsa().create(first.outs)).rejects.toThrow(/\(instanceId and vswitchId\) is already declared by another VswitchAttachment of this stack, created in this up/);
    forgetDeployment();
    await diffed(vsa(), first.id, first.outs, program);
    expect((await vsa().check({}, program)).failures).toEqual([{ property: "vswitchId", reason: expect.stringMatching(/already in the state/) }]);
    await expect(vsa().create(first.outs)).rejects.toThrow(/already in the state/);
    expect(writes(mark)).toEqual([]);
    forgetDeployment(); // an up whose first try was interrupted right after the join
    said.length = 0;
    const again = await create(vsa(), program);
    expect(again.id).toBe(first.id);
    expect(writes(mark)).toEqual([]);
    expect(said.some((l) => /VswitchAttachment: instance .* on private network .* is in place already, made by no resource this up has seen/.test(l))).toBe(true);
    forgetDeployment(); // destroy
    await vsa().delete(first.id, first.outs);
    expect(await vmOf(vm)).toBeNull();
  });
});
