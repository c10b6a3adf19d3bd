/**
 * An attach (BlockStorageAttachment) or join (VswitchAttachment) whose answer is lost (a network error) and whose
 * read-back then fails too (every read answers 500: an outage), against the simulator's state. Whether it happened
 * on the host is unknown, so it is recorded under its fixed id (a ResourceInitError) instead of forgotten; the update
 * the engine runs for a recorded init error at the next up attaches/joins it when it is missing, and a refresh drops
 * the record when it is. A definite refusal (4xx) is not recorded: nothing was done.
 */
import { startHarness, up, type FullProvider, type SimHarness } from "./attachment-helpers";
import { blockStorageAttachmentProvider } from "../../provider/resources/block-storage-attachment/provider";
import { vswitchAttachmentProvider } from "../../provider/resources/vswitch-attachment/provider";
import { ResourceInitError } from "../../provider/resources/common/errors";
import { NetworkError, ServerError, ValidationError } from "../../provider/api";
import { getClient } from "../../provider/context";

jest.setTimeout(60_000);
const bsa = blockStorageAttachmentProvider as FullProvider;
const vsa = vswitchAttachmentProvider as FullProvider;
let h: SimHarness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

/** What happens to the write: done on the host and its answer lost; lost before the host; refused (422). */
type Fate = "done, answer lost" | "lost before the host" | "refused";

const outage = () => new ServerError({ operation: "getInstance", method: "GET", path: "/instance/{instance_uuid}/detail", status: 500, apiMessage: "Server Error" });

/**
 * Makes the provider's next attach (or join) meet `fate`; every read after it fails (an outage). Returns the undo.
 * The provider's client is spied on: the simulator cannot lose an answer and then fail every read.
 */
function writeThenOutage(write: "attach" | "join", fate: Fate): () => void {
  const client = getClient();
  let down = false;
  const lost = (operation: string, path: string) =>
    new NetworkError({ operation, method: "PATCH", path, cause: new Error("socket hang up"), code: "ECONNRESET" });
  const fail = (operation: string, path: string): Error => {
    down = true;
    return fate === "refused" ? new ValidationError({ operation, method: "PATCH", path, status: 422, apiMessage: "refused" }) : lost(operation, path);
  };
  const realFind = client.instances.find.bind(client.instances);
  const realGet = client.instances.get.bind(client.instances);
  const realList = client.storage.list.bind(client.storage);
  const spies = [
    write === "attach"
      ? jest.spyOn(client.storage, "attach").mockImplementation(async (id, body) => {
          if (fate === "done, answer lost") await h.client.storage.attach(id, body);
          throw fail("attachBlockStorage", "/storage/blocks/{block_storage_id}/attach");
        })
      : jest.spyOn(client.network, "updatePrivateNetwork").mockImplementation(async (id, body) => {
          if (fate === "done, answer lost") await h.client.network.updatePrivateNetwork(id, body);
          throw fail("updatePrivateNetwork", "/instance/{instance_uuid}/vswitch/update");
        }),
    jest.spyOn(client.instances, "find").mockImplementation(async (...a) => { if (down) throw outage(); return realFind(...a); }),
    jest.spyOn(client.instances, "get").mockImplementation(async (...a) => { if (down) throw outage(); return realGet(...a); }),
    jest.spyOn(client.storage, "list").mockImplementation(async (...a) => { if (down) throw outage(); return realList(...a); }),
  ];
  return () => spies.forEach((s) => s.mockRestore());
}

/** Runs `create` under `fate`, then ends the outage; its error. */
async function createUnder(provider: FullProvider, write: "attach" | "join", fate: Fate, program: Record<string, unknown>): Promise<unknown> {
  const inputs = (await provider.check({}, program)).inputs;
  const restore = writeThenOutage(write, fate);
  try {
    return await provider.create(inputs).then(() => new Error("create succeeded"), (e: unknown) => e);
  } finally {
    restore();
  }
}

const diskOn = async (uuid: string) => (await h.state()).blockStorages.find((b) => b.uuid === uuid)!.instanceUuid;
const vswitchOf = async (vm: string) => (await h.instance(vm))!.vswitchUuid;
const writes = (mark: number) => h.methodsSince(mark).filter((m) => m !== "GET");

describe("BlockStorageAttachment", () => {
  const disk = async (name: string) => (await h.state()).blockStorages.find((b) => b.name === name)!;

  it("attach done, its answer lost, the read-back failing: recorded under the disk's id; the forced update then finds it attached", async () => {
    const vm = await h.newInstance("lost-attach-done");
    const d = await disk("jkt-data-50");
    const program = { instanceId: vm, blockStorageId: d.uuid };
    const error = await createUnder(bsa, "attach", "done, answer lost", program);
    expect(error).toBeInstanceOf(ResourceInitError);
    const init = error as ResourceInitError;
    expect(init.message).toContain(`the request to attach block storage ${d.uuid} to instance ${vm} got no answer`);
    expect(init.message).toContain("the next pulumi up attaches it if it is not, pulumi refresh drops the record if it is not");
    expect([init.id, init.properties]).toEqual([d.uuid, { blockStorageId: d.uuid, instanceId: vm, name: d.name, sizeGb: d.sizeGb }]);
    expect(await diskOn(d.uuid)).toBe(vm);
    // The next up: the engine updates a resource with init errors; attached already, so no write.
    const mark = h.mark();
    const updated = await bsa.update(init.id, init.properties, (await bsa.check(init.properties, program)).inputs);
    expect(updated.outs).toEqual({ blockStorageId: d.uuid, instanceId: vm, name: d.name, sizeGb: d.sizeGb });
    expect(writes(mark)).toEqual([]);
    await bsa.delete(init.id, updated.outs); // destroy detaches it
    expect(await diskOn(d.uuid)).toBeNull();
  });

  it("attach lost before the host, the read-back failing: recorded; refresh drops it, and the forced update attaches it", async () => {
    const vm = await h.newInstance("lost-attach-undone");
    const d = await disk("jkt-data-100");
    const program = { instanceId: vm, blockStorageId: d.uuid };
    const init = (await createUnder(bsa, "attach", "lost before the host", program)) as ResourceInitError;
    expect(init).toBeInstanceOf(ResourceInitError);
    expect(init.id).toBe(d.uuid);
    expect(await diskOn(d.uuid)).toBeNull();
    expect(await bsa.read(init.id, init.properties)).toEqual({}); // pulumi refresh: not attached, the record goes
    const mark = h.mark();
    const updated = await bsa.update(init.id, init.properties, (await bsa.check(init.properties, program)).inputs);
    expect(h.operationsSince(mark)).toContain("attachBlockStorage");
    expect(updated.outs).toMatchObject({ blockStorageId: d.uuid, instanceId: vm });
    expect(await diskOn(d.uuid)).toBe(vm);
    await bsa.delete(init.id, updated.outs);
  });

  it("an attach refused (422) with the read-back failing is not recorded: nothing was done", async () => {
    const vm = await h.newInstance("refused-attach");
    const d = await disk("jkt-archive-20");
    const error = await createUnder(bsa, "attach", "refused", { instanceId: vm, blockStorageId: d.uuid });
    expect(error).toBeInstanceOf(ValidationError);
    expect(await diskOn(d.uuid)).toBeNull();
  });

  it("an update finding the disk detached out of band attaches it again; one attached to another VM is refused, untouched", async () => {
    const [vm, other] = [await h.newInstance("bsa-detached-update"), await h.newInstance("bsa-elsewhere-update")];
    const d = await disk("jkt-data-50");
    const program = { blockStorageId: d.uuid, instanceId: vm };
    const { id, outs } = await up<Record<string, unknown>>(bsa, program);
    await h.client.storage.detach(d.uuid);
    const updated = await bsa.update(id, outs, (await bsa.check(outs, { ...program, timeouts: { delete: "1m" } })).inputs);
    expect(updated.outs).toMatchObject({ blockStorageId: d.uuid, instanceId: vm, timeouts: { delete: "1m" } });
    expect(await diskOn(d.uuid)).toBe(vm);
    await h.client.storage.detach(d.uuid);
    await h.client.storage.attach(d.uuid, { instanceId: other });
    const mark = h.mark();
    await expect(bsa.update(id, outs, (await bsa.check(outs, program)).inputs)).rejects.toThrow(
      `block storage ${d.uuid} is attached to instance ${other}; a disk is attached to one instance at a time`,
    );
    expect(writes(mark)).toEqual([]);
    expect(await diskOn(d.uuid)).toBe(other);
    await h.client.storage.detach(d.uuid);
  });
});

describe("VswitchAttachment", () => {
  const vswitch = async (name: string) => (await h.state()).vswitches.find((v) => v.name === name)!;

  it("join done, its answer lost, the read-back failing: recorded under <vm>/<vswitch>; the forced update then finds it joined", async () => {
    const vm = await h.newInstance("lost-join-done");
    const vs = await vswitch("jkt-private-1");
    const program = { instanceId: vm, vswitchId: vs.uuid };
    const init = (await createUnder(vsa, "join", "done, answer lost", program)) as ResourceInitError;
    expect(init).toBeInstanceOf(ResourceInitError);
    expect(init.message).toContain(`the request for instance ${vm} to join private network ${vs.uuid} got no answer`);
    expect([init.id, init.properties]).toEqual([`${vm}/${vs.uuid}`, { instanceId: vm, vswitchId: vs.uuid, vswitchName: vs.name, networkIp: vs.networkIp, location: expect.any(String) }]);
    expect(await vswitchOf(vm)).toBe(vs.uuid);
    const mark = h.mark();
    const updated = await vsa.update(init.id, init.properties, (await vsa.check(init.properties, program)).inputs);
    expect(updated.outs).toMatchObject({ instanceId: vm, vswitchId: vs.uuid, vswitchName: vs.name });
    expect(writes(mark)).toEqual([]);
    await vsa.delete(init.id, updated.outs);
    expect(await vswitchOf(vm)).toBeNull();
  });

  it("join lost before the host, the read-back failing: recorded; refresh drops it, and the forced update joins it", async () => {
    const vm = await h.newInstance("lost-join-undone");
    const vs = await vswitch("jkt-private-2");
    const program = { instanceId: vm, vswitchId: vs.uuid };
    const init = (await createUnder(vsa, "join", "lost before the host", program)) as ResourceInitError;
    expect(init).toBeInstanceOf(ResourceInitError);
    expect(await vswitchOf(vm)).toBeNull();
    expect(await vsa.read(init.id, init.properties)).toEqual({});
    const updated = await vsa.update(init.id, init.properties, (await vsa.check(init.properties, program)).inputs);
    expect(updated.outs).toMatchObject({ instanceId: vm, vswitchId: vs.uuid });
    expect(await vswitchOf(vm)).toBe(vs.uuid);
    await vsa.delete(init.id, updated.outs);
  });

  it("a join refused (422) with the read-back failing is not recorded", async () => {
    const vm = await h.newInstance("refused-join");
    const vs = await vswitch("jkt-private-1");
    const error = await createUnder(vsa, "join", "refused", { instanceId: vm, vswitchId: vs.uuid });
    expect(error).toBeInstanceOf(ValidationError);
    expect(await vswitchOf(vm)).toBeNull();
  });
});
