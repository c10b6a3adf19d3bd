/**
 * A create whose connection was reset BEFORE the API acted (nothing made): the provider looks, finds nothing, and the
 * up fails. The error must say what the provider found (nothing was made) and the way on, not tell the user to go and
 * check whether it happened (the provider did).
 */
import { harnessSuite, progressSuite, up, type FullProvider } from "./attachment-helpers";
import { providers } from "../../provider";
import { forgetDeployment } from "../../provider/registry";

const h = harnessSuite();
progressSuite();
jest.setTimeout(60_000);
const P = providers as unknown as Record<string, FullProvider>;

it.each<[string, string, (vm: string) => Record<string, unknown>]>([
  ["PublicIp", "addPublicIp", (vm) => ({ instanceId: vm })],
  ["Snapshot", "createSnapshot", (vm) => ({ instanceId: vm, name: "lost" })],
  ["FirewallRule", "createFirewallRule", (vm) => ({ instanceId: vm, protocol: "tcp", port: 22, action: "accept" })],
])("%s: a reset before the API acted fails saying nothing was made and to run up again", async (type, operation, inputs) => {
  forgetDeployment();
  const vm = await h().newInstance(`lost-${type.toLowerCase()}`);
  await h().setFaults({ resetNext: { operation, count: 1, afterProcessing: false } });
  const error = await up(P[type]!, inputs(vm)).then(() => undefined, (e: Error) => e);
  await h().clearFaults();
  const st = (await h().admin<{ snapshots: { instanceUuid: string }[]; firewallRules: { instanceUuid: string }[]; instances: { uuid: string; publicIpUuid: string | null }[] }>("GET", "/state"));
  expect([st.snapshots.filter((s) => s.instanceUuid === vm).length, st.firewallRules.filter((s) => s.instanceUuid === vm).length, st.instances.find((i) => i.uuid === vm)!.publicIpUuid]).toEqual([0, 0, null]);
  expect(error).toBeDefined();
  expect(error!.message).not.toMatch(/check whether it happened/);
  expect(error!.message).toMatch(/(nothing was made, and it is not sent again|none was added, and the request was not sent again).* Run `pulumi up` again/);
});
