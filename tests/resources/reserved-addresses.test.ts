/**
 * The user's own reserved addresses pinned with `publicNetworkId`, against the simulator (its own, so the seeded
 * reserved addresses are all free here): never kept as the resource's to release.
 */
import "./instance-env";
import { providers } from "../../provider";
import { resetContext } from "../../provider/context";
import type { InstanceOutputs } from "../../provider/resources/instance/inputs";
import { startHarness, up, type FullProvider, type SimHarness } from "./attachment-helpers";
import { validCreate } from "./instance-cases";

const instance = providers.Instance as FullProvider;
let h: SimHarness;
beforeAll(async () => {
  h = await startHarness();
  resetContext();
});
afterAll(() => h?.close());

it.each([
  ["swapped for another reserved address (publicNetworkId A -> B)", (b: string) => ({ publicNetworkId: b })],
  ["taken off (publicIp: false)", () => ({ publicIp: false })],
])("a pinned reserved address %s stays the user's: it is not kept to release, and the VM's delete leaves it reserved", async (what, next) => {
  const [a, b] = (await h.state()).publicIps.filter((p) => p.locationId === 1 && p.seeded && p.instanceUuid === null).map((p) => p.uuid);
  const vm = await up<InstanceOutputs>(instance, { ...validCreate, hostname: `pinned-off-${what.length}`, publicNetworkId: a! });
  const { publicNetworkId: _pinned, ...program } = vm.inputs;
  const news = (await instance.check(vm.inputs, { ...program, ...next(b!) })).inputs;
  expect(await instance.diff(vm.id, vm.outs, news)).toMatchObject({ changes: true, replaces: [] });
  const outs = (await instance.update(vm.id, vm.outs, news)).outs as InstanceOutputs;
  expect(outs.reservedPublicIpId).toBeUndefined();
  await instance.delete(vm.id, outs); // default deleteOptions: removePublicIp true
  const after = await h.state();
  expect(after.instances.find((i) => i.uuid === vm.id)).toBeUndefined();
  // soak: A was assigned back and released with the VM, and a program pinning A again was refused at every up
  expect(after.publicIps.find((p) => p.uuid === a)).toMatchObject({ instanceUuid: null });
});
