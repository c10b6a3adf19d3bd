/**
 * The VswitchAttachment provider against the simulator: check before any call, diff decisions, create and a
 * read right after = no change, drift after out-of-band changes (left the network, moved to another), 404
 * semantics, adopt, refusing to move an instance off a network it does not own, delete-first replacement,
 * and a failure after the instance joined recorded with its id.
 */
import { startHarness, up, preview, type FullProvider, type SimHarness, type SimState } from "./attachment-helpers";
import { vswitchAttachmentProvider } from "../../provider/resources/vswitch-attachment/provider";
import { ProviderError, ResourceInitError } from "../../provider/resources/common/errors";
import type { VswitchAttachmentOutputs } from "../../provider/resources/vswitch-attachment/inputs";
import { ServerError } from "../../provider/api";
import { getClient } from "../../provider/context";

const provider = vswitchAttachmentProvider as FullProvider;
let h: SimHarness;
let jkt: SimState["vswitches"]; // the two Jakarta networks

beforeAll(async () => {
  h = await startHarness();
  jkt = (await h.state()).vswitches.filter((v) => v.locationId === 1);
});
afterAll(() => h?.close());
afterEach(() => h.clearFaults());

const VM = "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab";
const NET = "0a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d";

describe("check", () => {
  it.each<[string, string, Record<string, unknown>]>([
    ["no instanceId", "instanceId", { vswitchId: NET }],
    ["no vswitchId", "vswitchId", { instanceId: VM }],
    ["the network's name instead of its uuid", "vswitchId", { instanceId: VM, vswitchId: "jkt-private-1" }],
    ["the network's integer tag", "vswitchId", { instanceId: VM, vswitchId: 101 }],
    ["an instance hostname", "instanceId", { instanceId: "web-1", vswitchId: NET }],
    ["adoptId with only the instance uuid", "adoptId", { instanceId: VM, vswitchId: NET, adoptId: VM }],
    ["adoptId of another network", "adoptId", { instanceId: VM, vswitchId: NET, adoptId: `${VM}/${VM}` }],
    ["a delete timeout of zero", "timeouts.delete", { instanceId: VM, vswitchId: NET, timeouts: { delete: "0" } }],
    ["timeouts as a plain string", "timeouts", { instanceId: VM, vswitchId: NET, timeouts: "5m" }],
    ["a misspelled property", "vswitch", { instanceId: VM, vswitch: NET }],
  ])("refuses %s, naming %s, before any API call", async (_what, property, inputs) => {
    const mark = h.mark();
    const result = await provider.check({}, inputs);
    expect(result.failures?.map((f) => f.property)).toContain(property);
    expect(h.operationsSince(mark)).toEqual([]);
  });
});

describe("lifecycle", () => {
  it("joins the network; a read right after shows no change; delete leaves it; deleting again changes nothing", async () => {
    const vm = await h.newInstance("vsa-life");
    const program = { instanceId: vm, vswitchId: jkt[0]!.uuid };
    const { id, outs } = await up<VswitchAttachmentOutputs>(provider, program);
    expect(id).toBe(`${vm}/${jkt[0]!.uuid}`);
    expect((await h.instance(vm))!.vswitchUuid).toBe(jkt[0]!.uuid);
    expect(outs).toEqual({ instanceId: vm, vswitchId: jkt[0]!.uuid, vswitchName: jkt[0]!.name, networkIp: jkt[0]!.networkIp, location: "Jakarta" });
    const read = await provider.read(id, outs);
    expect(read).toEqual({ id, props: outs, inputs: program });
    expect(await preview(provider, id, read.props, program)).toMatchObject({ changes: false });

    await provider.delete(id, outs);
    expect((await h.instance(vm))!.vswitchUuid).toBeNull();
    expect(await provider.read(id, outs)).toEqual({});
    const mark = h.mark();
    await provider.delete(id, outs);
    expect(h.operationsSince(mark)).not.toContain("updatePrivateNetwork");
  });

  it("a host that shows the VM's private address as its private network: joined, read and left without drift", async () => {
    // simulator audit: the create waited until its deadline, then threw without recording the VM on the network
    await h.setFaults({ wire: { privateNetwork: "ip" } });
    const vm = await h.newInstance("vsa-by-address");
    const program = { instanceId: vm, vswitchId: jkt[0]!.uuid };
    const { id, outs } = await up<VswitchAttachmentOutputs>(provider, { ...program, timeouts: { create: "20s" } });
    expect((await h.instance(vm))!.vswitchUuid).toBe(jkt[0]!.uuid);
    const read = await provider.read(id, outs);
    expect(read.props).toEqual(outs);
    await provider.delete(id, outs);
    expect((await h.instance(vm))!.vswitchUuid).toBeNull();
  });

  it("a join the API accepted but the instance does not show by the deadline is recorded, not forgotten", async () => {
    // a host showing the address of a network whose range the list does not give: the membership cannot be seen
    await h.setFaults({ wire: { privateNetwork: "ip" } });
    const vm = await h.newInstance("vsa-unseen");
    const network = getClient().network;
    const listed = await network.listVswitches();
    const spy = jest.spyOn(network, "listVswitches").mockResolvedValue(listed.map((v) => ({ ...v, network_ip: null })));
    try {
      const program = { instanceId: vm, vswitchId: jkt[0]!.uuid, timeouts: { create: "2s" } };
      const error = await provider.create((await provider.check({}, program)).inputs).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(ResourceInitError);
      expect((error as ResourceInitError).id).toBe(`${vm}/${jkt[0]!.uuid}`);
      expect((error as Error).message).toMatch(/accepted .* joining private network .* recorded in the stack/);
    } finally {
      spy.mockRestore();
    }
    expect((await h.instance(vm))!.vswitchUuid).toBe(jkt[0]!.uuid);
  });

  it("a host that refuses the blank vswitch that leaves a network: the delete says the panel is the way out", async () => {
    // simulator audit: api-spec.md marks vswitch required; the raw 422 said nothing of why or what to do
    const vm = await h.newInstance("vsa-no-leave");
    const program = { instanceId: vm, vswitchId: jkt[0]!.uuid };
    const { id, outs } = await up<VswitchAttachmentOutputs>(provider, program);
    await h.setFaults({ respondNext: { operation: "updatePrivateNetwork", status: 422, message: "The vswitch field is required.", errors: { vswitch: ["The vswitch field is required."] } } });
    await expect(provider.delete(id, outs)).rejects.toThrow(
      `the host refused to take instance ${vm} off its private network (The vswitch field is required.): on this host the API has no call to leave a private network. Take the instance off the network in the host's panel`,
    );
    expect((await h.instance(vm))!.vswitchUuid).toBe(jkt[0]!.uuid);
  });

  it("reads the network from the list when it is listed (no lookup by uuid), and by uuid when the host's list leaves it out", async () => {
    const vm = await h.newInstance("vsa-lookup");
    const program = { instanceId: vm, vswitchId: jkt[1]!.uuid };
    const mark = h.mark();
    const { id, outs } = await up<VswitchAttachmentOutputs>(provider, program);
    expect(h.operationsSince(mark)).not.toContain("getVswitch");
    const network = getClient().network;
    const spy = jest.spyOn(network, "listVswitches").mockResolvedValue([]); // a host that pages or filters its list
    try {
      const lookup = h.mark();
      // the detail names no network range: networkIp is left out, as documented
      const { networkIp: _range, ...withoutRange } = outs;
      expect(await provider.read(id, outs)).toEqual({ id, props: withoutRange, inputs: program });
      expect(h.operationsSince(lookup)).toContain("getVswitch");
    } finally {
      spy.mockRestore();
    }
    await provider.delete(id, outs);
  });

  it("a refresh reading several attachments at once lists the private networks once (one request per resource)", async () => {
    const made = [];
    for (const name of ["vsa-refresh-1", "vsa-refresh-2", "vsa-refresh-3"]) {
      made.push(await up<VswitchAttachmentOutputs>(provider, { instanceId: await h.newInstance(name), vswitchId: jkt[0]!.uuid }));
    }
    const mark = h.mark();
    const reads = await Promise.all(made.map(({ id, outs }) => provider.read(id, outs)));
    expect(reads.map((r) => r.props)).toEqual(made.map((m) => m.outs));
    expect(h.operationsSince(mark).filter((o) => o === "listVswitches")).toHaveLength(1);
    expect(h.operationsSince(mark)).toHaveLength(made.length + 1);
    for (const { id, outs } of made) await provider.delete(id, outs);
  });

  it("a create retried after the instance joined (an interrupted up) sends no second join", async () => {
    const vm = await h.newInstance("vsa-retry");
    const program = { instanceId: vm, vswitchId: jkt[0]!.uuid };
    await up<VswitchAttachmentOutputs>(provider, program);
    const mark = h.mark();
    const { id, outs } = await up<VswitchAttachmentOutputs>(provider, program);
    expect(h.operationsSince(mark)).not.toContain("updatePrivateNetwork");
    await provider.delete(id, outs);
  });

  it("replaces delete-first when the network changes: detach, then join the new one", async () => {
    const vm = await h.newInstance("vsa-move");
    const a = await up<VswitchAttachmentOutputs>(provider, { instanceId: vm, vswitchId: jkt[0]!.uuid });
    const next = { instanceId: vm, vswitchId: jkt[1]!.uuid };
    expect(await preview(provider, a.id, a.outs, next)).toMatchObject({ changes: true, replaces: ["vswitchId"], deleteBeforeReplace: true });
    await provider.delete(a.id, a.outs);
    const b = await up<VswitchAttachmentOutputs>(provider, next);
    expect((await h.instance(vm))!.vswitchUuid).toBe(jkt[1]!.uuid);
    expect(b.outs.vswitchName).toBe(jkt[1]!.name);
  });

  it("records a timeouts change in place without an API write", async () => {
    const vm = await h.newInstance("vsa-timeouts");
    const { id, outs } = await up<VswitchAttachmentOutputs>(provider, { instanceId: vm, vswitchId: jkt[0]!.uuid });
    const program = { instanceId: vm, vswitchId: jkt[0]!.uuid, timeouts: { delete: "2m" } };
    expect(await preview(provider, id, outs, program)).toMatchObject({ changes: true, replaces: [] });
    const mark = h.mark();
    const checked = await provider.check(outs, program);
    const updated = await provider.update(id, outs, checked.inputs);
    expect(updated.outs).toMatchObject({ timeouts: { delete: "2m" } });
    expect(h.operationsSince(mark)).not.toContain("updatePrivateNetwork");
  });

  it("records adoptId set after create in place, with reads only (as every resource does)", async () => {
    const vm = await h.newInstance("vsa-adopt-later");
    const { id, outs } = await up<VswitchAttachmentOutputs>(provider, { instanceId: vm, vswitchId: jkt[0]!.uuid });
    const program = { instanceId: vm, vswitchId: jkt[0]!.uuid, adoptId: id };
    expect(await preview(provider, id, outs, program)).toMatchObject({ changes: true, replaces: [] });
    const mark = h.mark();
    const updated = await provider.update(id, outs, (await provider.check(outs, program)).inputs);
    expect(updated.outs).toMatchObject({ adoptId: id });
    expect(new Set(h.methodsSince(mark))).toEqual(new Set(["GET"]));
    expect(await preview(provider, id, updated.outs!, program)).toMatchObject({ changes: false });
  });
});

describe("drift and 404", () => {
  it("reports the attachment gone when the instance left the network out of band", async () => {
    const vm = await h.newInstance("vsa-left");
    const { id, outs } = await up<VswitchAttachmentOutputs>(provider, { instanceId: vm, vswitchId: jkt[0]!.uuid });
    await h.outOfBand(vm, { vswitchId: null });
    expect(await provider.read(id, outs)).toEqual({});
  });

  it("reports it gone when the instance moved to another network, and delete does not take it off that one", async () => {
    const vm = await h.newInstance("vsa-moved");
    const { id, outs } = await up<VswitchAttachmentOutputs>(provider, { instanceId: vm, vswitchId: jkt[0]!.uuid });
    await h.outOfBand(vm, { vswitchId: jkt[1]!.uuid });
    expect(await provider.read(id, outs)).toEqual({});
    await provider.delete(id, outs);
    expect((await h.instance(vm))!.vswitchUuid).toBe(jkt[1]!.uuid);
  });

  it("joins the network again in an in-place update once the instance left it out of band (as declared)", async () => {
    const vm = await h.newInstance("vsa-left-update");
    const program = { instanceId: vm, vswitchId: jkt[0]!.uuid };
    const { id, outs } = await up<VswitchAttachmentOutputs>(provider, program);
    await h.outOfBand(vm, { vswitchId: null });
    const mark = h.mark();
    const updated = await provider.update(id, outs, { ...program, timeouts: { delete: "1m" } });
    expect(updated.outs).toEqual({ ...outs, timeouts: { delete: "1m" } });
    expect(h.operationsSince(mark)).toContain("updatePrivateNetwork");
    expect((await h.instance(vm))!.vswitchUuid).toBe(jkt[0]!.uuid);
  });

  it("refuses an in-place update once the instance moved to another network out of band, and leaves it there", async () => {
    const vm = await h.newInstance("vsa-moved-update");
    const program = { instanceId: vm, vswitchId: jkt[0]!.uuid };
    const { id, outs } = await up<VswitchAttachmentOutputs>(provider, program);
    await h.outOfBand(vm, { vswitchId: jkt[1]!.uuid });
    const mark = h.mark();
    await expect(provider.update(id, outs, { ...program, timeouts: { delete: "1m" } })).rejects.toThrow(
      `instance ${vm} is on private network "${jkt[1]!.name}"; an instance is on one private network at a time`,
    );
    expect(h.methodsSince(mark).filter((m) => m !== "GET")).toEqual([]);
    expect((await h.instance(vm))!.vswitchUuid).toBe(jkt[1]!.uuid);
  });

  it("reports it gone when the instance is deleted, and delete succeeds", async () => {
    const vm = await h.newInstance("vsa-404");
    const { id, outs } = await up<VswitchAttachmentOutputs>(provider, { instanceId: vm, vswitchId: jkt[0]!.uuid });
    await h.outOfBand(vm, { deleted: true });
    expect(await provider.read(id, outs)).toEqual({});
    await expect(provider.delete(id, outs)).resolves.toBeUndefined();
  });

  it("refuses a network that does not exist, before changing anything", async () => {
    const vm = await h.newInstance("vsa-nonet");
    const mark = h.mark();
    await expect(up(provider, { instanceId: vm, vswitchId: NET })).rejects.toThrow(/private network 0a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d does not exist/);
    expect(h.operationsSince(mark)).not.toContain("updatePrivateNetwork");
  });
});

describe("adopt and ownership", () => {
  it("refuses to move an instance off another network; adoptId takes over an existing membership without a write", async () => {
    const vm = await h.newInstance("vsa-owner");
    await h.outOfBand(vm, { vswitchId: jkt[1]!.uuid });
    const mark = h.mark();
    const error = await up(provider, { instanceId: vm, vswitchId: jkt[0]!.uuid }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as Error).message).toContain(`is on private network "${jkt[1]!.name}"`);
    expect(h.operationsSince(mark)).not.toContain("updatePrivateNetwork");
    expect((await h.instance(vm))!.vswitchUuid).toBe(jkt[1]!.uuid);

    const adopted = await up<VswitchAttachmentOutputs>(provider, { instanceId: vm, vswitchId: jkt[1]!.uuid, adoptId: `${vm}/${jkt[1]!.uuid}` });
    expect(adopted.id).toBe(`${vm}/${jkt[1]!.uuid}`);
    expect(h.operationsSince(mark)).not.toContain("updatePrivateNetwork");
  });

  it("refuses to adopt a membership that does not exist", async () => {
    const vm = await h.newInstance("vsa-adopt-none");
    await expect(up(provider, { instanceId: vm, vswitchId: jkt[0]!.uuid, adoptId: `${vm}/${jkt[0]!.uuid}` })).rejects.toThrow(/cannot adopt .* on no private network/);
  });
});

describe("failures", () => {
  it("waits until the operation running on the instance has finished, then joins", async () => {
    const vm = await h.newInstance("vsa-busy");
    await h.client.instances.stop(vm); // an operation is running on the instance
    const { id } = await up<VswitchAttachmentOutputs>(provider, { instanceId: vm, vswitchId: jkt[0]!.uuid });
    expect(id).toBe(`${vm}/${jkt[0]!.uuid}`);
    expect(await h.instance(vm)).toMatchObject({ vswitchUuid: jkt[0]!.uuid, status: "Stopped" });
  });

  it("records nothing when the API refuses the join: its error stands and the instance stays off the network", async () => {
    const vm = await h.newInstance("vsa-refused");
    const network = getClient().network;
    const spy = jest
      .spyOn(network, "updatePrivateNetwork")
      .mockRejectedValueOnce(new ServerError({ operation: "updatePrivateNetwork", method: "PATCH", path: "/instance/{instance_uuid}/private-network", status: 500, apiMessage: "Server Error" }));
    try {
      const error = await up(provider, { instanceId: vm, vswitchId: jkt[0]!.uuid }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServerError);
      expect(error).not.toBeInstanceOf(ResourceInitError);
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
    }
    expect((await h.instance(vm))!.vswitchUuid).toBeNull();
  });

  it("records the attachment with its id when reading it back fails after the instance joined", async () => {
    const vm = await h.newInstance("vsa-initfail");
    // The join succeeds; the vswitch list read after it fails with a server error (500s are not retried).
    const network = getClient().network;
    const realList = network.listVswitches.bind(network);
    const spy = jest
      .spyOn(network, "listVswitches")
      .mockImplementationOnce(realList)
      .mockRejectedValueOnce(new ServerError({ operation: "listVswitches", method: "GET", path: "/network/vswitches", status: 500, apiMessage: "Server Error" }));
    try {
      const error = await up(provider, { instanceId: vm, vswitchId: jkt[0]!.uuid }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ResourceInitError);
      const init = error as ResourceInitError;
      expect(init.id).toBe(`${vm}/${jkt[0]!.uuid}`);
      expect(init.properties).toMatchObject({ instanceId: vm, vswitchId: jkt[0]!.uuid, vswitchName: jkt[0]!.name });
      expect(init.message).toMatch(/joined private network .* reading it back failed: listVswitches .* HTTP 500/);
      expect((await h.instance(vm))!.vswitchUuid).toBe(jkt[0]!.uuid);
    } finally {
      spy.mockRestore();
    }
    // what Pulumi recorded reads back and can be deleted
    const init = { instanceId: vm, vswitchId: jkt[0]!.uuid };
    const read = await provider.read(`${vm}/${jkt[0]!.uuid}`, init);
    expect(read.props).toMatchObject({ vswitchName: jkt[0]!.name });
    await provider.delete(`${vm}/${jkt[0]!.uuid}`, read.props);
    expect((await h.instance(vm))!.vswitchUuid).toBeNull();
  });

  it("records a join the API accepted even when every read after it fails (an outage), so Pulumi does not forget it", async () => {
    const vm = await h.newInstance("vsa-outage");
    const client = getClient();
    const realUpdate = client.network.updatePrivateNetwork.bind(client.network);
    const realFind = client.instances.find.bind(client.instances);
    const realGet = client.instances.get.bind(client.instances);
    let outage = false;
    const down = () => new ServerError({ operation: "getInstance", method: "GET", path: "/instance/{instance_uuid}/detail", status: 500, apiMessage: "Server Error" });
    const spies = [
      jest.spyOn(client.network, "updatePrivateNetwork").mockImplementation(async (...args) => {
        const answer = await realUpdate(...args);
        outage = true; // the API accepted the join; from now on every instance read fails
        return answer;
      }),
      jest.spyOn(client.instances, "find").mockImplementation(async (...args) => { if (outage) throw down(); return realFind(...args); }),
      jest.spyOn(client.instances, "get").mockImplementation(async (...args) => { if (outage) throw down(); return realGet(...args); }),
    ];
    try {
      const error = await up(provider, { instanceId: vm, vswitchId: jkt[0]!.uuid }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ResourceInitError);
      const init = error as ResourceInitError;
      expect(init.id).toBe(`${vm}/${jkt[0]!.uuid}`);
      expect(init.properties).toEqual({ instanceId: vm, vswitchId: jkt[0]!.uuid, vswitchName: jkt[0]!.name, networkIp: jkt[0]!.networkIp, location: "Jakarta" });
      expect(init.message).toMatch(new RegExp(`^instance ${vm} joined private network ${jkt[0]!.uuid}, then: `));
      expect(init.reasons).toEqual([init.message.slice(init.message.indexOf("then: ") + "then: ".length)]);
      expect(init.cause).toBeDefined();
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect((await h.instance(vm))!.vswitchUuid).toBe(jkt[0]!.uuid);
  });

  it("fails a delete the host refuses while the instance exists, instead of forgetting the membership", async () => {
    const vm = await h.newInstance("vsa-delete-refused");
    const a = await up<VswitchAttachmentOutputs>(provider, { instanceId: vm, vswitchId: jkt[0]!.uuid });
    const network = getClient().network;
    const spy = jest.spyOn(network, "updatePrivateNetwork").mockRejectedValue(new Error("the host refused"));
    try {
      await expect(provider.delete(a.id, a.outs)).rejects.toThrow("the host refused");
    } finally {
      spy.mockRestore();
    }
    expect((await h.instance(vm))!.vswitchUuid).toBe(jkt[0]!.uuid);
    await provider.delete(a.id, a.outs);
  });
});
