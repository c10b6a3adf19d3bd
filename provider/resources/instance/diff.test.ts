import { UNKNOWN_VALUE } from "../common/check";
import { addressDiffers, adoptionRefusal, diffInstance, diskShrinkRefusal, planInstanceUpdate, type UpdateStep } from "./diff";
import type { InstanceInputs, InstanceOutputs } from "./inputs";
import { providers } from "../../registry";
import { REPLACE_ON_CHANGES_KEY } from "../common/replace-on-changes";

const VS1 = "11111111-1111-4111-8111-111111111111";
const IP1 = "22222222-2222-4222-8222-222222222222";
const IP2 = "33333333-3333-4333-8333-333333333333";

/** The state after creating the program `inputs` (outputs read back). */
const inputs: InstanceInputs = {
  locationId: 1, tierId: 2, templateId: 1, hostname: "web-1", cpu: 2, memory: 4, storage: 40, username: "deploy",
  password: "Blue-Horse-42", sshKeys: ["ssh-ed25519 AAAA me"], backups: false, dedicatedCpu: false, publicIp: true,
  vswitchId: VS1, powerState: "running", deleteOptions: { removePublicIp: true, removeBlockStorage: false },
};
const olds = {
  ...inputs,
  status: "Running", ipAddress: "103.150.12.10", publicIpId: IP1, rdns: null, privateNetwork: "jkt-private-1",
  locationName: "Jakarta", tierName: "Standard", os: "Ubuntu 22.04", pricePerHour: 300, estimatedMonthlyPrice: 216000,
  createdAt: "2026-11-21T15:00:00.000Z", updatedAt: null, lastStartedAt: null, lastBackupAt: null,
} as InstanceOutputs;

type Row = [string, Partial<InstanceInputs> | Record<string, unknown>, { replaces?: string[]; steps?: UpdateStep["kind"][]; changes?: boolean }];

// Every input of design.md §4 "Instance": what a change of it does.
const table: Row[] = [
  ["nothing changed", {}, { changes: false, steps: [] }],
  ["locationId", { locationId: 2 }, { replaces: ["locationId"] }],
  ["templateId", { templateId: 3 }, { replaces: ["templateId"] }],
  ["username", { username: "admin" }, { replaces: ["username"] }],
  ["sshKeys", { sshKeys: ["ssh-ed25519 BBBB me"] }, { replaces: ["sshKeys"] }],
  ["sshKeys removed", { sshKeys: undefined }, { replaces: ["sshKeys"] }],
  ["backups", { backups: true }, { replaces: ["backups"] }],
  ["cloneFrom", { cloneFrom: IP2 }, { replaces: ["cloneFrom"] }],
  ["tierId", { tierId: 3 }, { steps: ["changeTier"] }],
  ["cpu", { cpu: 4 }, { steps: ["resize"] }],
  ["memory", { memory: 8 }, { steps: ["resize"] }],
  ["storage grows", { storage: 80 }, { steps: ["resize"] }],
  ["storage shrinks (a change that update refuses; never a silent new VM)", { storage: 20 }, { changes: true }],
  ["dedicatedCpu", { dedicatedCpu: true }, { steps: ["resize"] }],
  ["hostname", { hostname: "web-2" }, { steps: ["hostname"] }],
  ["password", { password: "Green-Cat-77" }, { steps: ["password"] }],
  ["publicIp true -> false", { publicIp: false }, { steps: ["publicAddress"] }],
  ["publicNetworkId (a reserved address)", { publicNetworkId: IP2 }, { steps: ["publicAddress"] }],
  ["publicNetworkId equal to the address in use", { publicNetworkId: IP1 }, { changes: true, steps: [] }],
  ["publicIp no longer managed", { publicIp: undefined }, { changes: true, steps: [] }],
  ["vswitchId", { vswitchId: "44444444-4444-4444-8444-444444444444" }, { steps: ["privateNetwork"] }],
  ["vswitchId blank detaches", { vswitchId: "" }, { steps: ["privateNetwork"] }],
  ["vswitchId no longer managed", { vswitchId: undefined }, { changes: true, steps: [] }],
  ["powerState", { powerState: "stopped" }, { steps: ["power"] }],
  ["powerState no longer managed", { powerState: undefined }, { changes: true, steps: [] }],
  ["deleteOptions", { deleteOptions: { removePublicIp: false, removeBlockStorage: false } }, { changes: true, steps: [] }],
  ["timeouts", { timeouts: { create: "30m" } }, { changes: true, steps: [] }],
  ["adoptId (only used at create)", { adoptId: IP2 }, { changes: true, steps: [] }],
  ["several at once, run in the fixed order", { powerState: "stopped", hostname: "web-2", tierId: 3, cpu: 4, vswitchId: "", password: "Green-Cat-77", publicIp: false },
    { steps: ["changeTier", "resize", "hostname", "password", "publicAddress", "privateNetwork", "power"] }],
  ["a replace wins over in-place changes", { templateId: 2, cpu: 4 }, { replaces: ["templateId"] }],
  // preview: values not known yet
  ["unknown hostname", { hostname: UNKNOWN_VALUE }, { changes: true }],
  ["unknown cpu", { cpu: UNKNOWN_VALUE }, { changes: true }],
  ["unknown locationId", { locationId: UNKNOWN_VALUE }, { replaces: ["locationId"] }],
  ["unknown storage", { storage: UNKNOWN_VALUE }, { changes: true }],
  ["unknown vswitchId", { vswitchId: UNKNOWN_VALUE }, { changes: true }],
  ["unknown publicNetworkId", { publicNetworkId: UNKNOWN_VALUE }, { changes: true }],
];

describe("Instance diff", () => {
  it.each(table)("%s", (_what, change, expected) => {
    const news = { ...inputs, ...change } as InstanceInputs;
    const d = diffInstance(olds, news);
    const replaces = expected.replaces ?? [];
    expect(d.replaces).toEqual(replaces);
    expect(d.changes).toBe(expected.changes ?? true);
    // changedKeys (what replaceOnChanges acts on) names exactly the inputs the row changes
    expect([...d.changedKeys].sort()).toEqual(Object.keys(change).sort());
    if (expected.steps && replaces.length === 0) expect(planInstanceUpdate(olds, news).map((s) => s.kind)).toEqual(expected.steps);
  });

  it("turns dedicated CPU off before a tier change (the new tier may not offer it)", () => {
    const dedicated = { ...olds, dedicatedCpu: true, tierId: 3 } as InstanceOutputs;
    expect(planInstanceUpdate(dedicated, { ...inputs, tierId: 2, dedicatedCpu: false }).map((s) => s.kind)).toEqual(["resize", "changeTier"]);
    expect(planInstanceUpdate(olds, { ...inputs, tierId: 3, dedicatedCpu: true }).map((s) => s.kind)).toEqual(["changeTier", "resize"]);
  });

  it("decides each public-address step on the state: add only without an address, remove only with one, assign only another one", () => {
    const none = { ...olds, ipAddress: null, publicIpId: null } as InstanceOutputs;
    expect([addressDiffers(olds, { kind: "publicAddress", action: "add" }), addressDiffers(none, { kind: "publicAddress", action: "add" })]).toEqual([false, true]);
    expect([addressDiffers(olds, { kind: "publicAddress", action: "remove" }), addressDiffers(none, { kind: "publicAddress", action: "remove" })]).toEqual([true, false]);
    // a state that never saw the address (publicIpId absent: an add the host took, the address not seen yet) may have one
    const unseen = { ...olds, publicIp: false, ipAddress: null, publicIpId: undefined } as unknown as InstanceOutputs;
    expect(addressDiffers(unseen, { kind: "publicAddress", action: "remove" })).toBe(true);
    expect(planInstanceUpdate(unseen, { ...inputs, publicIp: false })).toEqual([{ kind: "publicAddress", action: "remove" }]);
    expect(addressDiffers(olds, { kind: "publicAddress", action: "assign", publicNetworkId: IP1 })).toBe(false);
    expect(addressDiffers(olds, { kind: "publicAddress", action: "assign", publicNetworkId: IP2 })).toBe(true);
  });
  it("pinned address -> publicIp: true gives the user's reserved address back and adds one of the VM's own; never the API's own address", () => {
    const { publicIp: _p, ...unpinnedInputs } = inputs;
    const pinned = { ...olds, publicIp: undefined, publicNetworkId: IP1, madePublicIpId: null } as unknown as InstanceOutputs;
    const steps = planInstanceUpdate(pinned, { ...unpinnedInputs, publicIp: true });
    expect(steps).toEqual([{ kind: "publicAddress", action: "remove", giveBack: IP1 }, { kind: "publicAddress", action: "add" }]);
    expect(diffInstance(pinned, { ...unpinnedInputs, publicIp: true }).changes).toBe(true);
    // the state records the address held as publicNetworkId also after a pin that failed: ours stays
    const failedPin = { ...pinned, madePublicIpId: IP1 } as InstanceOutputs;
    expect(planInstanceUpdate(failedPin, { ...unpinnedInputs, publicIp: true })).toEqual([]);
    // the VM no longer holds it (a refresh saw another): only an address is asked for, which it has
    expect(planInstanceUpdate({ ...pinned, publicIpId: IP2 } as InstanceOutputs, { ...unpinnedInputs, publicIp: true })).toEqual([]);
  });
  it("spelling out a default, or leaving it out, is no change: no ssh keys, no backups, the default deleteOptions", () => {
    const { sshKeys: _keys, backups: _backups, deleteOptions: _options, ...bare } = inputs;
    const defaults = { ...olds, sshKeys: [], backups: false, deleteOptions: { removePublicIp: true, removeBlockStorage: false } } as InstanceOutputs;
    expect(diffInstance(defaults, bare as InstanceInputs).changes).toBe(false);
    const unset = { ...olds, sshKeys: undefined, backups: undefined, deleteOptions: undefined } as unknown as InstanceOutputs;
    expect(diffInstance(unset, { ...bare, sshKeys: [], backups: false, deleteOptions: { removePublicIp: true, removeBlockStorage: false } } as InstanceInputs).changes).toBe(false);
  });
  it("the same timeouts or deleteOptions written in another key order are no change; another value is", () => {
    const timed = { ...olds, timeouts: { create: "10m", delete: "5m" } } as InstanceOutputs;
    expect(diffInstance(timed, { ...inputs, timeouts: { delete: "5m", create: "10m" } }).changes).toBe(false);
    expect(diffInstance(timed, { ...inputs, timeouts: { delete: "6m", create: "10m" } }).changes).toBe(true);
    expect(diffInstance(olds, { ...inputs, deleteOptions: { removeBlockStorage: false, removePublicIp: true } }).changes).toBe(false);
    expect(diffInstance(olds, { ...inputs, deleteOptions: { removePublicIp: false, removeBlockStorage: false } }).changes).toBe(true);
  });
  it("the same ssh keys in another order are no change (not a new VM)", () => {
    const twoKeys = { ...olds, sshKeys: ["ssh-ed25519 AAAA a", "ssh-ed25519 BBBB b"] } as InstanceOutputs;
    expect(diffInstance(twoKeys, { ...inputs, sshKeys: ["ssh-ed25519 BBBB b", "ssh-ed25519 AAAA a"] })).toMatchObject({ changes: false, replaces: [], changedKeys: [] });
  });
  it("names the address input that decides: a wrong reserved address is publicNetworkId, a missing or unwanted one publicIp", () => {
    const pinned = { ...olds, publicNetworkId: IP1 } as InstanceOutputs;
    expect(diffInstance(pinned, { ...inputs, publicNetworkId: IP2 }).changedKeys).toEqual(["publicNetworkId"]);
    // the address publicIp: true asks for is gone (drift): the program's value is unchanged, the diff adds it back
    expect(diffInstance({ ...olds, ipAddress: null, publicIpId: null } as InstanceOutputs, inputs).changedKeys).toEqual(["publicIp"]);
    expect(diffInstance(olds, { ...inputs, publicIp: UNKNOWN_VALUE } as unknown as InstanceInputs).changedKeys).toEqual(["publicIp"]);
  });
  it("a VM in Error is a change to repair, but no input's change (replaceOnChanges never replaces it for that)", () => {
    expect(diffInstance({ ...olds, status: "Error" } as InstanceOutputs, inputs)).toMatchObject({ changes: true, replaces: [], changedKeys: [] });
  });

  it("resize sends all three sizes, taking unchanged ones from the state", () => {
    expect(planInstanceUpdate(olds, { ...inputs, memory: 8 })).toEqual([{ kind: "resize", cpu: 2, memory: 8, storage: 40, dedicatedCpu: false }]);
  });

  it("unset read-back properties (an adopted VM) are not compared", () => {
    const adopted = { adoptId: IP2, deleteOptions: inputs.deleteOptions } as InstanceInputs;
    const state = { ...olds, adoptId: IP2, publicIp: undefined, vswitchId: undefined, powerState: undefined, password: undefined, sshKeys: undefined };
    expect(diffInstance(state, adopted)).toMatchObject({ changes: false, replaces: [] });
  });

  it("drift: the state shows what the API reports, the diff proposes the fix", () => {
    expect(planInstanceUpdate({ ...olds, hostname: "renamed" }, inputs)).toEqual([{ kind: "hostname", hostname: "web-1" }]);
    expect(planInstanceUpdate({ ...olds, powerState: "stopped", status: "Stopped" }, inputs)).toEqual([{ kind: "power", state: "running" }]);
    expect(planInstanceUpdate({ ...olds, publicIp: false, ipAddress: null, publicIpId: null }, inputs)).toEqual([{ kind: "publicAddress", action: "add" }]);
    expect(diffInstance({ ...olds, storage: 60 }, inputs)).toMatchObject({ changes: true, replaces: [] });
  });

  it("a disk smaller than the VM's is refused with both ways out named; a larger or equal one is not", () => {
    const message = diskShrinkRefusal("vm-1", { ...olds, storage: 60 }, inputs);
    expect(message).toMatch(/instance vm-1 has a 60 GB disk and the program declares storage: 40; disks cannot shrink/);
    // the deliberate way out works as given: --replace keeping the hostname needs deleteBeforeReplace
    expect(message).toMatch(/pulumi up --replace .*deleteBeforeReplace: true for that run, or a new hostname/);
    expect(message).toMatch(/Declare storage: 60 \(or more\)/);
    expect(message).toMatch(/pulumi up --replace/);
    expect(diskShrinkRefusal("vm-1", olds, { ...inputs, storage: 80 })).toBeUndefined();
    expect(diskShrinkRefusal("vm-1", olds, inputs)).toBeUndefined();
  });

  it("an address or network managed elsewhere (PublicIp, VswitchAttachment) is no change", () => {
    const unmanaged = { ...inputs, publicIp: undefined, vswitchId: undefined } as InstanceInputs;
    const state = { ...olds, publicIp: undefined, vswitchId: undefined };
    expect(diffInstance({ ...state, ipAddress: null, publicIpId: null, privateNetwork: null }, unmanaged).changes).toBe(false);
    expect(diffInstance({ ...state, ipAddress: "1.2.3.4", publicIpId: IP2, privateNetwork: "x" }, unmanaged).changes).toBe(false);
  });
});

describe("adoptionRefusal", () => {
  const adopted = { ...inputs, adoptId: "6f1c0a2e-1111-4222-8333-444455556666" } as InstanceOutputs;
  it("names each replace-forcing difference with both values, the ways out, and the ssh keys note", () => {
    expect(adoptionRefusal("vm-1", { ...adopted, templateId: undefined }, { ...adopted, templateId: 2, sshKeys: ["k2"] } as InstanceInputs, ["templateId", "sshKeys"])).toBe(
      'instance vm-1 was adopted (adoptId) and templateId (the VM has null, the program declares 2), sshKeys (the VM has ["ssh-ed25519 AAAA me"], ' +
        'the program declares ["k2"]) can only change with a new VM; an adopted VM is never replaced by Pulumi, because the replacement would adopt ' +
        "the same VM and then delete it. Declare the VM's value for templateId, sshKeys, or, to get a new VM deliberately, remove adoptId and run " +
        "pulumi up (the adopted VM and its data are deleted once the new one exists). Nothing was changed. (The API cannot show a VM's ssh keys: " +
        "the adopted VM's keys are the ones recorded at adoption.)",
    );
  });
  it("refuses nothing once adoptId is removed from the program, or for a VM never adopted", () => {
    expect(adoptionRefusal("vm-1", adopted, { ...adopted, adoptId: undefined } as InstanceInputs, ["username"])).toBeUndefined();
    expect(adoptionRefusal("vm-1", { ...adopted, adoptId: undefined }, adopted as InstanceInputs, ["username"])).toBeUndefined();
  });
});

describe("object inputs compare by content, not key order", () => {
  it("deleteOptions written in another order is no change", () => {
    const news = { ...inputs, deleteOptions: { removeBlockStorage: false, removePublicIp: true } } as InstanceInputs;
    expect(diffInstance(olds, news)).toMatchObject({ changes: false });
  });
});

// The replaceOnChanges option as the registered provider applies it (common/replace-on-changes.ts): on what
// this diff finds changed, so a reorder of sshKeys, which the diff calls no change, never replaces the VM.
describe("Instance diff with replaceOnChanges (the registered provider)", () => {
  const twoKeys = ["ssh-ed25519 AAAA a@x", "ssh-ed25519 BBBB b@x"];
  const state = { ...olds, sshKeys: twoKeys } as InstanceOutputs;
  const diff = (news: Record<string, unknown>) => providers.Instance.diff!("vm-1", state, { ...inputs, sshKeys: twoKeys, ...news });

  it("a reorder of sshKeys listed in replaceOnChanges (or under '*') is no change: a reorder never destroys a VM", async () => {
    const reordered = [...twoKeys].reverse();
    expect(await diff({ sshKeys: reordered, [REPLACE_ON_CHANGES_KEY]: ["sshKeys"] })).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
    expect(await diff({ sshKeys: reordered, [REPLACE_ON_CHANGES_KEY]: ["*"] })).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
    // beside a real in-place change, the reorder still replaces nothing
    expect(await diff({ sshKeys: reordered, cpu: 4, [REPLACE_ON_CHANGES_KEY]: ["sshKeys"] })).toMatchObject({ changes: true, replaces: [] });
  });
  it("still replaces for what the option names and the diff finds changed (README: a rename becomes a new VM)", async () => {
    expect(await diff({ hostname: "web-2", [REPLACE_ON_CHANGES_KEY]: ["hostname"] })).toMatchObject({ changes: true, replaces: ["hostname"] });
    expect(await diff({ sshKeys: [...twoKeys].reverse(), cpu: 4, [REPLACE_ON_CHANGES_KEY]: ["*"] })).toMatchObject({ changes: true, replaces: ["cpu"] });
    const options = { deleteOptions: { removePublicIp: false, removeBlockStorage: false }, [REPLACE_ON_CHANGES_KEY]: ["deleteOptions.removePublicIp"] };
    expect(await diff(options)).toMatchObject({ changes: true, replaces: ["deleteOptions"] });
    expect(await diff({ sshKeys: ["ssh-ed25519 CCCC c@x"], [REPLACE_ON_CHANGES_KEY]: ["sshKeys"] })).toMatchObject({ changes: true, replaces: ["sshKeys"] });
  });
  it("repairs a VM in Error in place even under replaceOnChanges: ['*'] (no input changed)", async () => {
    const failed = { ...state, status: "Error" } as InstanceOutputs;
    expect(await providers.Instance.diff!("vm-1", failed, { ...inputs, sshKeys: twoKeys, [REPLACE_ON_CHANGES_KEY]: ["*"] })).toMatchObject({ changes: true, replaces: [] });
  });
});
