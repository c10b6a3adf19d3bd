/**
 * The BlockStorageAttachment provider against the simulator: check before any call, diff decisions, attach
 * and a read right after = no change, drift after out-of-band detach / re-attach elsewhere, 404 semantics,
 * adopt, refusing a disk attached to another instance, delete-first replacement, a failure after the attach
 * recorded with its id, and the fallback view for hosts without the block storage list.
 */
import { startHarness, up, preview, until, type FullProvider, type SimHarness, type SimState } from "./attachment-helpers";
import { blockStorageAttachmentProvider } from "../../provider/resources/block-storage-attachment/provider";
import { ProviderError, ResourceInitError } from "../../provider/resources/common/errors";
import type { BlockStorageAttachmentOutputs } from "../../provider/resources/block-storage-attachment/inputs";
import { NotFoundError, ServerError } from "../../provider/api";
import { configure, getClient } from "../../provider/context";

const provider = blockStorageAttachmentProvider as FullProvider;
let h: SimHarness;
let disks: SimState["blockStorages"]; // the three Jakarta disks

beforeAll(async () => {
  h = await startHarness();
  disks = (await h.state()).blockStorages.filter((b) => b.locationId === 1);
});
afterAll(() => h?.close());
afterEach(() => h.clearFaults());

const VM = "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab";
const DISK = "0a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d";
const diskOf = async (uuid: string) => (await h.state()).blockStorages.find((b) => b.uuid === uuid)!;

describe("check", () => {
  it.each<[string, string, Record<string, unknown>]>([
    ["no blockStorageId", "blockStorageId", { instanceId: VM }],
    ["no instanceId", "instanceId", { blockStorageId: DISK }],
    ["the disk's name instead of its uuid", "blockStorageId", { blockStorageId: "jkt-data-50", instanceId: VM }],
    ["a numeric disk id", "blockStorageId", { blockStorageId: 50, instanceId: VM }],
    ["an instance hostname", "instanceId", { blockStorageId: DISK, instanceId: "db-1" }],
    ["adoptId of another disk", "adoptId", { blockStorageId: DISK, instanceId: VM, adoptId: VM }],
    ["adoptId that is not a uuid", "adoptId", { blockStorageId: DISK, instanceId: VM, adoptId: "yes" }],
    ["an update timeout in words", "timeouts.update", { blockStorageId: DISK, instanceId: VM, timeouts: { update: "five minutes" } }],
    ["a read timeout (there is none)", "timeouts.read", { blockStorageId: DISK, instanceId: VM, timeouts: { read: "1m" } }],
    ["a misspelled property", "instance", { blockStorageId: DISK, instance: VM }],
  ])("refuses %s, naming %s, before any API call", async (_what, property, inputs) => {
    const mark = h.mark();
    const result = await provider.check({}, inputs);
    expect(result.failures?.map((f) => f.property)).toContain(property);
    expect(h.operationsSince(mark)).toEqual([]);
  });
});

describe("lifecycle", () => {
  it("attaches; a read right after shows no change; delete detaches (the disk stays); deleting again changes nothing", async () => {
    const vm = await h.newInstance("bsa-life");
    const disk = disks[0]!;
    const program = { blockStorageId: disk.uuid, instanceId: vm };
    const { id, outs } = await up<BlockStorageAttachmentOutputs>(provider, program);
    expect(id).toBe(disk.uuid);
    expect((await diskOf(disk.uuid)).instanceUuid).toBe(vm);
    expect(outs).toEqual({ blockStorageId: disk.uuid, instanceId: vm, name: disk.name, sizeGb: disk.sizeGb });
    const read = await provider.read(id, outs);
    expect(read).toEqual({ id, props: outs, inputs: program });
    expect(await preview(provider, id, read.props, program)).toMatchObject({ changes: false });

    await provider.delete(id, outs);
    expect(await diskOf(disk.uuid)).toMatchObject({ instanceUuid: null, name: disk.name });
    expect(await provider.read(id, outs)).toEqual({});
    const mark = h.mark();
    await provider.delete(id, outs);
    expect(h.operationsSince(mark)).not.toContain("detachBlockStorage");
  });

  it("records adoptId set after create in place, with reads only (as every resource does)", async () => {
    const vm = await h.newInstance("bsa-adopt-later");
    const disk = disks[0]!;
    const { id, outs } = await up<BlockStorageAttachmentOutputs>(provider, { blockStorageId: disk.uuid, instanceId: vm });
    const program = { blockStorageId: disk.uuid, instanceId: vm, adoptId: disk.uuid };
    expect(await preview(provider, id, outs, program)).toMatchObject({ changes: true, replaces: [] });
    const mark = h.mark();
    const updated = await provider.update(id, outs, (await provider.check(outs, program)).inputs);
    expect(updated.outs).toMatchObject({ adoptId: disk.uuid });
    expect(new Set(h.methodsSince(mark))).toEqual(new Set(["GET"]));
    expect(await preview(provider, id, updated.outs!, program)).toMatchObject({ changes: false });
    await provider.delete(id, updated.outs!);
  });

  it("moves a disk to another instance delete-first: detach, then attach there", async () => {
    const [vm1, vm2] = [await h.newInstance("bsa-move-1"), await h.newInstance("bsa-move-2")];
    const disk = disks[1]!;
    const a = await up<BlockStorageAttachmentOutputs>(provider, { blockStorageId: disk.uuid, instanceId: vm1 });
    const next = { blockStorageId: disk.uuid, instanceId: vm2 };
    expect(await preview(provider, a.id, a.outs, next)).toMatchObject({ changes: true, replaces: ["instanceId"], deleteBeforeReplace: true });
    await provider.delete(a.id, a.outs);
    await up<BlockStorageAttachmentOutputs>(provider, next);
    expect((await diskOf(disk.uuid)).instanceUuid).toBe(vm2);
    await provider.delete(disk.uuid, { ...a.outs, instanceId: vm2 });
  });
});

describe("drift and 404", () => {
  it("reports the attachment gone after an out-of-band detach, and gone (untouched by delete) when attached elsewhere", async () => {
    const [vm1, vm2] = [await h.newInstance("bsa-drift-1"), await h.newInstance("bsa-drift-2")];
    const disk = disks[2]!;
    const { id, outs } = await up<BlockStorageAttachmentOutputs>(provider, { blockStorageId: disk.uuid, instanceId: vm1 });
    await h.client.storage.detach(disk.uuid); // someone else detaches it
    expect(await provider.read(id, outs)).toEqual({});
    await h.client.storage.attach(disk.uuid, { instanceId: vm2 }); // ... and attaches it to another VM
    expect(await provider.read(id, outs)).toEqual({});
    const mark = h.mark();
    await provider.delete(id, outs);
    expect(h.operationsSince(mark)).not.toContain("detachBlockStorage");
    expect((await diskOf(disk.uuid)).instanceUuid).toBe(vm2);
    await h.client.storage.detach(disk.uuid);
  });

  it("a disk moved to another VM while the delete waited for its VM to be idle stays on that VM", async () => {
    const [vm1, vm2] = [await h.newInstance("bsa-race-1"), await h.newInstance("bsa-race-2")];
    const disk = disks[2]!;
    const { id, outs } = await up<BlockStorageAttachmentOutputs>(provider, { blockStorageId: disk.uuid, instanceId: vm1 });
    await h.setFaults({ stickNext: { kind: "stop" } });
    await h.client.instances.stop(vm1); // an operation started in the panel: the VM is busy
    const mark = h.mark();
    const deleting = provider.delete(id, outs);
    // the delete has seen the disk attached here and waits for the VM to be idle
    await until(() => h.operationsSince(mark).filter((o) => o === "listInstances").length >= 2);
    await h.admin("PATCH", `/block-storages/${disk.uuid}`, { instanceId: null }); // moved in the panel meanwhile
    await h.admin("PATCH", `/block-storages/${disk.uuid}`, { instanceId: vm2 });
    await h.admin("POST", `/instances/${vm1}/finish-operation`, {});
    await deleting;
    // audit (destroy): the detach was sent after the wait without looking again, taking the disk off the other VM
    expect((await diskOf(disk.uuid)).instanceUuid).toBe(vm2);
    expect(h.operationsSince(mark)).not.toContain("detachBlockStorage");
    await h.client.storage.detach(disk.uuid);
  });

  it("attaches the disk again in an in-place update once it was detached out of band (as declared)", async () => {
    const vm = await h.newInstance("bsa-detached-update");
    const disk = disks[0]!;
    const program = { blockStorageId: disk.uuid, instanceId: vm };
    const { id, outs } = await up<BlockStorageAttachmentOutputs>(provider, program);
    await h.client.storage.detach(disk.uuid);
    const mark = h.mark();
    const updated = await provider.update(id, outs, { ...program, timeouts: { delete: "1m" } });
    expect(updated.outs).toEqual({ ...outs, timeouts: { delete: "1m" } });
    expect(h.operationsSince(mark)).toContain("attachBlockStorage");
    expect((await diskOf(disk.uuid)).instanceUuid).toBe(vm);
    await provider.delete(id, updated.outs);
  });

  it("reports it gone when the instance is deleted (its disks are detached), and delete succeeds", async () => {
    const vm = await h.newInstance("bsa-404");
    const disk = disks[0]!;
    const { id, outs } = await up<BlockStorageAttachmentOutputs>(provider, { blockStorageId: disk.uuid, instanceId: vm });
    await h.outOfBand(vm, { deleted: true });
    expect(await provider.read(id, outs)).toEqual({});
    await expect(provider.delete(id, outs)).resolves.toBeUndefined();
    expect((await diskOf(disk.uuid)).instanceUuid).toBeNull();
  });

  it("a create retried after the disk was attached here (an interrupted up) sends no second attach", async () => {
    const vm = await h.newInstance("bsa-retry");
    const disk = disks[1]!;
    await up(provider, { blockStorageId: disk.uuid, instanceId: vm });
    const mark = h.mark();
    const { outs } = await up<BlockStorageAttachmentOutputs>(provider, { blockStorageId: disk.uuid, instanceId: vm });
    expect(h.operationsSince(mark)).not.toContain("attachBlockStorage");
    expect(outs).toEqual({ blockStorageId: disk.uuid, instanceId: vm, name: disk.name, sizeGb: disk.sizeGb });
    await provider.delete(disk.uuid, outs);
  });

  it("refuses a disk that does not exist, before changing anything", async () => {
    const vm = await h.newInstance("bsa-nodisk");
    const mark = h.mark();
    await expect(up(provider, { blockStorageId: DISK, instanceId: vm })).rejects.toThrow(
      "block storage 0a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d does not exist (blockStorageId must be the uuid of a block storage; getBlockStorages lists them)",
    );
    expect(h.operationsSince(mark)).not.toContain("attachBlockStorage");
  });
});

describe("adopt and ownership", () => {
  it("refuses a disk attached to another instance and leaves it there", async () => {
    const [vm1, vm2] = [await h.newInstance("bsa-own-1"), await h.newInstance("bsa-own-2")];
    const disk = disks[1]!;
    await h.client.storage.attach(disk.uuid, { instanceId: vm1 });
    const mark = h.mark();
    const error = await up(provider, { blockStorageId: disk.uuid, instanceId: vm2 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as Error).message).toContain(`attached to instance ${vm1}`);
    expect(h.operationsSince(mark)).not.toContain("attachBlockStorage");
    expect((await diskOf(disk.uuid)).instanceUuid).toBe(vm1);

    // adopting the existing attachment on vm1 takes it over without a write
    const adopted = await up<BlockStorageAttachmentOutputs>(provider, { blockStorageId: disk.uuid, instanceId: vm1, adoptId: disk.uuid });
    expect(adopted).toMatchObject({ id: disk.uuid, outs: { name: disk.name, adoptId: disk.uuid } });
    expect(h.operationsSince(mark)).not.toContain("attachBlockStorage");
    await provider.delete(adopted.id, adopted.outs);
  });

  it("refuses to adopt a disk that is not attached to the instance", async () => {
    const vm = await h.newInstance("bsa-adopt-none");
    await expect(up(provider, { blockStorageId: disks[0]!.uuid, instanceId: vm, adoptId: disks[0]!.uuid })).rejects.toThrow(/cannot adopt .* not attached/);
  });
});

describe("failures", () => {
  it("records nothing when the API refuses the attach: its error stands and the disk stays detached", async () => {
    const vm = await h.newInstance("bsa-refused");
    const disk = disks[0]!;
    const storage = getClient().storage;
    const spy = jest
      .spyOn(storage, "attach")
      .mockRejectedValueOnce(new ServerError({ operation: "attachBlockStorage", method: "PATCH", path: "/storage/blocks/{block_storage_id}/attach", status: 500, apiMessage: "Server Error" }));
    try {
      const error = await up(provider, { blockStorageId: disk.uuid, instanceId: vm }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServerError);
      expect(error).not.toBeInstanceOf(ResourceInitError);
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
    }
    expect((await diskOf(disk.uuid)).instanceUuid).toBeNull();
  });

  it("deletes successfully when the instance is deleted while the detach runs, and fails on any other refusal", async () => {
    const storage = getClient().storage;
    const doomed = await h.newInstance("bsa-detach-vanish");
    const a = await up<BlockStorageAttachmentOutputs>(provider, { blockStorageId: disks[0]!.uuid, instanceId: doomed });
    const vanish = jest.spyOn(storage, "detach").mockImplementation(async () => {
      await h.outOfBand(doomed, { deleted: true });
      throw new Error("connection reset while the instance was being deleted");
    });
    try {
      await expect(provider.delete(a.id, a.outs)).resolves.toBeUndefined();
    } finally {
      vanish.mockRestore();
    }

    const kept = await h.newInstance("bsa-detach-refused");
    const b = await up<BlockStorageAttachmentOutputs>(provider, { blockStorageId: disks[1]!.uuid, instanceId: kept });
    const refused = jest.spyOn(storage, "detach").mockRejectedValue(new Error("the host refused"));
    try {
      await expect(provider.delete(b.id, b.outs)).rejects.toThrow("the host refused");
    } finally {
      refused.mockRestore();
    }
    expect((await diskOf(disks[1]!.uuid)).instanceUuid).toBe(kept);
    await provider.delete(b.id, b.outs);
  });

  it("records the attachment with its id when only the read after the attach fails", async () => {
    const vm = await h.newInstance("bsa-readback");
    const disk = disks[2]!;
    const storage = getClient().storage;
    const realList = storage.list.bind(storage);
    let seenAttached = false;
    // the list answers until the wait has seen the disk attached; the read after it fails
    const spy = jest.spyOn(storage, "list").mockImplementation(async () => {
      const rows = await realList();
      const attached = rows.some((d) => d.id === disk.uuid && d.attached_instance_uuid === vm);
      if (attached && seenAttached) throw new ServerError({ operation: "listBlockStorages", method: "GET", path: "/storage/blocks", status: 500 });
      seenAttached ||= attached;
      return rows;
    });
    let error: unknown;
    try {
      error = await up(provider, { blockStorageId: disk.uuid, instanceId: vm }).catch((e: unknown) => e);
    } finally {
      spy.mockRestore();
    }
    expect(error).toBeInstanceOf(ResourceInitError);
    const init = error as ResourceInitError;
    expect(init.message).toMatch(new RegExp(`^block storage ${disk.uuid} was attached to instance ${vm}, but reading it back failed: `));
    expect(init.properties).toEqual({ blockStorageId: disk.uuid, instanceId: vm, name: disk.name, sizeGb: disk.sizeGb });
    expect(init.reasons).toHaveLength(1);
    expect(init.cause).toBeInstanceOf(ServerError);
    await provider.delete(init.id, init.properties);
  });

  it("a detach answered 404 (the disk went meanwhile) is a finished delete", async () => {
    const vm = await h.newInstance("bsa-detach-404");
    const disk = disks[2]!;
    const a = await up<BlockStorageAttachmentOutputs>(provider, { blockStorageId: disk.uuid, instanceId: vm });
    const storage = getClient().storage;
    const realDetach = storage.detach.bind(storage);
    const spy = jest.spyOn(storage, "detach").mockImplementation(async (id) => {
      await realDetach(id);
      throw new NotFoundError({ operation: "detachBlockStorage", method: "PATCH", path: "/storage/blocks/{block_storage_id}/detach", status: 404 });
    });
    try {
      await expect(provider.delete(a.id, a.outs)).resolves.toBeUndefined();
    } finally {
      spy.mockRestore();
    }
    expect((await diskOf(disk.uuid)).instanceUuid).toBeNull();
  });

  it("records the attachment with its id when the wait after the attach fails", async () => {
    const vm = await h.newInstance("bsa-initfail");
    const disk = disks[0]!;
    // The attach succeeds; the block storage list the wait then reads keeps failing with a server error (an outage:
    // a single failed poll would only read as "status unknown", see pollUntil).
    const storage = getClient().storage;
    const realList = storage.list.bind(storage);
    const spy = jest
      .spyOn(storage, "list")
      .mockImplementationOnce(realList)
      .mockRejectedValue(new ServerError({ operation: "listBlockStorages", method: "GET", path: "/storage/blocks", status: 500, apiMessage: "Server Error" }));
    let init: ResourceInitError;
    try {
      const error = await up(provider, { blockStorageId: disk.uuid, instanceId: vm }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ResourceInitError);
      init = error as ResourceInitError;
    } finally {
      spy.mockRestore();
    }
    expect(init.id).toBe(disk.uuid);
    expect(init.properties).toEqual({ blockStorageId: disk.uuid, instanceId: vm, name: disk.name, sizeGb: disk.sizeGb });
    expect(init.message).toMatch(new RegExp(`^block storage ${disk.uuid} was attached to instance ${vm}, then: .*listBlockStorages.*HTTP 500`));
    expect(init.reasons).toEqual([init.message.slice(init.message.indexOf("then: ") + "then: ".length)]);
    expect(init.cause).toBeDefined();
    // what Pulumi recorded can be deleted
    await provider.delete(init.id, init.properties);
    expect((await diskOf(disk.uuid)).instanceUuid).toBeNull();
  });
});

describe("hosts without the block storage list (fallback: attached unless listed as available)", () => {
  const useHostWithoutList = (routes: Record<string, string> | undefined) =>
    configure({
      config: {
        get: (key: string) =>
          ({ "vmhost:apiKey": h.sim.apiKey, "vmhost:baseUrl": h.sim.url, "vmhost:routes": routes && JSON.stringify(routes) })[key],
      },
    });
  beforeAll(() => useHostWithoutList({ listBlockStorages: "GET /storage/blocks-not-on-this-host" }));
  afterAll(() => useHostWithoutList(undefined));

  it("attaches, reads (name and size kept from state), sees an out-of-band detach, and detaches", async () => {
    const vm = await h.newInstance("bsa-fallback");
    const disk = disks[2]!;
    const mark = h.mark();
    const { id, outs } = await up<BlockStorageAttachmentOutputs>(provider, { blockStorageId: disk.uuid, instanceId: vm });
    expect(h.operationsSince(mark)).toContain("listBlockStorageOptions");
    expect(outs).toEqual({ blockStorageId: disk.uuid, instanceId: vm, name: disk.name, sizeGb: disk.sizeGb });
    expect(await provider.read(id, outs)).toEqual({ id, props: outs, inputs: { blockStorageId: disk.uuid, instanceId: vm } });

    await h.client.storage.detach(disk.uuid);
    expect(await provider.read(id, outs)).toEqual({});
    await h.client.storage.attach(disk.uuid, { instanceId: vm });
    await provider.delete(id, outs);
    expect((await diskOf(disk.uuid)).instanceUuid).toBeNull();
  });

  it("cannot see a disk attached elsewhere, so it asks the API, which refuses; nothing is recorded", async () => {
    const [vm1, vm2] = [await h.newInstance("bsa-fallback-1"), await h.newInstance("bsa-fallback-2")];
    const disk = disks[2]!;
    await h.client.storage.attach(disk.uuid, { instanceId: vm1 });
    const error = await up(provider, { blockStorageId: disk.uuid, instanceId: vm2 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(ResourceInitError);
    expect((error as Error).message).toMatch(/attachBlockStorage .* already attached to another instance/);
    expect((await diskOf(disk.uuid)).instanceUuid).toBe(vm1);
    await h.client.storage.detach(disk.uuid);
  });

  it("an attach whose every answer was lost after it took effect is recorded with its id (the disk was available before it)", async () => {
    const vm = await h.newInstance("bsa-fallback-lost");
    const disk = disks[2]!;
    await h.setFaults({ resetNext: { operation: "attachBlockStorage", afterProcessing: true, count: 20 } });
    const error = await up(provider, { blockStorageId: disk.uuid, instanceId: vm }).catch((e: unknown) => e);
    await h.clearFaults();
    expect((await diskOf(disk.uuid)).instanceUuid).toBe(vm);
    expect(error).toBeInstanceOf(ResourceInitError);
    expect((error as ResourceInitError).id).toBe(disk.uuid);
    await provider.delete(disk.uuid, (error as ResourceInitError).properties as BlockStorageAttachmentOutputs);
    expect((await diskOf(disk.uuid)).instanceUuid).toBeNull();
  });

  it("takes a 405 for the list (the path exists, the method does not) as a missing route too, and attaches", async () => {
    await useHostWithoutList({ listBlockStorages: "DELETE /storage/blocks" }); // GET only there: the simulator answers 405
    try {
      const vm = await h.newInstance("bsa-fallback-405");
      const disk = disks[2]!;
      const mark = h.mark();
      const { id, outs } = await up<BlockStorageAttachmentOutputs>(provider, { blockStorageId: disk.uuid, instanceId: vm });
      expect(h.operationsSince(mark)).toContain("listBlockStorageOptions");
      expect((await diskOf(disk.uuid)).instanceUuid).toBe(vm);
      expect(await provider.read(id, outs)).toEqual({ id, props: outs, inputs: { blockStorageId: disk.uuid, instanceId: vm } });
      await provider.delete(id, outs);
      expect((await diskOf(disk.uuid)).instanceUuid).toBeNull();
    } finally {
      await useHostWithoutList({ listBlockStorages: "GET /storage/blocks-not-on-this-host" });
    }
  });
});
