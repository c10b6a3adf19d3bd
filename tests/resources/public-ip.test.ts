/**
 * The PublicIp provider against the simulator: check before any call, diff decisions, create (fresh or
 * reserved address, rdns), read right after = no change, rdns update, drift after out-of-band changes,
 * 404 semantics, adopt, ambiguous add reconciled without a second address, and a failure after the address
 * was assigned recorded with its id. Provider methods are called directly, as the dynamic-provider host would.
 */
import { progressSuite, startHarness, up, preview, until, type FullProvider, type SimHarness } from "./attachment-helpers";
import { publicIpProvider } from "../../provider/resources/public-ip/provider";
import { ProviderError, ResourceInitError } from "../../provider/resources/common/errors";
import type { PublicIpInputs, PublicIpOutputs } from "../../provider/resources/public-ip/inputs";
import { configure, getClient } from "../../provider/context";
import { claimedByStack, replacementsInProgress } from "../../provider/resources/common/replacements";
import { providers } from "../../provider";
import { forgetDeployment } from "../../provider/registry";

/** Stack config as the engine hands it to the provider: the simulator's key and URL plus `extra`. */
const useConfig = (extra: Record<string, string>) =>
  configure({ config: { get: (key: string) => ({ "vmhost:apiKey": h.sim.apiKey, "vmhost:baseUrl": h.sim.url, ...extra })[key] } });

const provider = publicIpProvider as FullProvider;
const said = progressSuite();
let h: SimHarness;
let reserved: { uuid: string; address: string }[];

beforeAll(async () => {
  h = await startHarness();
  reserved = (await h.state()).publicIps.filter((p) => p.locationId === 1 && p.seeded);
});
afterAll(() => h?.close());
afterEach(() => h.clearFaults());

const VALID = "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab";

describe("check", () => {
  it.each<[string, string, Record<string, unknown>]>([
    ["no instanceId", "instanceId", {}],
    ["an instance hostname instead of its uuid", "instanceId", { instanceId: "web-1" }],
    ["a reserved address given as the IP text", "publicNetworkId", { instanceId: VALID, publicNetworkId: "103.150.10.11" }],
    ["rdns without a domain", "rdns", { instanceId: VALID, rdns: "mail" }],
    ["rdns with a space", "rdns", { instanceId: VALID, rdns: "mail server.example.com" }],
    ["rdns as a number", "rdns", { instanceId: VALID, rdns: 42 }],
    ["adoptId that is not a uuid", "adoptId", { instanceId: VALID, adoptId: "mine" }],
    ["adoptId and publicNetworkId naming different addresses", "adoptId", { instanceId: VALID, adoptId: VALID, publicNetworkId: "0a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d" }],
    ["a create timeout in days", "timeouts.create", { instanceId: VALID, timeouts: { create: "1d" } }],
    ["a misspelled property", "publicNetworkID", { instanceId: VALID, publicNetworkID: VALID }],
  ])("refuses %s, naming %s, before any API call", async (_what, property, inputs) => {
    const mark = h.mark();
    const result = await provider.check({}, inputs);
    expect(result.failures?.map((f) => f.property)).toContain(property);
    expect(h.operationsSince(mark)).toEqual([]);
  });
});

describe("lifecycle", () => {
  let vm: string;
  let id: string;
  let outs: PublicIpOutputs;
  let program: Record<string, unknown>;

  beforeAll(async () => {
    vm = await h.newInstance("pip-life");
  });

  it("adds a fresh address with reverse DNS; a read right after shows no change", async () => {
    program = { instanceId: vm, rdns: "pip-life.example.com" };
    ({ id, outs } = await up<PublicIpOutputs>(provider, program));
    const inst = await h.instance(vm);
    expect(id).toBe(inst!.publicIpUuid);
    expect(outs).toEqual({ instanceId: vm, rdns: "pip-life.example.com", publicIpId: id, ipAddress: inst!.publicIpAddress });
    expect(inst!.rdns).toBe("pip-life.example.com");
    const read = await provider.read(id, outs);
    expect(read).toEqual({ id, props: outs });
    expect(await preview(provider, id, read.props, program)).toMatchObject({ changes: false });
  });

  it("records adoptId set after create in place, with reads only (as every resource does)", async () => {
    const adopting = { ...program, adoptId: id };
    expect(await preview(provider, id, outs, adopting)).toMatchObject({ changes: true, replaces: [] });
    const mark = h.mark();
    const updated = await provider.update(id, outs, (await provider.check(outs, adopting)).inputs);
    expect(updated.outs).toMatchObject({ adoptId: id, publicIpId: id });
    expect(new Set(h.methodsSince(mark))).toEqual(new Set(["GET"]));
    expect(await preview(provider, id, updated.outs!, adopting)).toMatchObject({ changes: false });
    // back to the program without adoptId for the next steps
    outs = (await provider.update(id, updated.outs!, (await provider.check(updated.outs!, program)).inputs)).outs!;
  });

  it("changes reverse DNS in place", async () => {
    program = { ...program, rdns: "www.example.com" };
    const diff = await preview(provider, id, outs, program);
    expect(diff).toMatchObject({ changes: true, replaces: [] });
    const checked = await provider.check(outs, program);
    outs = (await provider.update(id, outs, checked.inputs)).outs as PublicIpOutputs;
    expect(outs.rdns).toBe("www.example.com");
    expect((await h.instance(vm))!.rdns).toBe("www.example.com");
  });

  it("shows reverse DNS changed out of band as drift, and the next update puts it back", async () => {
    await h.outOfBand(vm, { rdns: "hijacked.example.net" });
    const read = await provider.read(id, outs);
    expect(read.props).toMatchObject({ rdns: "hijacked.example.net" });
    expect(await preview(provider, id, read.props, program)).toMatchObject({ changes: true, replaces: [] });
    const checked = await provider.check(read.props, program);
    outs = (await provider.update(id, read.props, checked.inputs)).outs as PublicIpOutputs;
    expect((await h.instance(vm))!.rdns).toBe("www.example.com");
  });

  it("compares reverse DNS without case or a trailing dot (a host answering Www.Example.com. is not drift)", async () => {
    await h.outOfBand(vm, { rdns: "Www.Example.COM." });
    const read = await provider.read(id, outs);
    expect(read.props).toMatchObject({ rdns: "www.example.com" });
    expect(await preview(provider, id, read.props, program)).toMatchObject({ changes: false });
  });

  it("does not show drift for reverse DNS when rdns is not managed", async () => {
    await h.outOfBand(vm, { rdns: "someone-else.example.net" });
    const read = await provider.read(id, outs);
    expect(await preview(provider, id, read.props, { instanceId: vm })).toMatchObject({ changes: false });
  });

  it("deletes: the instance loses the address, which stays reserved and the delete says so; deleting again calls nothing that changes it", async () => {
    said.length = 0;
    await provider.delete(id, outs);
    expect((await h.instance(vm))!.publicIpUuid).toBeNull();
    expect((await h.state()).publicIps.find((p) => p.uuid === id)).toMatchObject({ instanceUuid: null });
    expect(said.join("\n")).toContain(`address ${outs.ipAddress} (${id}) is taken off instance ${vm} and stays reserved in your account (it may bill)`);
    const mark = h.mark();
    await provider.delete(id, outs);
    // only reads (the instance's detail and the shared status list), no write
    expect(h.methodsSince(mark).filter((m) => m !== "GET")).toEqual([]);
  });
});

describe("reserved address (publicNetworkId)", () => {
  it("assigns the reserved address (id = its uuid); another one replaces, and the old delete leaves the new one alone", async () => {
    const vm = await h.newInstance("pip-reserved");
    const [first, second] = [reserved[0]!, reserved[1]!];
    const a = await up<PublicIpOutputs>(provider, { instanceId: vm, publicNetworkId: first.uuid });
    expect(a.id).toBe(first.uuid);
    expect(a.outs).toMatchObject({ publicIpId: first.uuid, ipAddress: first.address, publicNetworkId: first.uuid });

    const diff = await preview(provider, a.id, a.outs, { instanceId: vm, publicNetworkId: second.uuid });
    expect(diff).toMatchObject({ changes: true, replaces: ["publicNetworkId"], deleteBeforeReplace: false });
    // create-before-delete, as the engine does it
    const b = await up<PublicIpOutputs>(provider, { instanceId: vm, publicNetworkId: second.uuid });
    expect(b.id).toBe(second.uuid);
    await provider.delete(a.id, a.outs);
    expect((await h.instance(vm))!.publicIpUuid).toBe(second.uuid);
    await provider.delete(b.id, b.outs);
    expect((await h.instance(vm))!.publicIpUuid).toBeNull();
  });
});

describe("drift and 404", () => {
  it("records the address detached when it is swapped or taken off out of band (it stays reserved); delete then touches nothing", async () => {
    const vm = await h.newInstance("pip-drift");
    const { id, outs, inputs } = await up<PublicIpOutputs>(provider, { instanceId: vm });
    await h.outOfBand(vm, { publicIp: reserved[2]!.uuid }); // someone swaps in another address
    const swapped = await provider.read(id, outs);
    expect(swapped).toEqual({ id, props: { instanceId: vm, publicIpId: id, ipAddress: outs.ipAddress, detached: true } });
    expect(await preview(provider, id, swapped.props, inputs)).toMatchObject({ changes: true, replaces: [] });
    const mark = h.mark();
    await provider.delete(id, swapped.props as PublicIpOutputs);
    expect(h.operationsSince(mark)).not.toContain("changePublicIp");
    expect((await h.instance(vm))!.publicIpUuid).toBe(reserved[2]!.uuid);
    await h.outOfBand(vm, { publicIp: false });
    expect((await provider.read(id, outs)).props).toMatchObject({ detached: true });
  });

  it("assigns a detached address back at the next up (the one it had, no second one), then no drift", async () => {
    const vm = await h.newInstance("pip-reattach");
    const { id, outs, inputs } = await up<PublicIpOutputs>(provider, { instanceId: vm, rdns: "back.example.com" });
    await h.outOfBand(vm, { publicIp: false }); // taken off in the panel: it stays reserved in the account
    const addresses = (await h.state()).publicIps.length;
    const refreshed = (await provider.read(id, outs)).props as PublicIpOutputs;
    expect(refreshed.detached).toBe(true);
    const mark = h.mark();
    const updated = (await provider.update(id, refreshed, inputs as PublicIpInputs)).outs as PublicIpOutputs;
    expect(h.operationsSince(mark)).not.toContain("addPublicIp");
    expect((await h.instance(vm))!.publicIpUuid).toBe(id);
    expect(updated).toMatchObject({ publicIpId: id, ipAddress: outs.ipAddress, rdns: "back.example.com" });
    expect(updated.detached).toBeUndefined();
    const again = await provider.read(id, updated);
    expect(await preview(provider, id, again.props, inputs)).toMatchObject({ changes: false });
    // no second address was allocated (the first one would stay reserved, in no state)
    expect((await h.state()).publicIps).toHaveLength(addresses);
    await provider.delete(id, updated);
  });

  it("reports the resource gone when the instance is deleted, and delete succeeds", async () => {
    const vm = await h.newInstance("pip-404");
    const { id, outs } = await up<PublicIpOutputs>(provider, { instanceId: vm });
    await h.outOfBand(vm, { deleted: true });
    expect(await provider.read(id, outs)).toEqual({});
    await expect(provider.delete(id, outs)).resolves.toBeUndefined();
  });

  it("refuses to create on an instance that does not exist", async () => {
    await expect(up(provider, { instanceId: "6f1c0a2e-1111-4222-8333-444455556666" })).rejects.toThrow(/instance 6f1c0a2e-1111-4222-8333-444455556666 does not exist/);
  });
  it("fails a delete the host refuses while the instance exists, instead of forgetting the address", async () => {
    const vm = await h.newInstance("pip-delete-refused");
    const a = await up<PublicIpOutputs>(provider, { instanceId: vm });
    const network = getClient().network;
    const spy = jest.spyOn(network, "changePublicIp").mockRejectedValue(new Error("the host refused"));
    try {
      await expect(provider.delete(a.id, a.outs)).rejects.toThrow("the host refused");
    } finally {
      spy.mockRestore();
    }
    expect((await h.instance(vm))!.publicIpUuid).toBe(a.id);
    await provider.delete(a.id, a.outs);
  });
});

describe("refresh after refresh (the engine keeps the inputs of the last up: read returns none)", () => {
  interface EngineState {
    outputs: PublicIpOutputs;
    inputs: Record<string, unknown>;
  }
  /** What the engine stores after a refresh: the read's outputs, and its inputs if it returned any, else the old ones. */
  const refresh = async (id: string, state: EngineState): Promise<EngineState> => {
    const r = await provider.read(id, state.outputs);
    expect(r.id).toBe(id);
    return { outputs: r.props as PublicIpOutputs, inputs: (r.inputs as Record<string, unknown> | undefined) ?? state.inputs };
  };
  /** Drift as Pulumi reports it on refresh: the provider's diff of the refreshed outputs against the stored inputs. */
  const drift = async (id: string, state: EngineState) => (await provider.diff(id, state.outputs, state.inputs)).changes;

  it("never reports unmanaged reverse DNS, however often it changes", async () => {
    const vm = await h.newInstance("pip-refresh-1");
    const created = await up<PublicIpOutputs>(provider, { instanceId: vm });
    let state: EngineState = { outputs: created.outs, inputs: created.inputs };
    for (const name of ["one.example.net", "two.example.net"]) {
      await h.outOfBand(vm, { rdns: name });
      state = await refresh(created.id, state);
      expect(state.outputs.rdns).toBe(name);
      expect(await drift(created.id, state)).toBe(false);
    }
  });

  it("keeps reporting managed reverse DNS changed out of band, refresh after refresh, until an up fixes it", async () => {
    const vm = await h.newInstance("pip-refresh-2");
    const created = await up<PublicIpOutputs>(provider, { instanceId: vm, rdns: "mine.example.com" });
    let state: EngineState = { outputs: created.outs, inputs: created.inputs };
    await h.outOfBand(vm, { rdns: "theirs.example.net" });
    state = await refresh(created.id, state);
    expect(await drift(created.id, state)).toBe(true);
    state = await refresh(created.id, state);
    expect(await drift(created.id, state)).toBe(true);
    const updated = await provider.update(created.id, state.outputs, state.inputs);
    state = await refresh(created.id, { outputs: updated.outs as PublicIpOutputs, inputs: state.inputs });
    expect(state.outputs.rdns).toBe("mine.example.com");
    expect(await drift(created.id, state)).toBe(false);
  });
});

describe("replaced with its VM", () => {
  it("a PublicIp pinned to a reserved address gets it from the old VM the up replaces (create-before-delete)", async () => {
    const oldVm = await h.newInstance("pip-pinned-old");
    const newVm = await h.newInstance("pip-pinned-new");
    const pinned = (await h.state()).publicIps.find((p) => p.locationId === 1 && p.seeded && p.instanceUuid === null)!.uuid;
    const old = await up<PublicIpOutputs>(provider, { instanceId: oldVm, publicNetworkId: pinned });
    // the Instance's diff noted the old VM as replaced (tests/resources/instance.test.ts shows it)
    replacementsInProgress.note("Instance:1/pip-pinned", oldVm);
    const replacement = await up<PublicIpOutputs>(provider, { instanceId: newVm, publicNetworkId: pinned });
    expect(replacement.id).toBe(pinned);
    expect((await h.instance(newVm))!.publicIpUuid).toBe(pinned);
    expect((await h.instance(oldVm))!.publicIpUuid).toBeNull();
    // the old PublicIp's delete then leaves the address with the new VM
    await provider.delete(old.id, old.outs);
    expect((await h.instance(newVm))!.publicIpUuid).toBe(pinned);
    await provider.delete(replacement.id, replacement.outs);
  });

  it("never takes a pinned address from a VM that is not being replaced", async () => {
    const holder = await h.newInstance("pip-pinned-holder");
    const other = await h.newInstance("pip-pinned-other");
    const pinned = (await h.state()).publicIps.find((p) => p.locationId === 1 && p.seeded && p.instanceUuid === null)!.uuid;
    const held = await up<PublicIpOutputs>(provider, { instanceId: holder, publicNetworkId: pinned });
    await expect(up(provider, { instanceId: other, publicNetworkId: pinned })).rejects.toThrow();
    expect((await h.instance(holder))!.publicIpUuid).toBe(pinned);
    await provider.delete(held.id, held.outs);
  });
});

describe("pinned address moved to another instance that stays (instanceId changed, publicNetworkId kept)", () => {
  // Through the registry's provider, as the engine calls it: its diff notes the replacement (withReplaceOnChanges).
  const registered = providers.PublicIp as FullProvider;
  afterEach(() => forgetDeployment());

  it("diff asks to delete first; the old one's delete then the new one's create leave the address on the new instance", async () => {
    const from = await h.newInstance("pip-move-from");
    const to = await h.newInstance("pip-move-to");
    const pinned = (await h.state()).publicIps.find((p) => p.locationId === 1 && p.seeded && p.instanceUuid === null)!.uuid;
    const old = await up<PublicIpOutputs>(registered, { instanceId: from, publicNetworkId: pinned });
    forgetDeployment();
    // create-before-delete asked the API for an address the old resource still held on `from`: 422 at every up
    expect(await preview(registered, old.id, old.outs, { instanceId: to, publicNetworkId: pinned })).toEqual({
      changes: true, replaces: ["instanceId"], deleteBeforeReplace: true,
    });
    // the engine's delete-before-replace order: the old half first
    await registered.delete(old.id, old.outs);
    expect((await h.instance(from))!.publicIpUuid).toBeNull();
    const moved = await up<PublicIpOutputs>(registered, { instanceId: to, publicNetworkId: pinned });
    expect(moved.id).toBe(pinned);
    expect((await h.instance(to))!.publicIpUuid).toBe(pinned);
    expect((await h.instance(from))!.publicIpUuid).toBeNull();
    expect((await h.state()).publicIps.find((p) => p.uuid === pinned)!.instanceUuid).toBe(to);
    const read = await registered.read(moved.id, moved.outs);
    expect(read).toEqual({ id: moved.id, props: moved.outs });
    expect(await preview(registered, moved.id, read.props, { instanceId: to, publicNetworkId: pinned })).toMatchObject({ changes: false });
    forgetDeployment(); // (destroy is a later deployment)
    await registered.delete(moved.id, moved.outs);
  });

  it("create-before-delete forced (deleteBeforeReplace: false) fails naming the option, changing nothing", async () => {
    const from = await h.newInstance("pip-forced-from");
    const to = await h.newInstance("pip-forced-to");
    const pinned = (await h.state()).publicIps.find((p) => p.locationId === 1 && p.seeded && p.instanceUuid === null)!.uuid;
    const old = await up<PublicIpOutputs>(registered, { instanceId: from, publicNetworkId: pinned });
    forgetDeployment();
    await preview(registered, old.id, old.outs, { instanceId: to, publicNetworkId: pinned });
    const mark = h.mark();
    const error = await up(registered, { instanceId: to, publicNetworkId: pinned }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as Error).message).toMatch(
      new RegExp(`address ${pinned} \\(publicNetworkId\\) is still on the instance of the PublicIp this one replaces.*remove \`deleteBeforeReplace: false\``),
    );
    expect(h.operationsSince(mark).filter((o) => o === "addPublicIp")).toEqual([]);
    expect((await h.instance(from))!.publicIpUuid).toBe(pinned);
    expect((await h.instance(to))!.publicIpUuid).toBeNull();
    await registered.delete(old.id, old.outs);
  });

  it("a replacement the engine makes without Diff (up --replace) keeps the pinned address: the old half's delete leaves it", async () => {
    const vm = await h.newInstance("pip-pinned-replace");
    const pinned = (await h.state()).publicIps.find((p) => p.locationId === 1 && p.seeded && p.instanceUuid === null)!.uuid;
    const old = await up<PublicIpOutputs>(registered, { instanceId: vm, publicNetworkId: pinned });
    forgetDeployment();
    // create-before-delete, no Diff: the new create finds the address in place and answers the same id
    const replacement = await up<PublicIpOutputs>(registered, { instanceId: vm, publicNetworkId: pinned });
    expect(replacement.id).toBe(old.id);
    const mark = h.mark();
    await registered.delete(old.id, old.outs);
    expect(h.operationsSince(mark)).not.toContain("changePublicIp");
    expect((await h.instance(vm))!.publicIpUuid).toBe(pinned);
    // a later deployment (destroy) deletes it
    forgetDeployment();
    await registered.delete(replacement.id, replacement.outs);
    expect((await h.instance(vm))!.publicIpUuid).toBeNull();
  });

  it("other replacements stay create-before-delete: another pinned address, or none pinned", async () => {
    const from = await h.newInstance("pip-cbd-from");
    const to = await h.newInstance("pip-cbd-to");
    const [a, b] = (await h.state()).publicIps.filter((p) => p.locationId === 1 && p.seeded && p.instanceUuid === null).map((p) => p.uuid);
    const pinned = await up<PublicIpOutputs>(registered, { instanceId: from, publicNetworkId: a! });
    expect(await preview(registered, pinned.id, pinned.outs, { instanceId: from, publicNetworkId: b! })).toMatchObject({ replaces: ["publicNetworkId"], deleteBeforeReplace: false });
    expect(await preview(registered, pinned.id, pinned.outs, { instanceId: to, publicNetworkId: b! })).toMatchObject({ deleteBeforeReplace: false });
    expect(await preview(registered, pinned.id, pinned.outs, { instanceId: to })).toMatchObject({ replaces: ["instanceId"], deleteBeforeReplace: false });
    forgetDeployment();
    await registered.delete(pinned.id, pinned.outs);
  });
});

describe("update after drift", () => {
  it("an update finds the address off the instance (no refresh in between): assigns it back, then sets rdns", async () => {
    const vm = await h.newInstance("pip-upd-gone");
    const { id, outs } = await up<PublicIpOutputs>(provider, { instanceId: vm, rdns: "a.example.com" });
    await h.outOfBand(vm, { publicIp: false });
    const checked = await provider.check(outs, { instanceId: vm, rdns: "b.example.com" });
    const updated = (await provider.update(id, outs, checked.inputs)).outs as PublicIpOutputs;
    expect((await h.instance(vm))!.publicIpUuid).toBe(id);
    expect(updated).toMatchObject({ publicIpId: id, rdns: "b.example.com" });
    await provider.delete(id, updated);
  });

  it("an address that cannot be assigned back (another VM holds it now) fails naming it and the way out, changing nothing", async () => {
    const vm = await h.newInstance("pip-upd-taken");
    const other = await h.newInstance("pip-upd-taker");
    const { id, outs, inputs } = await up<PublicIpOutputs>(provider, { instanceId: vm });
    await h.outOfBand(vm, { publicIp: false });
    await h.outOfBand(other, { publicIp: id }); // reassigned in the panel to another VM
    const refreshed = (await provider.read(id, outs)).props as PublicIpOutputs;
    await expect(provider.update(id, refreshed, inputs as PublicIpInputs)).rejects.toThrow(
      new RegExp(`address .*\\(${id}\\) was taken off instance ${vm} out of band and cannot be assigned back .*: the host refused it, as it says\\. Free it where it is now.*pulumi up --replace`),
    );
    expect((await h.instance(other))!.publicIpUuid).toBe(id);
    expect((await h.instance(vm))!.publicIpUuid).toBeNull();
  });
});

describe("adopt and ownership", () => {
  it("refuses an instance that already has an address, names it, and changes nothing; adoptId manages it", async () => {
    const vm = await h.newInstance("pip-adopt");
    await h.outOfBand(vm, { publicIp: true });
    const existing = (await h.instance(vm))!;
    const mark = h.mark();
    const error = await up(provider, { instanceId: vm }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as Error).message).toBe(
      `instance ${vm} already has public address ${existing.publicIpAddress} (${existing.publicIpUuid}): a PublicIp adds an address ` +
        `only to an instance without one. To manage that address set adoptId: "${existing.publicIpUuid}" (never on an address another ` +
        "PublicIp of this stack holds: with `--target` or `--exclude` the provider cannot tell which those are); if the Instance " +
        "declares publicIp, manage the address there instead (never both)",
    );
    expect(h.operationsSince(mark).filter((o) => o === "addPublicIp" || o === "changePublicIp")).toEqual([]);

    const mark2 = h.mark();
    const adopted = await up<PublicIpOutputs>(provider, { instanceId: vm, adoptId: existing.publicIpUuid, rdns: "adopted.example.com" });
    expect(adopted.id).toBe(existing.publicIpUuid);
    expect(adopted.outs).toMatchObject({ ipAddress: existing.publicIpAddress, rdns: "adopted.example.com", adoptId: existing.publicIpUuid });
    expect(h.operationsSince(mark2).filter((o) => o === "addPublicIp" || o === "changePublicIp")).toEqual([]);

    // Removed: an adopted address may be the user's reserved one, so the log does not tell them to release it outright.
    said.length = 0;
    await provider.delete(adopted.id, adopted.outs);
    const log = said.join("\n");
    expect(log).toContain(`(${existing.publicIpUuid}), which this PublicIp adopted, is taken off instance ${vm} and stays reserved`);
    expect(log).toContain("If you do not keep it for later, release it in the host's panel.");
    expect(log).not.toContain("deletedWith");
  });

  it("decides on the shared list's row: an instance listed without an address costs one detail read (the settled one), none before the add", async () => {
    // On a rate-limited host a fleet of addresses waits for every request: the idle wait's list row already says
    // "no address", so the add goes out without a read of its own; the settled detail then names the address.
    const vm = await h.newInstance("pip-row");
    const mark = h.mark();
    const { id } = await up<PublicIpOutputs>(provider, { instanceId: vm });
    const ops = h.operationsSince(mark).filter((o) => o !== "listInstances");
    expect(ops).toEqual(["addPublicIp", "getInstance"]);
    expect(id).toBe((await h.instance(vm))!.publicIpUuid);
  });

  it("refuses to adopt an address the instance does not hold", async () => {
    const vm = await h.newInstance("pip-adopt-wrong");
    await expect(up(provider, { instanceId: vm, adoptId: reserved[0]!.uuid })).rejects.toThrow(
      new Error(
        `cannot adopt address ${reserved[0]!.uuid}: instance ${vm} holds no public address; adoptId must be the uuid of the address the instance has now (see getInstance: publicIp.ipId). ` +
          "An address taken off another VM (e.g. one this up replaced) stays reserved in your account: to put it on this instance, " +
          `declare publicNetworkId: "${reserved[0]!.uuid}" instead of adoptId`,
      ),
    );
    await h.outOfBand(vm, { publicIp: true });
    const held = (await h.instance(vm))!;
    await expect(up(provider, { instanceId: vm, adoptId: reserved[0]!.uuid })).rejects.toThrow(
      `cannot adopt address ${reserved[0]!.uuid}: instance ${vm} holds address ${held.publicIpAddress} (${held.publicIpUuid}); adoptId must be`,
    );
  });

  it("adopting an address whose reverse DNS already is as declared sends no change", async () => {
    const vm = await h.newInstance("pip-adopt-rdns");
    const first = await up<PublicIpOutputs>(provider, { instanceId: vm, rdns: "same.example.com" });
    const mark = h.mark();
    const adopted = await up<PublicIpOutputs>(provider, { instanceId: vm, adoptId: first.id, rdns: "same.example.com" });
    expect(adopted.outs).toMatchObject({ rdns: "same.example.com" });
    expect(h.operationsSince(mark)).not.toContain("updateRdns");
  });
});

describe("failures", () => {
  it("reconciles an add whose answer was lost: one address, one add request, no error", async () => {
    const vm = await h.newInstance("pip-ambiguous");
    // The add takes effect, then the connection drops: the client cannot know it worked and must not re-send.
    await h.setFaults({ resetNext: { operation: "addPublicIp", afterProcessing: true } });
    const mark = h.mark();
    const { id } = await up<PublicIpOutputs>(provider, { instanceId: vm });
    expect(h.operationsSince(mark).filter((o) => o === "addPublicIp")).toHaveLength(1);
    expect((await h.instance(vm))!.publicIpUuid).toBe(id);
    expect((await h.state()).publicIps.filter((p) => p.instanceUuid === vm)).toHaveLength(1);
  });

  it("records an add whose outcome cannot be checked as unconfirmed: refresh finds the address, destroy removes it", async () => {
    // How many detail reads an add makes before sending: those pass, every one after fails until the deadline.
    const probe = await h.newInstance("pip-probe");
    const probeMark = h.mark();
    await up<PublicIpOutputs>(provider, { instanceId: probe });
    const probeOps = h.operationsSince(probeMark);
    const readsBefore = probeOps.slice(0, probeOps.indexOf("addPublicIp")).filter((o) => o === "getInstance").length;

    const vm = await h.newInstance("pip-unconfirmed");
    await h.setFaults({ resetNext: { operation: "addPublicIp", afterProcessing: true } });
    await h.setFaults({ resetNext: { operation: "getInstance", skip: readsBefore, count: 100_000 } });
    const error = await up(provider, { instanceId: vm, timeouts: { create: "1s" } }).catch((e: unknown) => e);
    await h.clearFaults();
    expect(error).toBeInstanceOf(ResourceInitError);
    const init = error as ResourceInitError;
    expect(init.id).toMatch(/^unconfirmed-/);
    expect(init.message).toMatch(/whether an address was assigned could not be checked.*recorded in the stack as unconfirmed/);
    const assigned = (await h.instance(vm))!.publicIpUuid;
    expect(assigned).not.toBeNull();
    // refresh records it under the address's uuid
    expect(await provider.read(init.id, init.properties)).toMatchObject({ id: assigned });
    // destroy (of the record as it was; a later deployment: a new provider process) removes it from the instance
    claimedByStack.clear();
    await provider.delete(init.id, init.properties);
    expect((await h.instance(vm))!.publicIpUuid).toBeNull();
  });

  it("an unconfirmed add replaced by the next up (no refresh) keeps its address: the placeholder's delete leaves it, the create takes it", async () => {
    const probe = await h.newInstance("pip-probe-2");
    const probeMark = h.mark();
    await up<PublicIpOutputs>(provider, { instanceId: probe });
    const probeOps = h.operationsSince(probeMark);
    const readsBefore = probeOps.slice(0, probeOps.indexOf("addPublicIp")).filter((o) => o === "getInstance").length;
    const vm = await h.newInstance("pip-unconfirmed-replaced");
    const reservedBefore = (await h.state()).publicIps.filter((p) => !p.seeded && p.instanceUuid === null).map((p) => p.uuid);
    await h.setFaults({ resetNext: { operation: "addPublicIp", afterProcessing: true } });
    await h.setFaults({ resetNext: { operation: "getInstance", skip: readsBefore, count: 100_000 } });
    const init = (await up(provider, { instanceId: vm, timeouts: { create: "1s" } }).catch((e: unknown) => e)) as ResourceInitError;
    await h.clearFaults();
    expect(init.id).toMatch(/^unconfirmed-/);
    const assigned = (await h.instance(vm))!.publicIpUuid!;
    // the next up, a new deployment: the engine replaces the placeholder, deleting first
    claimedByStack.clear();
    const news = (await provider.check(init.properties, { instanceId: vm })).inputs as PublicIpInputs;
    expect(await provider.diff(init.id, init.properties, news)).toMatchObject({ replaces: ["unconfirmedCreate"], deleteBeforeReplace: true });
    await provider.delete(init.id, init.properties);
    expect((await h.instance(vm))!.publicIpUuid).toBe(assigned);
    const made = await provider.create(news);
    expect(made.id).toBe(assigned);
    // no second address, and none left reserved outside every state
    expect((await h.instance(vm))!.publicIpUuid).toBe(assigned);
    expect((await h.state()).publicIps.filter((p) => !p.seeded && p.instanceUuid === null && !reservedBefore.includes(p.uuid))).toEqual([]);
  });

  it("records the address with its id when the instance fails right after the add (failAfterAssign), and the reserved one after a change", async () => {
    const network = getClient().network;
    for (const [name, wanted] of [["pip-fail-add", undefined], ["pip-fail-change", reserved[2]!.uuid]] as const) {
      const vm = await h.newInstance(name);
      const add = network.addPublicIp.bind(network);
      const change = network.changePublicIp.bind(network);
      // the host assigns the address, then the instance goes to Error: the wait for the address fails
      const addSpy = jest.spyOn(network, "addPublicIp").mockImplementation(async (...args) => {
        const answer = await add(...args);
        await h.outOfBand(vm, { status: "Error" });
        return answer;
      });
      const changeSpy = jest.spyOn(network, "changePublicIp").mockImplementation(async (...args) => {
        const answer = await change(...args);
        await h.outOfBand(vm, { status: "Error" });
        return answer;
      });
      let error: unknown;
      try {
        error = await up(provider, { instanceId: vm, ...(wanted ? { publicNetworkId: wanted } : {}) }).catch((e: unknown) => e);
      } finally {
        addSpy.mockRestore();
        changeSpy.mockRestore();
      }
      const inst = (await h.instance(vm))!;
      expect(error).toBeInstanceOf(ResourceInitError);
      const init = error as ResourceInitError;
      expect(init.id).toBe(wanted ?? inst.publicIpUuid);
      expect(init.message).toMatch(new RegExp(`^address ${inst.publicIpAddress!.replace(/\./g, "\\.")} \\(${init.id}\\) was assigned to instance ${vm}, then: `));
      expect(init.properties).toMatchObject({ instanceId: vm, publicIpId: init.id, ipAddress: inst.publicIpAddress });
      expect(init.reasons).toHaveLength(1);
      expect(init.cause).toBeDefined();
      await h.outOfBand(vm, { status: "Running" });
      await provider.delete(init.id, init.properties);
    }
  });

  it("a create retried with the reserved address already assigned (an interrupted up) sends no second change", async () => {
    const vm = await h.newInstance("pip-retry-reserved");
    const wanted = reserved[2]!.uuid;
    const first = await up<PublicIpOutputs>(provider, { instanceId: vm, publicNetworkId: wanted });
    const mark = h.mark();
    const again = await up<PublicIpOutputs>(provider, { instanceId: vm, publicNetworkId: wanted });
    expect(again.id).toBe(wanted);
    expect(h.operationsSince(mark)).not.toContain("changePublicIp");
    await provider.delete(first.id, first.outs);
  });

  it("an add whose connection dropped before the host acted fails with that error and leaves no address", async () => {
    const vm = await h.newInstance("pip-lost-add");
    await h.setFaults({ resetNext: { operation: "addPublicIp" } });
    const error = await up(provider, { instanceId: vm }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(ResourceInitError);
    expect((await h.instance(vm))!.publicIpUuid).toBeNull();
  });

  it("an add or change the host answers but never carries out is not taken as done: it fails at the deadline, naming the wait", async () => {
    const network = getClient().network;
    for (const [name, wanted] of [["pip-dropped-add", undefined], ["pip-dropped-change", reserved[0]!.uuid]] as const) {
      const vm = await h.newInstance(name);
      // answered as if done, but nothing happens at the host (the detail keeps showing no address)
      const addSpy = jest.spyOn(network, "addPublicIp").mockResolvedValue({ instance: vm, public_ip: "203.0.113.9" } as never);
      const changeSpy = jest.spyOn(network, "changePublicIp").mockResolvedValue({ instance: vm, public_ip: "203.0.113.9" } as never);
      let error: unknown;
      try {
        error = await up(provider, { instanceId: vm, timeouts: { create: "1s" }, ...(wanted ? { publicNetworkId: wanted } : {}) }).catch((e: unknown) => e);
      } finally {
        addSpy.mockRestore();
        changeSpy.mockRestore();
      }
      expect((error as Error).message).toMatch(
        new RegExp(`^timed out after .* waiting for instance ${vm} to get ${wanted ? `public address ${wanted}` : "a public address"} \\(last status seen: Running`),
      );
      expect((await h.instance(vm))!.publicIpUuid).toBeNull();
    }
  });

  it("a failed change to a reserved address never records the address the instance had before", async () => {
    const vm = await h.newInstance("pip-fail-keep-old");
    await h.outOfBand(vm, { publicIp: true });
    const old = (await h.instance(vm))!.publicIpUuid;
    const network = getClient().network;
    const spy = jest.spyOn(network, "changePublicIp").mockRejectedValue(new Error("the host refused the change"));
    let error: unknown;
    try {
      error = await up(provider, { instanceId: vm, publicNetworkId: reserved[1]!.uuid }).catch((e: unknown) => e);
    } finally {
      spy.mockRestore();
    }
    expect(error).not.toBeInstanceOf(ResourceInitError);
    expect((error as Error).message).toBe("the host refused the change");
    expect((await h.instance(vm))!.publicIpUuid).toBe(old);
  });

  it("an instance that stays busy past the deadline: the error names the wait, and nothing was sent", async () => {
    const vm = await h.newInstance("pip-busy-late");
    await h.setFaults({ stickNext: { kind: "stop" } });
    await getClient().instances.stop(vm);
    const mark = h.mark();
    await expect(up(provider, { instanceId: vm, timeouts: { create: "1s" } })).rejects.toThrow(
      new RegExp(`^timed out after .* waiting for instance ${vm} to get a public address: instance ${vm} to be idle`),
    );
    expect(h.operationsSince(mark)).not.toContain("addPublicIp");
    await h.admin("POST", `/instances/${vm}/finish-operation`, {});
  });

  it("an instance deleted while the create waited for it to be idle: the error says it does not exist", async () => {
    const vm = await h.newInstance("pip-gone-waiting");
    await h.setFaults({ stickNext: { kind: "stop" } });
    await getClient().instances.stop(vm);
    const mark = h.mark();
    const creating = up(provider, { instanceId: vm }).catch((e: unknown) => e);
    await until(() => h.operationsSince(mark).filter((o) => o === "listInstances").length >= 2);
    await h.outOfBand(vm, { deleted: true });
    expect(await creating).toEqual(new ProviderError(`instance ${vm} does not exist (instanceId must be the uuid of an existing instance)`));
  });

  it("an address that leaves the instance while its reverse DNS is set is recorded with its id, not forgotten", async () => {
    const vm = await h.newInstance("pip-left-rdns");
    const network = getClient().network;
    const updateRdns = network.updateRdns.bind(network);
    const spy = jest.spyOn(network, "updateRdns").mockImplementation(async (...args) => {
      const answer = await updateRdns(...args);
      await h.outOfBand(vm, { publicIp: false });
      return answer;
    });
    let error: unknown;
    try {
      error = await up(provider, { instanceId: vm, rdns: "left.example.com" }).catch((e: unknown) => e);
    } finally {
      spy.mockRestore();
    }
    expect(error).toBeInstanceOf(ResourceInitError);
    const init = error as ResourceInitError;
    expect(init.message).toBe(
      `address ${init.id} is on instance ${vm}, but setting it up failed: address ${init.id} left instance ${vm} while it was being set up (changed out of band?)`,
    );
    expect(init.properties).toMatchObject({ instanceId: vm, publicIpId: init.id, ipAddress: "" });
  });

  it("lets a failure stand when the instance shows no address of this create afterwards", async () => {
    const vm = await h.newInstance("pip-fail-none");
    const network = getClient().network;
    const spy = jest.spyOn(network, "addPublicIp").mockRejectedValue(new Error("the host refused the add"));
    try {
      const error = await up(provider, { instanceId: vm }).catch((e: unknown) => e);
      expect(error).not.toBeInstanceOf(ResourceInitError);
      expect((error as Error).message).toBe("the host refused the add");
    } finally {
      spy.mockRestore();
    }
    expect((await h.instance(vm))!.publicIpUuid).toBeNull();
  });

  it("records the address with its id when setting reverse DNS fails after it was assigned", async () => {
    const vm = await h.newInstance("pip-initfail");
    // A host where the (assumed) reverse-DNS route differs answers 404 for it: the address is assigned by
    // then, so it must be recorded, not forgotten.
    await useConfig({ "vmhost:routes": JSON.stringify({ updateRdns: "PATCH /network/not-on-this-host/{ip_uuid}/rdns" }) });
    let error: unknown;
    try {
      error = await up(provider, { instanceId: vm, rdns: "initfail.example.com" }).catch((e: unknown) => e);
    } finally {
      await useConfig({});
    }
    expect(error).toBeInstanceOf(ResourceInitError);
    const init = error as ResourceInitError;
    const inst = (await h.instance(vm))!;
    expect(init.id).toBe(inst.publicIpUuid);
    expect(init.properties).toMatchObject({ instanceId: vm, publicIpId: inst.publicIpUuid, ipAddress: inst.publicIpAddress });
    expect(init.message).toMatch(new RegExp(`^address ${init.id} is on instance ${vm}, but setting it up failed: .*updateRdns .* HTTP 404`));
    expect(init.reasons).toEqual([init.message.slice(init.message.indexOf("failed: ") + "failed: ".length)]);
    expect(init.cause).toBeDefined();
    // what Pulumi recorded can be deleted
    await provider.delete(init.id, init.properties);
    expect((await h.instance(vm))!.publicIpUuid).toBeNull();
  });
});
