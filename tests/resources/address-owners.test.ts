/**
 * One owner per public address (common/address-owners.ts): a PublicIp on a VM whose Instance declares publicIp or
 * publicNetworkId is refused at check (preview) and at create, naming the Instance, its field and the ways out;
 * handing the address over (the Instance drops publicIp, a PublicIp adopts it in the same up) still works.
 * Through the registry's providers, as the engine calls them; the simulator's state is the truth.
 */
import "./instance-env";
import { providers } from "../../provider";
import { forgetDeployment } from "../../provider/registry";
import { ProviderError } from "../../provider/resources/common/errors";
import type { InstanceOutputs } from "../../provider/resources/instance/inputs";
import { harnessSuite, up, type FullProvider } from "./attachment-helpers";
import { validCreate } from "./instance-cases";

const instance = providers.Instance as FullProvider;
const publicIp = providers.PublicIp as FullProvider;
const h = harnessSuite();
afterEach(() => forgetDeployment());

/** The Instance as an existing resource of the stack in a new deployment: the engine diffs it with the program. */
async function diffedInNextUp(vm: { id: string; outs: InstanceOutputs }, program: Record<string, unknown>): Promise<Record<string, unknown>> {
  forgetDeployment();
  const news = (await instance.check(vm.outs, program)).inputs as Record<string, unknown>;
  await instance.diff(vm.id, vm.outs, news);
  return news;
}

it("a PublicIp adopting the address an Instance with publicIp: true manages is refused at check and at create, changing nothing", async () => {
  const program = { ...validCreate, hostname: "owner-true", publicIp: true };
  const vm = await up<InstanceOutputs>(instance, program);
  const address = vm.outs.publicIpId!;
  await diffedInNextUp(vm, program);

  const checked = await publicIp.check({}, { instanceId: vm.id, adoptId: address });
  expect(checked.failures).toEqual([
    {
      property: "adoptId",
      reason: expect.stringMatching(
        new RegExp(
          `^this PublicIp would adopt the address that the Instance "owner-true" \\(${vm.id}\\) manages: that Instance of this ` +
            "stack declares publicIp: true, .*Nothing was changed\\. Manage the address on the Instance and remove this PublicIp; or, to " +
            "manage it here, remove publicIp from the Instance",
        ),
      ),
    },
  ]);
  // the create (a program whose check passed earlier, or a literal id the Instance's Diff came before): refused too
  const mark = h().mark();
  const error = await publicIp.create({ instanceId: vm.id, adoptId: address }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ProviderError);
  expect((error as Error).message).toContain(`the Instance "owner-true" (${vm.id}) manages`);
  expect(h().operationsSince(mark).filter((o) => o !== "listInstances" && o !== "getInstance")).toEqual([]);
  expect((await h().instance(vm.id))!.publicIpUuid).toBe(address);
  await instance.delete(vm.id, vm.outs);
});

it("an Instance with publicNetworkId, or publicIp: false, owns its address too: a new PublicIp there is refused, naming the field", async () => {
  const reserved = (await h().state()).publicIps.find((p) => p.locationId === 1 && p.seeded && p.instanceUuid === null)!.uuid;
  const pinned = await up<InstanceOutputs>(instance, { ...validCreate, hostname: "owner-pinned", publicNetworkId: reserved });
  const none = await up<InstanceOutputs>(instance, { ...validCreate, hostname: "owner-none", publicIp: false });
  const adopting = await publicIp.check({}, { instanceId: pinned.id, adoptId: reserved });
  expect(adopting.failures?.[0]?.reason).toContain(`declares publicNetworkId: "${reserved}"`);
  const adding = await publicIp.check({}, { instanceId: none.id });
  expect(adding.failures).toEqual([{ property: "instanceId", reason: expect.stringContaining(`the Instance "owner-none" (${none.id}) manages its public address: that Instance of this stack declares publicIp: false`) }]);
  expect(adding.failures?.[0]?.reason).toMatch(/^the Instance /); // the engine prints the property before it: not "instanceId: instanceId: …"
  await expect(publicIp.create({ instanceId: none.id })).rejects.toThrow("declares publicIp: false");
  expect((await h().instance(none.id))!.publicIpUuid).toBeNull();
  await instance.delete(pinned.id, pinned.outs);
  await instance.delete(none.id, none.outs);
});

it("handing the address over in one up: the Instance drops publicIp (its update runs first), the PublicIp adopts it", async () => {
  const program = { ...validCreate, hostname: "owner-handover", publicIp: true };
  const vm = await up<InstanceOutputs>(instance, program);
  const address = vm.outs.publicIpId!;
  const { publicIp: _dropped, ...unmanaged } = program;
  const news = await diffedInNextUp(vm, unmanaged);
  const updated = (await instance.update(vm.id, vm.outs, news)).outs as InstanceOutputs;
  const ip = await up<{ publicIpId: string }>(publicIp, { instanceId: vm.id, adoptId: address });
  expect(ip.id).toBe(address);
  expect((await h().instance(vm.id))!.publicIpUuid).toBe(address);
  forgetDeployment();
  await publicIp.delete(ip.id, ip.outs);
  await instance.delete(vm.id, updated);
});

it("an Instance without publicIp leaves the address to a PublicIp (created in the same up)", async () => {
  const vm = await up<InstanceOutputs>(instance, { ...validCreate, hostname: "owner-free" });
  const ip = await up<{ publicIpId: string }>(publicIp, { instanceId: vm.id });
  expect((await h().instance(vm.id))!.publicIpUuid).toBe(ip.id);
  forgetDeployment();
  await publicIp.delete(ip.id, ip.outs);
  await instance.delete(vm.id, vm.outs);
});
