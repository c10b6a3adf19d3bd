import { checkInputs, UNKNOWN_VALUE } from "../common/check";
import { DEFAULT_SNAPSHOT_DESCRIPTION, inputsSchema } from "./inputs";
import { diffSnapshot } from "./diff";
import { snapshotOutputs, snapshotProgress, type SnapshotProgress } from "./model";
import type { Snapshot } from "../../api";

const VM = "6f1c2a3b-0000-4000-8000-000000000001";
const SNAP = "0b7e9c1d-0000-4000-8000-00000000000a";

describe("Snapshot inputs", () => {
  it("fills the default description (the API refuses an empty one) and trims the name", () => {
    expect(checkInputs(inputsSchema, { instanceId: VM, name: "  before-upgrade " })).toEqual({
      inputs: { instanceId: VM, name: "before-upgrade", description: DEFAULT_SNAPSHOT_DESCRIPTION },
    });
  });

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ["missing instanceId", { name: "s" }, "instanceId", /required/],
    ["instanceId not a uuid", { instanceId: "web-1", name: "s" }, "instanceId", /uuid/],
    ["missing name", { instanceId: VM }, "name", /required/],
    ["blank name", { instanceId: VM, name: "   " }, "name", /empty/],
    ["name too long", { instanceId: VM, name: "x".repeat(51) }, "name", /50/],
    ["name on two lines", { instanceId: VM, name: "a\nb" }, "name", /only letters/],
    ["name starting with a dash", { instanceId: VM, name: "-x" }, "name", /start with a letter/],
    ["description too long", { instanceId: VM, name: "s", description: "d".repeat(256) }, "description", /255/],
    ["adoptId not a uuid", { instanceId: VM, name: "s", adoptId: "snap-1" }, "adoptId", /uuid/],
    ["bad duration", { instanceId: VM, name: "s", timeouts: { create: "ten minutes" } }, "timeouts.create", /duration/],
    ["update timeout (a snapshot is never updated)", { instanceId: VM, name: "s", timeouts: { update: "5m" } }, "timeouts.update", /only takes create, delete/],
    ["typo'd property", { instanceId: VM, name: "s", descripton: "x" }, "descripton", /^unknown property descripton: a Snapshot takes instanceId, name, description, adoptId, timeouts: did you mean description\?$/],
  ])("rejects %s, naming the property", (_what, news, property, reason) => {
    const result = checkInputs(inputsSchema, news);
    expect(result.inputs).toBeUndefined();
    expect(result.failures).toEqual(expect.arrayContaining([{ property, reason: expect.stringMatching(reason) }]));
  });

  it("lets a name unknown during preview through", () => {
    expect(checkInputs(inputsSchema, { instanceId: UNKNOWN_VALUE, name: "s" }).failures).toBeUndefined();
  });
});

describe("Snapshot diff", () => {
  const olds = {
    instanceId: VM, name: "s", description: "d", status: "Ready", isCurrentState: false, attachedStorage: [],
    currentHourlyPrice: 1, estimatedMonthly: 720, createdAt: "2024-01-01T00:00:00.000Z",
  };
  it.each<[string, Record<string, unknown>, boolean, string[], string[]]>([
    ["nothing changed (computed outputs are not inputs)", { instanceId: VM, name: "s", description: "d" }, false, [], []],
    ["name", { instanceId: VM, name: "t", description: "d" }, true, ["name"], ["name"]],
    ["description", { instanceId: VM, name: "s", description: "e" }, true, ["description"], ["description"]],
    ["instance", { instanceId: SNAP, name: "s", description: "d" }, true, ["instanceId"], ["instanceId"]],
    ["instance unknown in preview", { instanceId: UNKNOWN_VALUE, name: "s", description: "d" }, true, ["instanceId"], ["instanceId"]],
    ["timeouts only: recorded, no replacement", { instanceId: VM, name: "s", description: "d", timeouts: { delete: "5m" } }, true, [], ["timeouts"]],
    ["adoptId only: recorded, no replacement", { instanceId: VM, name: "s", description: "d", adoptId: SNAP }, true, [], ["adoptId"]],
  ])("%s", (_what, news, changes, replaces, changedKeys) => {
    expect(diffSnapshot(olds, news)).toEqual({ changes, replaces, deleteBeforeReplace: false, changedKeys });
  });
});

describe("Snapshot status", () => {
  // A host that answers "active" for a finished snapshot must end the create, not run it into its deadline;
  // one answering "Failed" must fail it at once.
  it.each<[string, SnapshotProgress]>([
    ["Ready", "ready"], [" ready ", "ready"], ["ACTIVE", "ready"], ["available", "ready"], ["Success", "ready"],
    ["Error", "failed"], ["failed", "failed"], [" FAILED", "failed"],
    ["creating", "pending"], ["Processing", "pending"], ["", "pending"], ["errored", "pending"],
  ])("%p is %p", (status, progress) => {
    expect(snapshotProgress(status)).toBe(progress);
  });
});

describe("Snapshot outputs", () => {
  const api: Snapshot = {
    id: SNAP, name: "s", description: "d", status: "Ready", current_hourly_price: 0.5, current_cost: 3, estimated_monthly: 360,
    is_current_state: true, attached_storage: [{ id: "7", name: "data", size: 50 }], created_at: "2024-01-01T00:00:00.000Z",
  };

  it("are the API's values plus the provider-only inputs carried from state", () => {
    const outs = snapshotOutputs({ instanceId: VM, adoptId: SNAP, timeouts: { delete: "5m" } }, api);
    expect(outs).toEqual({
      instanceId: VM, name: "s", description: "d", adoptId: SNAP, timeouts: { delete: "5m" }, status: "Ready", isCurrentState: true,
      attachedStorage: [{ id: "7", name: "data", size: 50 }], currentHourlyPrice: 0.5, estimatedMonthly: 360, createdAt: "2024-01-01T00:00:00.000Z",
    });
  });

  it("leave adoptId and timeouts out when they were not set (no spurious diff after refresh)", () => {
    const outs = snapshotOutputs({ instanceId: VM }, api);
    expect(outs).not.toHaveProperty("adoptId");
    expect(outs).not.toHaveProperty("timeouts");
  });
});
