/**
 * The hosts' docs sample writes `ip_address: null` on instance list rows (real-api-facts.md). A destroy that read such
 * a row as "the VM holds no address" skipped the detail and deleted the VM with remove_ip=1: a reserved address of
 * the user's, put on the VM in the panel, was released from the account. Judged by the simulator's state (its
 * `wire.nullFields`). (real-api-facts audit)
 */
import "./instance-env";
import { providers } from "../../provider";
import { harnessSuite, progressSuite, up, type FullProvider } from "./attachment-helpers";
import { validCreate } from "./instance-cases";
import { forgetDeployment } from "../../provider/registry";

const instance = providers.Instance as FullProvider;
const h = harnessSuite();
const said = progressSuite();
afterEach(() => h().clearFaults());

it("a destroy keeps the user's reserved address when list rows say ip_address null", async () => {
  const checked = await instance.check({}, { ...validCreate, hostname: "null-row-address", publicIp: false });
  const created = await instance.create(checked.inputs);
  forgetDeployment();
  const reserved = "bfe57f20-12dd-46eb-8eb3-1a234115df5c"; // seeded, the user's
  await h().outOfBand(created.id, { publicIp: reserved });
  await h().setFaults({ wire: { nullFields: ["ip_address"] } });
  await instance.delete(created.id, created.outs);
  const state = await h().state();
  expect(state.instances.find((i) => i.uuid === created.id)).toBeUndefined();
  expect(state.publicIps.find((p) => p.uuid === reserved)).toMatchObject({ address: "103.150.10.12", instanceUuid: null });
});

it("a PublicIp create on a host whose rows say ip_address null reads the VM before adding: a VM holding an address is refused, nothing added", async () => {
  // (this process has seen no row showing an address: the host may write null on every row, as its docs sample does)
  await h().setFaults({ wire: { nullFields: ["ip_address"] } });
  const vm = (await instance.create((await instance.check({}, { ...validCreate, hostname: "null-row-pip", publicIp: false })).inputs)).id;
  forgetDeployment();
  await h().outOfBand(vm, { publicIp: true }); // an address put on the VM in the panel
  const held = (await h().state()).instances.find((i) => i.uuid === vm)!;
  const mark = h().mark();
  await expect(up(providers.PublicIp as FullProvider, { instanceId: vm })).rejects.toThrow(
    `instance ${vm} already has public address ${held.publicIpUuid}: a PublicIp adds an address only to an instance without one`,
  );
  expect(h().operationsSince(mark).filter((o) => o === "addPublicIp" || o === "changePublicIp")).toEqual([]);
  expect((await h().state()).instances.find((i) => i.uuid === vm)?.publicIpUuid).toBe(held.publicIpUuid);
});

it("the delete of a PublicIp whose address moved to another VM in the panel never says it is on no VM where rows do not show addresses", async () => {
  await h().setFaults({ wire: { nullFields: ["ip_address"] } });
  const create = async (hostname: string) => (await instance.create((await instance.check({}, { ...validCreate, hostname })).inputs)).id;
  const vm = await create("null-row-moved-from");
  const other = await create("null-row-moved-to");
  const ip = await up(providers.PublicIp as FullProvider, { instanceId: vm });
  await h().outOfBand(vm, { publicIp: false }); // moved in the panel: off this VM, onto the other
  await h().outOfBand(other, { publicIp: ip.id });
  said.length = 0;
  await (providers.PublicIp as FullProvider).delete(ip.id, ip.outs);
  expect(said.join("\n")).toContain(`is no longer on instance ${vm} (taken off outside this run), so it is left as it is: if it is on another VM, it stays there`);
  expect(said.join("\n")).not.toContain("is on no VM");
  expect((await h().state()).instances.find((i) => i.uuid === other)?.publicIpUuid).toBe(ip.id);
});
