/**
 * Idempotent writes a host answers `200 {data: null}` after doing them (the simulator's `respondNext` with
 * `afterProcessing`): the disk attach and the private-network join (the "creates" of the attachment resources), and
 * the hostname, power and address changes of an Instance. Their answers carry nothing the provider needs (the effect is
 * read back), so each succeeds as done, sent once. Before, each failed as "unexpected response format" after it took
 * effect, at every up (real-api-facts audit). Judged by the simulator's state.
 */
import "./instance-env";
import { providers } from "../../provider";
import { forgetDeployment } from "../../provider/registry";
import { harnessSuite, type FullProvider } from "./attachment-helpers";
import { validCreate } from "./instance-cases";

const instance = providers.Instance as FullProvider;
const h = harnessSuite();
afterEach(() => h().clearFaults());
const nullAnswer = (operation: string) => ({ respondNext: { operation, status: 200, data: null, message: "Berhasil", afterProcessing: true } });

it.each([
  ["attachBlockStorage", "BlockStorageAttachment", "blockStorageId", "db6d5e8e-d773-4746-a190-15b68be62fd5"],
  ["updatePrivateNetwork", "VswitchAttachment", "vswitchId", "5d9df75b-eddc-4b4c-bba8-cf358958f15e"],
])("%s answered data null: the %s is created and recorded", async (operation, resource, key, target) => {
  const vm = await h().newInstance(`ack-${resource.toLowerCase()}`);
  await h().setFaults(nullAnswer(operation));
  const p = providers[resource as keyof typeof providers] as FullProvider;
  const checked = await p.check({}, { instanceId: vm, [key]: target });
  const mark = h().mark();
  const created = await p.create(checked.inputs);
  forgetDeployment();
  expect(created.id).toContain(target);
  const state = await h().state();
  if (resource === "BlockStorageAttachment") expect(state.blockStorages.find((b) => b.uuid === target)!.instanceUuid).toBe(vm);
  else expect(state.instances.find((i) => i.uuid === vm)!.vswitchUuid).toBe(target);
  expect(h().operationsSince(mark).filter((o) => o === operation)).toHaveLength(1);
});

it.each([
  ["updateHostname", { hostname: "ack-renamed" }],
  ["stopInstance", { powerState: "stopped" }],
  ["changePublicIp", { publicIp: true, publicNetworkId: "af64d801-dbae-47c7-b5b6-e77933bffbee" }],
])("%s answered data null: the Instance update is done, once", async (operation, change) => {
  const hostname = `ack-${operation.toLowerCase()}`;
  const checked = await instance.check({}, { ...validCreate, hostname });
  const created = await instance.create(checked.inputs);
  forgetDeployment();
  await h().setFaults(nullAnswer(operation));
  const news = (await instance.check(created.outs, { ...validCreate, hostname, ...change })).inputs;
  const mark = h().mark();
  await instance.update(created.id, created.outs, news);
  forgetDeployment();
  const vm = (await h().state()).instances.find((i) => i.uuid === created.id)!;
  const seen = { hostname: vm.hostname, status: vm.status, publicIpUuid: vm.publicIpUuid };
  if ("hostname" in change) expect(seen.hostname).toBe("ack-renamed");
  if ("powerState" in change) expect(seen.status).toBe("Stopped");
  if ("publicNetworkId" in change) expect(seen.publicIpUuid).toBe(change.publicNetworkId);
  expect(h().operationsSince(mark).filter((o) => o === operation)).toHaveLength(1);
});
