/**
 * Three valid inputs used to leave a change that never went away (issue 12): an Instance vswitchId or
 * publicNetworkId written in upper case (create even waited until its deadline for a network id that never
 * matched), and a FirewallRule description of only spaces (the API stores none). Through the registered
 * providers against the simulator: up, then refresh (read) and preview (check + diff) show no change.
 */
import "./instance-env";
import { providers } from "../../provider";
import { resetContext } from "../../provider/context";
import { startHarness, up, preview, type FullProvider, type SimHarness } from "./attachment-helpers";
import { validCreate } from "./instance-cases";

const instance = providers.Instance as FullProvider;
const firewallRule = providers.FirewallRule as FullProvider;
let h: SimHarness;

beforeAll(async () => {
  h = await startHarness();
  resetContext();
});
afterAll(() => h?.close());

/** refresh then preview, as `pulumi preview --refresh` does: no change proposed. */
async function expectConverged(provider: FullProvider, vm: { id: string; outs: unknown }, program: Record<string, unknown>): Promise<void> {
  const refreshed = await provider.read(vm.id, vm.outs);
  expect(await preview(provider, vm.id, refreshed.props, program)).toMatchObject({ changes: false });
}

it("an Instance with an upper-case vswitchId and publicNetworkId is created without waiting out its deadline, and converges", async () => {
  const state = await h.state();
  const network = state.vswitches.find((v) => v.locationId === 1)!;
  const reserved = state.publicIps.find((p) => p.locationId === 1 && p.seeded && p.instanceUuid === null)!;
  const program = {
    ...validCreate,
    hostname: "upper-ids",
    vswitchId: network.uuid.toUpperCase(),
    publicNetworkId: reserved.uuid.toUpperCase(),
    // a wait that never matched would fail here instead of hanging for 30 minutes
    timeouts: { create: "20s" },
  };
  const vm = await up(instance, program);
  expect(await h.instance(vm.id)).toMatchObject({ vswitchUuid: network.uuid, publicIpUuid: reserved.uuid });
  await expectConverged(instance, vm, program);
});

it("a FirewallRule description of only spaces converges (the API stores no description)", async () => {
  const vm = await up(instance, { ...validCreate, hostname: "blank-desc" });
  const program = { instanceId: vm.id.toUpperCase(), protocol: "tcp", port: 22, action: "accept", description: "   " };
  const rule = await up(firewallRule, program);
  await expectConverged(firewallRule, rule, program);
});
