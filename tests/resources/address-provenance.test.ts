/**
 * Which public address an Instance may keep reserved and release with its VM (`madePublicIpId`): only the one the
 * API gave it. A reserved address of the user's, put on the VM in the panel, is never released nor kept; the
 * resource's own is never left reserved in no state. Provider methods are called in the engine's order against the
 * simulator, and the simulator's state is the judge.
 */
import "./instance-env";
import { providers } from "../../provider";
import { getClient } from "../../provider/context";
import { forgetDeployment } from "../../provider/registry";
import { askedAddressesFor } from "../../provider/resources/common/asked-addresses";
import type { InstanceOutputs } from "../../provider/resources/instance/inputs";
import { harnessSuite, progressSuite, up, type FullProvider } from "./attachment-helpers";
import { validCreate } from "./instance-cases";

const instance = providers.Instance as FullProvider;
const h = harnessSuite();
const said = progressSuite();

/** A reserved address of the user's (seeded), on no VM. */
async function usersFreeAddress(): Promise<string> {
  return (await h().state()).publicIps.find((p) => p.locationId === 1 && p.seeded && p.instanceUuid === null)!.uuid;
}

/** The addresses the API made (not the user's seeded ones) that sit reserved on no VM: each one is in no state here. */
async function madeAndUnassigned(): Promise<string[]> {
  return (await h().state()).publicIps.filter((p) => !p.seeded && p.instanceUuid === null).map((p) => p.uuid).sort();
}

/** check then update, as `pulumi up` does with the program's inputs. */
async function upTo(id: string, olds: InstanceOutputs, program: Record<string, unknown>): Promise<InstanceOutputs> {
  const news = (await instance.check(olds, program)).inputs;
  return (await instance.update(id, olds, news)).outs as InstanceOutputs;
}

it("B: publicIp true, the user's reserved address swapped in in the panel, destroy without refresh: the user's survives, ours is released", async () => {
  const leftBefore = await madeAndUnassigned();
  const vm = await up<InstanceOutputs>(instance, { ...validCreate, hostname: "prov-b", publicIp: true });
  const ours = vm.outs.publicIpId!;
  expect(vm.outs.madePublicIpId).toBe(ours);
  const users = await usersFreeAddress();
  await h().outOfBand(vm.id, { publicIp: users }); // ours goes back to the account, reserved
  await instance.delete(vm.id, vm.outs); // `pulumi destroy`, no refresh: the state still says the VM holds ours
  const st = await h().state();
  expect(st.instances.find((i) => i.uuid === vm.id)).toBeUndefined();
  expect(st.publicIps.find((p) => p.uuid === users)).toMatchObject({ instanceUuid: null }); // released before the fix
  expect(st.publicIps.find((p) => p.uuid === ours)).toBeUndefined(); // left reserved in no state before the fix
  expect(await madeAndUnassigned()).toEqual(leftBefore);
});

it("B': publicIp false, the user's reserved address put on in the panel, destroy: the user's address survives", async () => {
  const vm = await up<InstanceOutputs>(instance, { ...validCreate, hostname: "prov-b2", publicIp: false });
  expect(vm.outs.madePublicIpId).toBeNull();
  const users = await usersFreeAddress();
  await h().outOfBand(vm.id, { publicIp: users });
  said.length = 0;
  await instance.delete(vm.id, vm.outs);
  const st = await h().state();
  expect(st.instances.find((i) => i.uuid === vm.id)).toBeUndefined();
  expect(st.publicIps.find((p) => p.uuid === users)).toMatchObject({ instanceUuid: null }); // released before the fix
  expect(said.join("\n")).toContain(`(${users}) it holds is not known to its state as given by the API`);
});

it("C: publicIp false, the user's address put on in the panel, refresh, then up takes it off: it is not kept as ours, and delete leaves it", async () => {
  const program = { ...validCreate, hostname: "prov-c", publicIp: false };
  const vm = await up<InstanceOutputs>(instance, program);
  const users = await usersFreeAddress();
  await h().outOfBand(vm.id, { publicIp: users });
  const refreshed = (await instance.read(vm.id, vm.outs)).props as InstanceOutputs; // `pulumi refresh`
  expect(refreshed).toMatchObject({ publicIp: true, publicIpId: users, madePublicIpId: null });
  expect(refreshed).not.toHaveProperty("reservedPublicIpId");
  expect(await instance.diff(vm.id, refreshed, (await instance.check(refreshed, program)).inputs)).toMatchObject({ changes: true });
  said.length = 0;
  const outs = await upTo(vm.id, refreshed, program);
  expect(outs).toMatchObject({ publicIp: false, publicIpId: null, madePublicIpId: null });
  expect(outs.reservedPublicIpId).toBeUndefined(); // recorded as ours to release before the fix
  expect(said.join("\n")).toContain(`(${users}) comes off and stays reserved in your account`);
  await instance.delete(vm.id, outs);
  const st = await h().state();
  expect(st.instances.find((i) => i.uuid === vm.id)).toBeUndefined();
  expect(st.publicIps.find((p) => p.uuid === users)).toMatchObject({ instanceUuid: null }); // released before the fix
});

it("publicIp true -> false -> true -> false -> true -> destroy: our own address is reused each time and released at the end", async () => {
  const leftBefore = await madeAndUnassigned();
  const vm = await up<InstanceOutputs>(instance, { ...validCreate, hostname: "prov-toggle", publicIp: true });
  const ours = vm.outs.publicIpId!;
  let outs = vm.outs;
  for (const publicIp of [false, true, false, true]) {
    outs = await upTo(vm.id, outs, { ...validCreate, hostname: "prov-toggle", publicIp });
    expect(outs.madePublicIpId).toBe(ours); // absent before the fix
    expect(outs.publicIpId).toBe(publicIp ? ours : null);
    expect(outs.reservedPublicIpId).toBe(publicIp ? undefined : ours);
    expect((await instance.read(vm.id, outs)).props).toEqual(outs); // a refresh right after the up: no change
  }
  await instance.delete(vm.id, outs);
  expect((await h().state()).publicIps.find((p) => p.uuid === ours)).toBeUndefined();
  expect(await madeAndUnassigned()).toEqual(leftBefore);
});

it("an address added in the panel to a VM whose own address is kept reserved is not ours: delete releases ours, the panel's stays in the account", async () => {
  const program = { ...validCreate, hostname: "prov-panel-add", publicIp: true };
  const vm = await up<InstanceOutputs>(instance, program);
  const ours = vm.outs.publicIpId!;
  const off = await upTo(vm.id, vm.outs, { ...program, publicIp: false });
  expect(off).toMatchObject({ reservedPublicIpId: ours, madePublicIpId: ours });
  const users = await usersFreeAddress();
  await h().outOfBand(vm.id, { publicIp: users });
  await instance.delete(vm.id, off); // no refresh
  const st = await h().state();
  expect(st.publicIps.find((p) => p.uuid === ours)).toBeUndefined();
  expect(st.publicIps.find((p) => p.uuid === users)).toMatchObject({ instanceUuid: null });
});

it("an adopted VM's address came with it: it is the resource's, and destroy releases it", async () => {
  const id = await h().newInstance("prov-adopted");
  await h().outOfBand(id, { publicIp: true }); // the VM the user hands over has an address the API gave it
  const came = (await h().instance(id))!.publicIpUuid!;
  const adopted = await up<InstanceOutputs>(instance, { ...validCreate, hostname: "prov-adopted", tierId: 1, templateId: 2, cpu: 1, memory: 1, storage: 20, username: "admin", adoptId: id, publicIp: true });
  expect(adopted.outs).toMatchObject({ publicIpId: came, madePublicIpId: came }); // absent before the fix
  forgetDeployment(); // `pulumi destroy` is a later deployment
  await instance.delete(id, adopted.outs);
  expect((await h().state()).publicIps.find((p) => p.uuid === came)).toBeUndefined();
});

it("a pinned address that is no reserved address of the account: the refusal says to check publicNetworkId, and no VM is made", async () => {
  const missing = "0e0e0e0e-0000-4000-8000-00000000abcd"; // a typo, or the uuid of another object (new-user audit)
  const news = (await instance.check({}, { ...validCreate, hostname: "prov-no-such-pin", publicNetworkId: missing })).inputs;
  const failure = await instance.create(news).then(() => undefined, (e: unknown) => e as Error);
  expect(failure?.message).toContain(`publicNetworkId: the host refused reserved address ${missing} also after the rest of this up had run, and no VM was created`);
  expect(failure?.message).toContain("If no VM holds it, check publicNetworkId: it takes the uuid of a reserved public address of this account");
  expect((await h().state()).instances.filter((i) => i.hostname === "prov-no-such-pin")).toEqual([]);
});

describe("an up that fails to pin a reserved address records the address the VM holds as publicNetworkId: it stays ours", () => {
  /** A publicIp: true VM whose next up, pinning the user's reserved address, fails (the host refuses: another VM holds it). */
  async function failedPin(hostname: string): Promise<{ id: string; ours: string; recorded: InstanceOutputs; pinned: string; holder: string; program: Record<string, unknown> }> {
    const pinned = await usersFreeAddress();
    const holder = await h().newInstance(`${hostname}-holder`);
    await h().outOfBand(holder, { publicIp: pinned });
    const vm = await up<InstanceOutputs>(instance, { ...validCreate, hostname, publicIp: true });
    forgetDeployment();
    const program = { ...validCreate, hostname, publicNetworkId: pinned, timeouts: { update: "5s" } };
    const news = (await instance.check(vm.outs, program)).inputs;
    await instance.diff(vm.id, vm.outs, news);
    const failure = await instance.update(vm.id, vm.outs, news).then(() => undefined, (e: unknown) => e as { properties?: InstanceOutputs; message: string });
    expect(failure?.properties).toMatchObject({ publicNetworkId: vm.outs.publicIpId, madePublicIpId: vm.outs.publicIpId });
    expect(failure?.message).toContain(`the host refused reserved address ${pinned} also after the rest of this \`up\` had run. If another VM holds it, free it there`);
    expect(failure?.message).toContain("run one `pulumi up` without this pin (or without this Instance), then pin it again");
    forgetDeployment();
    return { id: vm.id, ours: vm.outs.publicIpId!, recorded: failure!.properties!, pinned, holder, program };
  }

  it("destroy releases the VM's own address (it was kept reserved in no state, the log calling it pinned)", async () => {
    const leftBefore = await madeAndUnassigned();
    const { id, ours, recorded, holder } = await failedPin("prov-failed-pin");
    said.length = 0;
    await instance.delete(id, recorded);
    expect((await h().state()).publicIps.find((p) => p.uuid === ours)).toBeUndefined();
    expect(await madeAndUnassigned()).toEqual(leftBefore);
    expect(said.join("\n")).not.toContain("its program pinned stays in your account");
    await h().client.instances.delete(holder, { removeIp: false, removeBlockStorage: false });
  });

  it("the next up, once the address is free, pins it and keeps ours reserved to release: destroy then leaves nothing", async () => {
    const leftBefore = await madeAndUnassigned();
    const { id, ours, recorded, pinned, holder, program } = await failedPin("prov-failed-pin2");
    await h().outOfBand(holder, { publicIp: false }); // the other VM lets the pinned address go
    const outs = await upTo(id, recorded, program);
    expect(outs).toMatchObject({ publicNetworkId: pinned, reservedPublicIpId: ours, madePublicIpId: ours });
    await instance.delete(id, outs);
    const st = await h().state();
    expect(st.publicIps.find((p) => p.uuid === ours)).toBeUndefined();
    expect(st.publicIps.find((p) => p.uuid === pinned)).toMatchObject({ instanceUuid: null });
    expect(await madeAndUnassigned()).toEqual(leftBefore);
    await h().client.instances.delete(holder, { removeIp: false, removeBlockStorage: false });
  });
});

describe("a program that stops managing the address it pinned (publicNetworkId removed, publicIp unset)", () => {
  it("keeps the user's address on the VM, recorded as theirs through a refresh: destroy leaves it in the account", async () => {
    const users = await usersFreeAddress();
    const program = { ...validCreate, hostname: "prov-unmanaged" };
    const vm = await up<InstanceOutputs>(instance, { ...program, publicNetworkId: users });
    const outs = await upTo(vm.id, vm.outs, program);
    expect(outs).toMatchObject({ publicIpId: users, usersPublicIpId: users });
    expect(outs).not.toHaveProperty("publicNetworkId");
    const refreshed = (await instance.read(vm.id, outs)).props as InstanceOutputs; // `pulumi refresh`
    expect(refreshed).toEqual(outs);
    forgetDeployment();
    said.length = 0;
    await instance.delete(vm.id, refreshed);
    const st = await h().state();
    expect(st.instances.find((i) => i.uuid === vm.id)).toBeUndefined();
    expect(st.publicIps.find((p) => p.uuid === users)).toMatchObject({ instanceUuid: null }); // released before the fix
    expect(said).toContain(`instance ${vm.id} is deleted: the reserved address ${users} its program pinned earlier stays in your account`);
  });

  it("forgets it once the VM no longer holds it: an address put on later (a PublicIp's, deletedWith the VM) is released", async () => {
    const users = await usersFreeAddress();
    const program = { ...validCreate, hostname: "prov-unmanaged2" };
    const vm = await up<InstanceOutputs>(instance, { ...program, publicNetworkId: users });
    const outs = await upTo(vm.id, vm.outs, program);
    await h().outOfBand(vm.id, { publicIp: false }); // the user's address goes elsewhere (back to the account)
    await h().outOfBand(vm.id, { publicIp: true }); // a new address (as a PublicIp resource adds one)
    const added = (await h().instance(vm.id))!.publicIpUuid!;
    const refreshed = (await instance.read(vm.id, outs)).props as InstanceOutputs;
    expect(refreshed).not.toHaveProperty("usersPublicIpId");
    await instance.delete(vm.id, refreshed);
    const st = await h().state();
    expect(st.publicIps.find((p) => p.uuid === added)).toBeUndefined();
    expect(st.publicIps.find((p) => p.uuid === users)).toMatchObject({ instanceUuid: null });
  });
});

describe("a state written before madePublicIpId (legacy) keeps the earlier rule: the address it records is ours", () => {
  const legacy = (outs: InstanceOutputs): InstanceOutputs => {
    const { madePublicIpId: _made, ...rest } = outs;
    return rest as InstanceOutputs;
  };

  it("its recorded address, taken off by an update killed before its outputs were written, is assigned back and released by destroy", async () => {
    const vm = await up<InstanceOutputs>(instance, { ...validCreate, hostname: "prov-legacy-killed", publicIp: true });
    const ours = vm.outs.publicIpId!;
    await h().outOfBand(vm.id, { publicIp: false }); // as the killed update left it: reserved, the state not knowing
    // a refresh of that state would remember it, as before, and write it as the resource's own from now on
    const read = (await instance.read(vm.id, legacy(vm.outs))).props as InstanceOutputs;
    expect(read).toMatchObject({ publicIpId: null, reservedPublicIpId: ours, madePublicIpId: ours }); // no madePublicIpId before the fix
    await instance.delete(vm.id, legacy(vm.outs)); // destroy without that refresh
    expect((await h().state()).publicIps.find((p) => p.uuid === ours)).toBeUndefined();
  });

  it("publicIp false keeps its recorded address reserved, and a refresh writes it as madePublicIpId", async () => {
    const program = { ...validCreate, hostname: "prov-legacy-toggle", publicIp: true };
    const vm = await up<InstanceOutputs>(instance, program);
    const ours = vm.outs.publicIpId!;
    const read = (await instance.read(vm.id, legacy(vm.outs))).props as InstanceOutputs;
    expect(read.madePublicIpId).toBe(ours); // absent before the fix
    const off = await upTo(vm.id, legacy(vm.outs), { ...program, publicIp: false });
    expect(off).toMatchObject({ reservedPublicIpId: ours, madePublicIpId: ours });
    await instance.delete(vm.id, legacy(off));
    expect((await h().state()).publicIps.find((p) => p.uuid === ours)).toBeUndefined();
  });
});

it("a hand-over note names its address: another one on the VM (yours, swapped in meanwhile) never becomes the Instance's", async () => {
  const program = { ...validCreate, hostname: "prov-handover-other", publicIp: false };
  const vm = await up<InstanceOutputs>(instance, program);
  const users = await usersFreeAddress();
  await h().outOfBand(vm.id, { publicIp: users });
  // as a removed PublicIp's delete leaves it, for an address that is no longer on the VM
  askedAddressesFor(getClient().baseUrl).handOver(vm.id, "00000000-0000-4000-8000-00000000abcd");
  const outs = await upTo(vm.id, vm.outs, { ...program, publicIp: true });
  expect(outs).toMatchObject({ publicIpId: users, madePublicIpId: null });
  await instance.delete(vm.id, outs);
  expect((await h().state()).publicIps.find((p) => p.uuid === users)).toMatchObject({ instanceUuid: null });
});
