/**
 * An idempotent write (a detach, leaving a private network) whose first attempt the host holds past the request bound
 * and carries out late, after the client's retry succeeded (update audit): an attachment moved in one up (delete, then
 * create) must end attached where the program says, not undone by the late first attempt of the delete. Through the
 * registered providers against the simulator, as the engine runs a delete-before-replace; judged on the simulator.
 */
import "./instance-env";
import { providers } from "../../provider";
import { forgetDeployment } from "../../provider/registry";
import { harnessSuite, preview, up, until, type FullProvider } from "./attachment-helpers";

// The request bound: a held request fails after 1 s, and the simulator carries it out at 1.8 s (within twice the bound).
process.env.VMHOST_REQUEST_TIMEOUT = "1s";
const HELD_MS = 1800;
const harness = harnessSuite();
afterEach(() => harness().clearFaults());

it("a BlockStorageAttachment moved to another VM whose detach is carried out late stays attached to the new VM", async () => {
  const h = harness();
  const [a, b] = [await h.newInstance("late-detach-a"), await h.newInstance("late-detach-b")];
  const disk = (await h.state()).blockStorages.find((d) => d.locationId === 1 && d.instanceUuid === null)!;
  const attachment = providers.BlockStorageAttachment as FullProvider;
  const first = await up<Record<string, unknown>>(attachment, { blockStorageId: disk.uuid, instanceId: a });
  forgetDeployment(); // the next up: a new provider process
  expect(await preview(attachment, first.id, first.outs, { blockStorageId: disk.uuid, instanceId: b })).toMatchObject({ replaces: ["instanceId"], deleteBeforeReplace: true });
  await h.setFaults({ delayNext: { operation: "detachBlockStorage", ms: HELD_MS, count: 1 } });
  const mark = h.mark();
  await attachment.delete(first.id, first.outs);
  const moved = await up<Record<string, unknown>>(attachment, { blockStorageId: disk.uuid, instanceId: b });
  expect(moved.outs).toMatchObject({ instanceId: b });
  // (both detaches answered: the held one has been carried out)
  await until(() => h.sim.requests().slice(mark).filter((r) => r.operation === "detachBlockStorage" && r.status === 200).length === 2);
  expect((await h.state()).blockStorages.find((d) => d.uuid === disk.uuid)?.instanceUuid).toBe(b);
});

it("a VswitchAttachment moved to another network whose leave is carried out late stays on the new network", async () => {
  const h = harness();
  const vm = await h.newInstance("late-leave");
  const [n1, n2] = (await h.state()).vswitches.filter((v) => v.locationId === 1).map((v) => v.uuid);
  const attachment = providers.VswitchAttachment as FullProvider;
  const first = await up<Record<string, unknown>>(attachment, { instanceId: vm, vswitchId: n1 });
  forgetDeployment();
  expect(await preview(attachment, first.id, first.outs, { instanceId: vm, vswitchId: n2 })).toMatchObject({ replaces: ["vswitchId"], deleteBeforeReplace: true });
  await h.setFaults({ delayNext: { operation: "updatePrivateNetwork", ms: HELD_MS, count: 1 } });
  const mark = h.mark();
  await attachment.delete(first.id, first.outs);
  await up<Record<string, unknown>>(attachment, { instanceId: vm, vswitchId: n2 });
  await until(() => h.sim.requests().slice(mark).filter((r) => r.operation === "updatePrivateNetwork" && r.status === 200).length === 3);
  expect((await h.instance(vm))?.vswitchUuid).toBe(n2);
});
