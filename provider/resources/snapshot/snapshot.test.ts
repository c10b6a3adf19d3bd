import { checkInputs, UNKNOWN_VALUE } from "../common/check";
import { DEFAULT_SNAPSHOT_DESCRIPTION, inputsSchema } from "./inputs";
import { declarationsKept, diffSnapshot, snapshotUpdateRefusal } from "./diff";
import { IGNORE_CHANGES_KEY, ignoredInputs, withIgnoredKept } from "../common/ignore-changes";
import { declaring, snapshotOutputs, snapshotProgress, type SnapshotProgress } from "./model";
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

  it("an empty name is one failure, not also the character rule (new-user audit)", () => {
    expect(checkInputs(inputsSchema, { instanceId: VM, name: "" }).failures).toEqual([
      { property: "name", reason: 'name must not be empty: give a label such as "before-upgrade"' },
    ]);
  });

  it("lets a name unknown during preview through", () => {
    expect(checkInputs(inputsSchema, { instanceId: UNKNOWN_VALUE, name: "s" }).failures).toBeUndefined();
  });
});

describe("Snapshot diff", () => {
  const olds = {
    instanceId: VM, name: "s", description: "d", status: "Ready", isCurrentState: false, attachedStorage: [],
    currentHourlyPrice: 1, estimatedMonthly: 720, createdAt: "2024-01-01T00:00:00.000Z", declaredName: "s", declaredDescription: "d",
  };
  it.each<[string, Record<string, unknown>, boolean, string[], string[]]>([
    ["nothing changed (computed outputs are not inputs)", { instanceId: VM, name: "s", description: "d" }, false, [], []],
    ["name changed in the program", { instanceId: VM, name: "t", description: "d" }, true, ["name"], ["name"]],
    ["description changed in the program", { instanceId: VM, name: "s", description: "e" }, true, ["description"], ["description"]],
    ["name unknown in preview", { instanceId: VM, name: UNKNOWN_VALUE, description: "d" }, true, ["name"], ["name"]],
    ["instance", { instanceId: SNAP, name: "s", description: "d" }, true, ["instanceId"], ["instanceId"]],
    ["instance unknown in preview", { instanceId: UNKNOWN_VALUE, name: "s", description: "d" }, true, ["instanceId"], ["instanceId"]],
    ["timeouts only: recorded, no replacement", { instanceId: VM, name: "s", description: "d", timeouts: { delete: "5m" } }, true, [], ["timeouts"]],
    ["adoptId only: recorded, no replacement", { instanceId: VM, name: "s", description: "d", adoptId: SNAP }, true, [], ["adoptId"]],
  ])("%s", (_what, news, changes, replaces, changedKeys) => {
    expect(diffSnapshot(olds, news)).toEqual({ changes, replaces, deleteBeforeReplace: false, changedKeys });
  });

  // audit F2: a refresh after a rename in the panel puts the panel's name in `name`; the program did not change
  describe("a name or description changed in the panel never replaces the snapshot", () => {
    const renamed = { ...olds, name: "keep-pre-incident" };
    // never a replace (nor changedKeys, which replaceOnChanges would turn into one): an update, which refuses it. The diff
    // itself must not fail: the engine calls it to show what a refresh found, and the refresh would fail with it.
    const refusal = (o: Record<string, unknown>, n: Record<string, unknown>): string | undefined => {
      expect(diffSnapshot(o, n, SNAP)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false, changedKeys: [] });
      return snapshotUpdateRefusal(SNAP, o, n);
    };
    it("refuses, naming the property, the panel's value, the program's, and the ways out", () => {
      expect(refusal(renamed, { instanceId: VM, name: "s", description: "d" })).toBe(
        `snapshot ${SNAP} of instance ${VM}: its name is "keep-pre-incident" and the program declares "s". It was changed outside Pulumi ` +
          "(in the panel). A snapshot cannot be renamed or edited, so making it as declared would take a new snapshot of the disk as it is " +
          'now and delete this one, a restore point: refused, nothing was changed. To keep it, declare name: "keep-pre-incident" (nothing is ' +
          'sent to the API), or list "name" in the resource option ignoreChanges to accept such changes from the panel. To take a new ' +
          "snapshot deliberately and delete this one, run `pulumi up --replace <urn of this Snapshot>`.",
      );
    });
    it("a description changed in the panel: the same, and --replace keeping the name needs deleteBeforeReplace", () => {
      expect(refusal({ ...olds, description: "keep" }, { instanceId: VM, name: "s", description: "d" })).toMatch(
        /its description is "keep" and the program declares "d"\. .*declare description: "keep" .*\(keeping the name takes the resource option deleteBeforeReplace: true for that run\)\.$/,
      );
    });
    it("also when the program changed it too (both named), or another property would replace it", () => {
      expect(refusal(renamed, { instanceId: VM, name: "t", description: "d" })).toMatch(
        /its name is "keep-pre-incident" and the program now declares "t" \(at its last up: "s"\)\. It was changed outside Pulumi/,
      );
      expect(refusal(renamed, { instanceId: SNAP, name: "s", description: "d" })).toMatch(/refused, nothing was changed/);
    });
    it("a state without the declared values (an earlier version) refuses any difference rather than replace", () => {
      const { declaredName: _n, declaredDescription: _d, ...unrecorded } = olds;
      expect(refusal(unrecorded, { instanceId: VM, name: "t", description: "d" })).toMatch(
        /its name is "s" and the program declares "t"\. The state was written by an earlier version of pulumi-vmhost and does not record/,
      );
      expect(diffSnapshot(unrecorded, { instanceId: VM, name: "s", description: "d" })).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false, changedKeys: [] });
    });
    it("the program declaring the panel's value: an update records it, nothing replaced", () => {
      expect(snapshotUpdateRefusal(SNAP, renamed, { instanceId: VM, name: "keep-pre-incident", description: "d" })).toBeUndefined();
      expect(diffSnapshot(renamed, { instanceId: VM, name: "keep-pre-incident", description: "d" })).toEqual({
        changes: true, replaces: [], deleteBeforeReplace: false, changedKeys: ["name"],
      });
      // recorded: then nothing to do, and a later rename back in the panel is refused too (not taken for a program change)
      const recorded = { ...renamed, declaredName: "keep-pre-incident" };
      expect(diffSnapshot(recorded, { instanceId: VM, name: "keep-pre-incident", description: "d" }).changes).toBe(false);
      expect(refusal({ ...recorded, name: "s" }, { instanceId: VM, name: "keep-pre-incident", description: "d" })).toMatch(/changed outside Pulumi/);
    });
    // ignoreChanges ["name"] puts the panel's name where the program's was: that counted as a declaration to record, so
    // every panel rename was drift (preview --refresh --expect-no-changes failed, also after a refresh) until an up recorded
    // it; and once recorded, removing the option made the program's unchanged name look like a rename in the program
    it("listed in ignoreChanges: no change, nothing recorded, and without the option again the panel's change is refused", () => {
      const news = { instanceId: VM, name: "s", description: "d" };
      const ignoring = (o: Record<string, unknown>, option: string[]) => withIgnoredKept(o, { ...news, [IGNORE_CHANGES_KEY]: option });
      for (const option of [["name"], ["*"]]) {
        const kept = ignoring(renamed, option);
        expect(kept.name).toBe("keep-pre-incident");
        expect(diffSnapshot(renamed, kept, SNAP, ignoredInputs(kept))).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false, changedKeys: [] });
        expect(snapshotUpdateRefusal(SNAP, renamed, kept, ignoredInputs(kept))).toBeUndefined();
        // an update for another reason keeps what the program declared before
        expect(declarationsKept(renamed, ignoredInputs(kept))).toEqual(option[0] === "*" ? { declaredName: "s", declaredDescription: "d" } : { declaredName: "s" });
      }
      expect(declarationsKept(renamed, new Set())).toEqual({});
      const described = { ...olds, description: "keep" };
      const keptDescription = ignoring(described, ["description"]);
      expect(diffSnapshot(described, keptDescription, SNAP, ignoredInputs(keptDescription)).changes).toBe(false);
      // the option removed: as for any panel change, an update that refuses, never a replace
      expect(refusal(renamed, news)).toMatch(/its name is "keep-pre-incident" and the program declares "s"\. It was changed outside Pulumi/);
      // a state without the declared values keeps none
      const { declaredName: _n, ...unrecorded } = renamed;
      expect(diffSnapshot(unrecorded, ignoring(unrecorded, ["name"]), SNAP, new Set(["name"])).changes).toBe(false);
      expect(declarationsKept(unrecorded, new Set(["name"]))).toEqual({ declaredName: undefined });
    });
    it("a snapshot in Error is still replaced (it holds no image), whatever its name", () => {
      expect(snapshotUpdateRefusal(SNAP, { ...renamed, status: "Error" }, { instanceId: VM, name: "s", description: "d" })).toBeUndefined();
      expect(diffSnapshot({ ...renamed, status: "Error" }, { instanceId: VM, name: "s", description: "d" }).replaces).toEqual(["name", "status"]);
    });
  });
});

describe("Snapshot status", () => {
  // A host that answers "active" for a finished snapshot must end the create, not run it into its deadline;
  // one answering "Failed" must fail it at once.
  it.each<[string, SnapshotProgress]>([
    ["Ready", "ready"], [" ready ", "ready"], ["ACTIVE", "ready"], ["available", "ready"], ["Success", "ready"],
    ["Error", "failed"], ["failed", "failed"], [" FAILED", "failed"],
    ["creating", "pending"], ["Processing", "pending"], ["", "pending"], ["In Progress", "pending"], ["queued", "pending"],
    ["Completed", "ready"], ["done", "ready"], ["Tersedia", "ready"], ["Selesai", "ready"],
    ["errored", "failed"], ["create_failed", "failed"], ["Gagal", "failed"],
    // a word not known: waited on, never taken as finished (a restore point that may not exist)
    ["created", "pending"], ["Sedang diproses", "pending"], ["Membuat", "pending"], ["Zzz", "pending"],
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
    const outs = snapshotOutputs({ instanceId: VM, adoptId: SNAP, timeouts: { delete: "5m" }, declaredName: "n", declaredDescription: "e" }, api);
    expect(outs).toEqual({
      instanceId: VM, name: "s", description: "d", adoptId: SNAP, timeouts: { delete: "5m" }, declaredName: "n", declaredDescription: "e",
      status: "Ready", isCurrentState: true,
      attachedStorage: [{ id: "7", name: "data", size: 50 }], currentHourlyPrice: 0.5, estimatedMonthly: 360, createdAt: "2024-01-01T00:00:00.000Z",
    });
  });

  it("leave adoptId and timeouts out when they were not set (no spurious diff after refresh)", () => {
    const outs = snapshotOutputs({ instanceId: VM }, api);
    expect(outs).not.toHaveProperty("adoptId");
    expect(outs).not.toHaveProperty("timeouts");
    expect(outs).not.toHaveProperty("declaredName"); // a state without it (an earlier version) gets none made up
  });

  it("create and update record the program's name and description as declared", () => {
    expect(snapshotOutputs(declaring({ instanceId: VM, name: "n", description: "e" }), api)).toEqual(
      expect.objectContaining({ name: "s", description: "d", declaredName: "n", declaredDescription: "e" }),
    );
  });
});
