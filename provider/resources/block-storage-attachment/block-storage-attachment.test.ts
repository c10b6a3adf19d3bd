import { checkInputs, UNKNOWN_VALUE } from "../common/check";
import { inputsSchema, outputsSchema, type BlockStorageAttachmentOutputs } from "./inputs";
import { diffBlockStorageAttachment } from "./diff";
import { blockStorageAttachmentOutputs, diskStateFromList, diskStateFromOptions, inputsFromState } from "./model";

const VM = "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab";
const VM2 = "7f1c2d3e-4b5a-4c6d-8e7f-0123456789ab";
const DISK = "0a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d";
const DISK2 = "1a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d";

describe("BlockStorageAttachment check", () => {
  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ["missing blockStorageId", { instanceId: VM }, "blockStorageId", /blockStorageId is required/],
    ["missing instanceId", { blockStorageId: DISK }, "instanceId", /instanceId is required/],
    ["blockStorageId a disk name", { blockStorageId: "data-1", instanceId: VM }, "blockStorageId", /uuid .*not its name \(getBlockStorage\(\{ name: "data-50" \}\)\.id looks one up\)/],
    ["blockStorageId a number", { blockStorageId: 7, instanceId: VM }, "blockStorageId", /uuid string/],
    ["instanceId with a stray character", { blockStorageId: DISK, instanceId: `${VM}x` }, "instanceId", /uuid/],
    ["adoptId of another disk", { blockStorageId: DISK, instanceId: VM, adoptId: DISK2 }, "adoptId", /block storage uuid/],
    ["adoptId not a uuid", { blockStorageId: DISK, instanceId: VM, adoptId: "yes" }, "adoptId", /uuid/],
    ["timeouts.update a sentence", { blockStorageId: DISK, instanceId: VM, timeouts: { update: "a while" } }, "timeouts.update", /duration/],
    ["timeouts with read", { blockStorageId: DISK, instanceId: VM, timeouts: { read: "1m" } }, "timeouts.read", /timeouts only takes create, update, delete/],
    ["a typo'd property", { blockStorageID: DISK, instanceId: VM }, "blockStorageID", /unknown property blockStorageID.*did you mean blockStorageId/],
  ])("%s", (_case, news, property, reason) => {
    const result = checkInputs(inputsSchema, news);
    expect(result.inputs).toBeUndefined();
    expect(result.failures).toEqual(expect.arrayContaining([{ property, reason: expect.stringMatching(reason) }]));
  });
  it("does not compare adoptId with a blockStorageId unknown during preview", () => {
    expect(checkInputs(inputsSchema, { blockStorageId: UNKNOWN_VALUE, instanceId: VM, adoptId: DISK }).failures).toBeUndefined();
  });
  it("normalizes uuids to lower case", () => {
    expect(checkInputs(inputsSchema, { blockStorageId: DISK.toUpperCase(), instanceId: VM }).inputs).toEqual({ blockStorageId: DISK, instanceId: VM });
  });
});

const state = (over: Partial<BlockStorageAttachmentOutputs> = {}): BlockStorageAttachmentOutputs => ({
  blockStorageId: DISK,
  instanceId: VM,
  name: "data-1",
  sizeGb: 50,
  ...over,
});

describe("BlockStorageAttachment diff", () => {
  it.each<[string, Record<string, unknown>, { changes: boolean; replaces: string[] }]>([
    ["nothing changed", { blockStorageId: DISK, instanceId: VM }, { changes: false, replaces: [] }],
    ["another disk: replace", { blockStorageId: DISK2, instanceId: VM }, { changes: true, replaces: ["blockStorageId"] }],
    ["another instance: replace", { blockStorageId: DISK, instanceId: VM2 }, { changes: true, replaces: ["instanceId"] }],
    ["instance unknown in preview: replace", { blockStorageId: DISK, instanceId: UNKNOWN_VALUE }, { changes: true, replaces: ["instanceId"] }],
    ["timeouts changed: recorded in place", { blockStorageId: DISK, instanceId: VM, timeouts: { delete: "1m" } }, { changes: true, replaces: [] }],
    ["adoptId added later: recorded in place (no write), as in every resource", { blockStorageId: DISK, instanceId: VM, adoptId: DISK }, { changes: true, replaces: [] }],
  ])("%s", (_case, news, expected) => {
    const result = diffBlockStorageAttachment(state(), news as never);
    expect({ changes: result.changes, replaces: result.replaces }).toEqual(expected);
  });
  it("replaces delete-first: a disk is attached to one instance at a time", () => {
    expect(diffBlockStorageAttachment(state(), { blockStorageId: DISK, instanceId: VM2 }).deleteBeforeReplace).toBe(true);
  });
});

describe("BlockStorageAttachment model", () => {
  const disks = [
    { id: DISK, name: "data-1", size: 50, attached_instance_uuid: VM.toUpperCase() },
    { id: DISK2, name: "data-2", size: 20, attached_instance_uuid: null },
  ];
  it.each<[string, string, string, string]>([
    ["listed as attached to our instance", DISK, VM, "attached"],
    ["listed as attached to another instance", DISK, VM2, "elsewhere"],
    ["listed as detached", DISK2, VM, "detached"],
    ["not listed (deleted)", "2a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d", VM, "missing"],
  ])("list view: %s -> %s", (_case, disk, vm, kind) => {
    expect(diskStateFromList(disk, vm, disks).kind).toBe(kind);
  });
  it("fallback view: attached unless listed as available", () => {
    const available = [{ id: DISK2, name: "data-2", size: 20 }];
    expect(diskStateFromOptions(DISK, available)).toEqual({ kind: "attached" });
    expect(diskStateFromOptions(DISK2, available)).toEqual({ kind: "detached", name: "data-2", sizeGb: 20 });
  });
  it("maps to outputs, keeping name and size from state when the fallback view cannot see them", () => {
    const outputs = blockStorageAttachmentOutputs({ blockStorageId: DISK, instanceId: VM }, {}, { name: "data-1", sizeGb: 50 });
    expect(outputs).toEqual({ blockStorageId: DISK, instanceId: VM, name: "data-1", sizeGb: 50 });
    expect(outputsSchema.safeParse(outputs).success).toBe(true);
  });
  it("carries the user's inputs from state", () => {
    expect(inputsFromState(state())).toEqual({ blockStorageId: DISK, instanceId: VM });
  });
  it("carries adoptId and timeouts into outputs and back into inputs only when set", () => {
    expect(Object.keys(blockStorageAttachmentOutputs({ blockStorageId: DISK, instanceId: VM }, {}))).toEqual(["blockStorageId", "instanceId"]);
    const full = blockStorageAttachmentOutputs({ blockStorageId: DISK, instanceId: VM, adoptId: DISK, timeouts: { create: "1m" } }, { name: "data-1", sizeGb: 50 });
    expect(full).toEqual({ blockStorageId: DISK, instanceId: VM, name: "data-1", sizeGb: 50, adoptId: DISK, timeouts: { create: "1m" } });
    expect(inputsFromState(full)).toEqual({ blockStorageId: DISK, instanceId: VM, adoptId: DISK, timeouts: { create: "1m" } });
    expect(Object.keys(inputsFromState(state()))).toEqual(["blockStorageId", "instanceId"]);
  });
});
