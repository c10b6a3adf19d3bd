/**
 * Reserved addresses against the simulator (its own, so the seeded reserved addresses are all free here): the
 * user's own, pinned with `publicNetworkId`, are never kept as the resource's to release; an address a PublicIp
 * recorded as detached is taken by its replacement, never left reserved beside a second one.
 */
import "./instance-env";
import { providers } from "../../provider";
import { forgetDeployment } from "../../provider/registry";
import type { InstanceOutputs } from "../../provider/resources/instance/inputs";
import { harnessSuite, progressSuite, up, type FullProvider } from "./attachment-helpers";
import { validCreate } from "./instance-cases";

const instance = providers.Instance as FullProvider;
const publicIp = providers.PublicIp as FullProvider;
const h = harnessSuite();
const said = progressSuite();

it.each([
  ["swapped for another reserved address (publicNetworkId A -> B)", (b: string) => ({ publicNetworkId: b })],
  ["taken off (publicIp: false)", () => ({ publicIp: false })],
])("a pinned reserved address %s stays the user's: it is not kept to release, and the VM's delete leaves it reserved", async (what, next) => {
  const [a, b] = (await h().state()).publicIps.filter((p) => p.locationId === 1 && p.seeded && p.instanceUuid === null).map((p) => p.uuid);
  const vm = await up<InstanceOutputs>(instance, { ...validCreate, hostname: `pinned-off-${what.length}`, publicNetworkId: a! });
  const { publicNetworkId: _pinned, ...program } = vm.inputs;
  const news = (await instance.check(vm.inputs, { ...program, ...next(b!) })).inputs;
  expect(await instance.diff(vm.id, vm.outs, news)).toMatchObject({ changes: true, replaces: [] });
  const outs = (await instance.update(vm.id, vm.outs, news)).outs as InstanceOutputs;
  expect(outs.reservedPublicIpId).toBeUndefined();
  await instance.delete(vm.id, outs); // default deleteOptions: removePublicIp true
  const after = await h().state();
  expect(after.instances.find((i) => i.uuid === vm.id)).toBeUndefined();
  // soak: A was assigned back and released with the VM, and a program pinning A again was refused at every up
  expect(after.publicIps.find((p) => p.uuid === a)).toMatchObject({ instanceUuid: null });
});

it("a PublicIp recorded detached (taken off in the panel) and replaced with its VM assigns that address to the new VM, not a second one", async () => {
  const base = { ...validCreate, hostname: "detached-replaced" };
  const vm = await up<InstanceOutputs>(instance, base);
  const ip = await up(publicIp, { instanceId: vm.id });
  await h().outOfBand(vm.id, { publicIp: false }); // the panel takes it off: reserved, on no VM
  const refreshed = await publicIp.read(ip.id, ip.outs); // pulumi refresh
  expect(refreshed.props).toMatchObject({ detached: true });
  // the next up replaces the VM (username), and so the PublicIp (instanceId), create-before-delete
  const vmNews = (await instance.check(vm.inputs, { ...base, username: "deploy2" })).inputs;
  expect((await instance.diff(vm.id, vm.outs, vmNews)).replaces).toContain("username");
  const vm2 = await instance.create(vmNews);
  const ipNews = (await publicIp.check(refreshed.props, { instanceId: vm2.id })).inputs;
  expect((await publicIp.diff(ip.id, refreshed.props, ipNews)).replaces).toEqual(["instanceId"]);
  const ip2 = await publicIp.create(ipNews);
  expect(ip2.id).toBe(ip.id);
  expect(ip2.outs).not.toHaveProperty("publicNetworkId"); // not pinned by the program
  await publicIp.delete(ip.id, refreshed.props); // the old half: its instance does not hold it, nothing to do
  expect(said.join("\n")).not.toContain("stays reserved in your account");
  await instance.delete(vm.id, vm.outs);
  const st = await h().state();
  expect(st.instances.find((i) => i.uuid === vm2.id)?.publicIpUuid).toBe(ip.id);
  // soak (c3-127): the replacement added a second address and the detached one stayed reserved in no state
  expect(st.publicIps.filter((p) => !p.seeded && p.instanceUuid === null)).toEqual([]);
  expect((await publicIp.diff(ip2.id, ip2.outs, ipNews)).changes).toBe(false);
});

it("the delete of a PublicIp recorded detached (a destroy before the up that assigns it back) says the address stays reserved", async () => {
  const vm = await up<InstanceOutputs>(instance, { ...validCreate, hostname: "detached-destroyed" });
  const ip = await up(publicIp, { instanceId: vm.id });
  await h().outOfBand(vm.id, { publicIp: false });
  const refreshed = await publicIp.read(ip.id, ip.outs);
  said.length = 0;
  await publicIp.delete(ip.id, refreshed.props);
  expect(said.join("\n")).toContain(`(${ip.id}) is no longer on instance ${vm.id} (taken off outside this run) and is on no VM: it stays reserved in your account`);
  await instance.delete(vm.id, vm.outs);
});

it.each([["after a refresh", true], ["without a refresh", false]])(
  "the delete of a PublicIp whose address another VM now holds (moved in the panel, %s) names that VM and never says to release it",
  async (_what, refresh) => {
    const vm = await up<InstanceOutputs>(instance, { ...validCreate, hostname: `moved-away-${refresh}` });
    const other = await up<InstanceOutputs>(instance, { ...validCreate, hostname: `moved-to-${refresh}` });
    const ip = await up(publicIp, { instanceId: vm.id });
    await h().outOfBand(vm.id, { publicIp: false });
    await h().outOfBand(other.id, { publicIp: ip.id });
    const props = refresh ? (await publicIp.read(ip.id, ip.outs)).props : ip.outs;
    said.length = 0;
    await publicIp.delete(ip.id, props);
    expect((await h().state()).instances.find((i) => i.uuid === other.id)?.publicIpUuid).toBe(ip.id);
    // audit (destroy): after a refresh the delete said "stays reserved in your account ... Release it in the host's
    // panel" of an address another VM was using; without a refresh it said nothing
    expect(said.join("\n")).toContain(`is no longer on instance ${vm.id} but on instance ${other.id} (moved-to-${refresh}), so it is left there`);
    expect(said.join("\n")).not.toContain("Release it");
    await instance.delete(vm.id, vm.outs);
    await instance.delete(other.id, other.outs);
  },
);

it("the delete of a PublicIp recorded detached whose VM was deleted since says the address stays reserved", async () => {
  // review: the VM gone, nothing was said of the address taken off it before (reserved, billing)
  const vm = await up<InstanceOutputs>(instance, { ...validCreate, hostname: "detached-then-vm-gone" });
  const ip = await up(publicIp, { instanceId: vm.id });
  await h().outOfBand(vm.id, { publicIp: false });
  const refreshed = await publicIp.read(ip.id, ip.outs);
  expect(refreshed.props).toMatchObject({ detached: true });
  await h().outOfBand(vm.id, { deleted: true });
  said.length = 0;
  await publicIp.delete(ip.id, refreshed.props);
  expect(said.join("\n")).toContain(`(${ip.id}) is no longer on instance ${vm.id} (taken off outside this run) and is on no VM: it stays reserved in your account (it may bill)`);
});

it("the delete of a PublicIp whose address was taken off in the panel, without a refresh, says it stays reserved", async () => {
  const vm = await up<InstanceOutputs>(instance, { ...validCreate, hostname: "taken-off-unrefreshed" });
  const ip = await up(publicIp, { instanceId: vm.id });
  await h().outOfBand(vm.id, { publicIp: false });
  said.length = 0;
  await publicIp.delete(ip.id, ip.outs);
  expect(said.join("\n")).toContain(`(${ip.id}) is no longer on instance ${vm.id} (taken off outside this run) and is on no VM: it stays reserved in your account (it may bill)`);
  await instance.delete(vm.id, vm.outs);
});

it("a pinned reserved address the replaced VM still holds (the new program pins another) stays the user's when the old VM goes", async () => {
  const [a, b] = (await h().state()).publicIps.filter((p) => p.locationId === 1 && p.seeded && p.instanceUuid === null).map((p) => p.uuid);
  const base = { ...validCreate, hostname: "pinned-replaced" };
  const vm = await up<InstanceOutputs>(instance, { ...base, publicNetworkId: a! });
  // the next up: another template (a replace) and the other address
  const news = (await instance.check(vm.inputs, { ...base, templateId: 2, publicNetworkId: b! })).inputs;
  expect((await instance.diff(vm.id, vm.outs, news)).replaces).toContain("templateId");
  const replacement = await instance.create(news);
  await instance.delete(vm.id, vm.outs); // the old half, with the default deleteOptions (removePublicIp: true)
  const after = await h().state();
  expect(after.instances.find((i) => i.uuid === vm.id)).toBeUndefined();
  expect(after.publicIps.find((p) => p.uuid === a)).toMatchObject({ instanceUuid: null }); // released before the fix
  expect(after.publicIps.find((p) => p.uuid === b)).toMatchObject({ instanceUuid: replacement.id });
  expect(said).toContain(`instance ${vm.id} is deleted as the old half of a replacement: the reserved address ${a} its program pinned stays in your account`);
});

it("destroying an Instance that holds the reserved address its program pins leaves that address in the account", async () => {
  const [a] = (await h().state()).publicIps.filter((p) => p.locationId === 1 && p.seeded && p.instanceUuid === null).map((p) => p.uuid);
  const vm = await up<InstanceOutputs>(instance, { ...validCreate, hostname: "pinned-destroyed", publicNetworkId: a! });
  expect((await h().instance(vm.id))?.publicIpUuid).toBe(a);
  await instance.delete(vm.id, vm.outs); // `pulumi destroy`, default deleteOptions (removePublicIp: true)
  const after = await h().state();
  expect(after.instances.find((i) => i.uuid === vm.id)).toBeUndefined();
  expect(after.publicIps.find((p) => p.uuid === a)).toMatchObject({ instanceUuid: null }); // released before the fix (soak)
  expect(said).toContain(`instance ${vm.id} is deleted: the reserved address ${a} its program pinned stays in your account`);
});

it("an Instance that never managed its address says which address its delete releases (known limit: it cannot tell yours)", async () => {
  // destroy audit: a reserved address of the user's put on the VM in the panel was released without a word
  const [a] = (await h().state()).publicIps.filter((p) => p.locationId === 1 && p.seeded && p.instanceUuid === null).map((p) => p.uuid);
  const vm = await up<InstanceOutputs>(instance, { ...validCreate, hostname: "unmanaged-address" });
  await h().outOfBand(vm.id, { publicIp: a });
  const address = (await h().state()).publicIps.find((p) => p.uuid === a)!.address;
  said.length = 0;
  await instance.delete(vm.id, vm.outs);
  expect(said.join("\n")).toContain(`instance ${vm.id} is deleted with the address it holds, ${address}, released (deleteOptions.removePublicIp)`);
});

describe("a PublicIp recorded detached (the user's reserved address swapped in for it in the panel), its VM then replaced", () => {
  // soak stop15c-139: replaced delete-before-replace with the PublicIp deletedWith the VM (the engine sends the
  // PublicIp only its Diff), the old VM's delete released the user's address it held, and the PublicIp's own address
  // stayed reserved in no state.
  const setUp = async (hostname: string) => {
    const vm = await up<InstanceOutputs>(instance, { ...validCreate, hostname });
    const ip = await up(publicIp, { instanceId: vm.id });
    const users = (await h().state()).publicIps.find((p) => p.locationId === 1 && p.seeded && p.instanceUuid === null)!.uuid;
    await h().outOfBand(vm.id, { publicIp: users }); // the panel swaps the user's reserved address in
    const refreshed = await publicIp.read(ip.id, ip.outs);
    expect(refreshed.props).toMatchObject({ detached: true });
    forgetDeployment(); // the next up
    return { vm, ip, users, refreshed: refreshed.props as Record<string, unknown> };
  };

  it("delete-before-replace: the old VM's delete releases the PublicIp's address and leaves the user's reserved", async () => {
    const { vm, ip, users, refreshed } = await setUp("detached-dbr");
    await publicIp.diff(ip.id, refreshed, { instanceId: "04da6b54-80e4-46f7-96ec-b56ff0331ba9" }); // the engine's question (its VM's new id unknown)
    await instance.delete(vm.id, vm.outs); // deletedWith: no PublicIp delete; the VM goes first
    const st = await h().state();
    expect(st.publicIps.find((p) => p.uuid === users)).toMatchObject({ instanceUuid: null });
    expect(st.publicIps.filter((p) => p.uuid === ip.id)).toEqual([]);
  });

  it("create-before-delete: the replacement takes the PublicIp's address, and the old VM's delete leaves the user's reserved", async () => {
    const { vm, ip, users, refreshed } = await setUp("detached-cbd");
    const vm2 = await up<InstanceOutputs>(instance, { ...validCreate, hostname: "detached-cbd-2" });
    const ipNews = (await publicIp.check(refreshed, { instanceId: vm2.id })).inputs;
    expect((await publicIp.diff(ip.id, refreshed, ipNews)).replaces).toEqual(["instanceId"]);
    const ip2 = await publicIp.create(ipNews);
    expect(ip2.id).toBe(ip.id);
    await publicIp.delete(ip.id, refreshed);
    await instance.delete(vm.id, vm.outs);
    const st = await h().state();
    expect(st.publicIps.find((p) => p.uuid === users)).toMatchObject({ instanceUuid: null });
    expect(st.instances.find((i) => i.uuid === vm2.id)?.publicIpUuid).toBe(ip.id);
    await instance.delete(vm2.id, vm2.outs);
  });
});
