/**
 * A fleet's PublicIps deleted at once (the first half of destroying 50 Instances with an address each): the shared
 * list's rows say which VM still holds its address and when it is off, so the deletes read no detail of their own
 * (make bench: 150 detail reads at the host's 10 requests/s became 50). Judged by the simulator's state, and on
 * hosts where a row cannot tell (rows written without addresses) or tells something else (the address swapped in
 * the panel), by the same outcomes as before.
 */
import "./instance-env";
import { providers } from "../../provider";
import { harnessSuite, progressSuite, up, type FullProvider } from "./attachment-helpers";

const publicIp = providers.PublicIp as FullProvider;
const h = harnessSuite();
const said = progressSuite();
afterEach(() => h().clearFaults());

/** `n` running VMs with a PublicIp each, made through the provider. */
async function pairs(prefix: string, n: number) {
  return Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const vm = await h().newInstance(`${prefix}-${i}`);
      return { vm, ip: await up(publicIp, { instanceId: vm }) };
    }),
  );
}

it("ten PublicIps deleted at once: every address off its VM, no detail read of their own", async () => {
  const fleet = await pairs("fleet-pip-off", 10);
  const mark = h().mark();
  await Promise.all(fleet.map(({ ip }) => publicIp.delete(ip.id, ip.outs)));
  const operations = h().operationsSince(mark);
  expect(operations.filter((o) => o === "changePublicIp")).toHaveLength(10);
  expect(operations.filter((o) => o === "getInstance")).toEqual([]);
  const state = await h().state();
  for (const { vm, ip } of fleet) {
    expect(state.instances.find((i) => i.uuid === vm)?.publicIpUuid).toBeNull();
    expect(state.publicIps.find((p) => p.uuid === ip.id)?.instanceUuid).toBeNull();
  }
});

it("on a host whose rows show no addresses, the delete reads the VM and still takes the address off", async () => {
  const [{ vm, ip }] = await pairs("null-row-pip-off", 1);
  await h().setFaults({ wire: { nullFields: ["ip_address"] } });
  const mark = h().mark();
  await publicIp.delete(ip.id, ip.outs);
  expect(h().operationsSince(mark).filter((o) => o === "getInstance").length).toBeGreaterThan(0);
  expect((await h().state()).instances.find((i) => i.uuid === vm)?.publicIpUuid).toBeNull();
});

it("an address swapped in the panel for another is left on the VM: the row shows an IP, not the recorded one", async () => {
  const [{ vm, ip }] = await pairs("swapped-pip-off", 1);
  await h().outOfBand(vm, { publicIp: false });
  await h().outOfBand(vm, { publicIp: true }); // another address, put on in the panel
  const other = (await h().state()).instances.find((i) => i.uuid === vm)!;
  expect(other.publicIpUuid).not.toBe(ip.id);
  said.length = 0;
  await publicIp.delete(ip.id, ip.outs);
  expect((await h().state()).instances.find((i) => i.uuid === vm)?.publicIpUuid).toBe(other.publicIpUuid);
  expect(said.join("\n")).toContain(`is no longer on instance ${vm}`);
});
