/**
 * The one-owner rule seen from the Instance: an Instance declared WITHOUT publicIp/vswitchId does not
 * manage its address or private network, so a standalone PublicIp and VswitchAttachment on it never make
 * the Instance itself show drift (refresh = read, then preview = diff against the same program).
 */
import { startHarness, up, preview, type FullProvider, type SimHarness } from "./attachment-helpers";
import { instanceProvider } from "../../provider/resources/instance/provider";
import { publicIpProvider } from "../../provider/resources/public-ip/provider";
import { vswitchAttachmentProvider } from "../../provider/resources/vswitch-attachment/provider";
import type { PublicIpOutputs } from "../../provider/resources/public-ip/inputs";
import type { VswitchAttachmentOutputs } from "../../provider/resources/vswitch-attachment/inputs";

const instance = instanceProvider as unknown as FullProvider;
const publicIp = publicIpProvider as FullProvider;
const vswitch = vswitchAttachmentProvider as FullProvider;
let h: SimHarness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

const program = {
  locationId: 1,
  tierId: 2,
  templateId: 1,
  hostname: "standalone-1",
  cpu: 2,
  memory: 4,
  storage: 40,
  username: "deploy",
  password: "Blue-Horse-42",
};

it("an Instance without publicIp/vswitchId shows no change after a PublicIp and a VswitchAttachment took over those parts", async () => {
  const vm = await up<Record<string, unknown>>(instance, program);
  expect((await h.instance(vm.id))!.publicIpUuid).toBeNull();
  const network = (await h.state()).vswitches.find((v) => v.locationId === 1)!;

  const ip = await up<PublicIpOutputs>(publicIp, { instanceId: vm.id, rdns: "standalone.example.com" });
  const att = await up<VswitchAttachmentOutputs>(vswitch, { instanceId: vm.id, vswitchId: network.uuid });
  expect(await h.instance(vm.id)).toMatchObject({ publicIpUuid: ip.id, vswitchUuid: network.uuid });

  // refresh of the Instance: its read reports the new address and network as computed outputs ...
  const refreshed = await instance.read(vm.id, vm.outs);
  expect(refreshed.id).toBe(vm.id);
  expect(refreshed.props).toMatchObject({ ipAddress: ip.outs.ipAddress, privateNetwork: network.name });
  // ... the inputs the engine keeps (the read's, else those of the last up) still declare neither ...
  const storedInputs = (refreshed.inputs as Record<string, unknown> | undefined) ?? vm.inputs;
  expect(storedInputs).not.toHaveProperty("publicIp");
  expect(storedInputs).not.toHaveProperty("vswitchId");
  // ... so refresh reports no drift (Pulumi diffs the refreshed outputs against the stored inputs) ...
  expect(await instance.diff(vm.id, refreshed.props, storedInputs)).toMatchObject({ changes: false });
  // ... and the next preview of the same program proposes nothing
  expect(await preview(instance, vm.id, refreshed.props, program)).toMatchObject({ changes: false });
  // and an update of the Instance for an unrelated property leaves the address and network alone
  const renamed = { ...program, hostname: "standalone-2" };
  const checked = await instance.check(refreshed.props, renamed);
  await instance.update(vm.id, refreshed.props, checked.inputs);
  expect(await h.instance(vm.id)).toMatchObject({ hostname: "standalone-2", publicIpUuid: ip.id, vswitchUuid: network.uuid });

  // the standalone resources see no change either
  expect(await preview(publicIp, ip.id, (await publicIp.read(ip.id, ip.outs)).props, { instanceId: vm.id, rdns: "standalone.example.com" })).toMatchObject({ changes: false });
  expect(await preview(vswitch, att.id, (await vswitch.read(att.id, att.outs)).props, { instanceId: vm.id, vswitchId: network.uuid })).toMatchObject({ changes: false });

  // removing the standalone resources does not make the Instance drift
  await publicIp.delete(ip.id, ip.outs);
  await vswitch.delete(att.id, att.outs);
  const after = await instance.read(vm.id, refreshed.props);
  expect(await preview(instance, vm.id, after.props, renamed)).toMatchObject({ changes: false });
});
