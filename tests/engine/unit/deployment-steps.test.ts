/**
 * The engine's step decisions (tools/local-engine/deployment.ts), in process: a fake provider and a fake program
 * (tests/engine/unit/fake-provider.ts) instead of the provider host and the language runtime, so each rule is
 * checked in milliseconds. Each rule is the real engine's (pulumi/pulumi pkg/resource/deploy, file named per test).
 */
import { defaultParallel, isDynamicType } from "../../../tools/local-engine/deployment";
import { InitFailedError } from "../../../tools/local-engine/providerTypes";
import { StateFile } from "../../../tools/local-engine/state";
import { PropertyMap, PropertyValue, SECRET_SIG, SPECIAL_SIG_KEY, UNKNOWN_VALUE } from "../../../tools/local-engine/values";
import { FakeProvider, Run, STACK_URN, TYPE, emptyState, gate, request, resource, up, urnOf } from "./fake-provider";

const secret = (value: PropertyValue): PropertyMap => ({ [SPECIAL_SIG_KEY]: SECRET_SIG, value });

/** A stack holding a (zone z1, size 1) and b (depends on a), created by an up. */
async function twoResources(p = new FakeProvider(), bOpts: Parameters<Run["register"]>[2] = {}): Promise<StateFile> {
  const run = await up(p, emptyState(), async (r) => {
    await r.register("a", { size: 1, zone: "z1" });
    await r.register("b", { size: 1, zone: "z1" }, { dependencies: [urnOf("a")], ...bOpts });
  });
  expect(run.deployment.errors).toEqual([]);
  return run.state();
}

describe("create, same, update (step_generator.go GenerateSteps / continueStepsFromDiff)", () => {
  test("a new resource is checked without olds and created; the program gets its id and outputs", async () => {
    const p = new FakeProvider();
    let result;
    const run = await up(p, emptyState(), async (r) => {
      result = await r.register("a", { size: 1, pw: secret("s3") }, { additionalSecretOutputs: ["status"] });
    });
    expect(p.args.find((a) => a.call === "check a")?.args[0]).toEqual({});
    expect(p.args.find((a) => a.call === "create a")?.args[0]).toEqual({ __provider: "serialized", size: 1, pw: "s3", checked: true });
    expect(result).toEqual({
      urn: urnOf("a"),
      id: "id-1",
      object: { __provider: "serialized", size: 1, pw: secret("s3"), checked: true, status: secret("running") },
      failed: false,
    });
    const a = resource(run.state(), "a");
    expect(a).toMatchObject({ id: "id-1", custom: true, parent: STACK_URN, inputs: { pw: secret("s3"), size: 1 } });
    expect(run.deployment.summary).toEqual({ create: 2, update: 0, replace: 0, delete: 0, same: 0 });
    expect(run.deployment.steps.map((s) => [s.op, s.name])).toEqual([
      ["create", "proj-dev"],
      ["create", "a"],
    ]);
    expect(run.text()).toContain(" +   pulumi-nodejs:dynamic:Resource  a  creating...");
    expect(run.text()).toMatch(/ \+ {3}pulumi-nodejs:dynamic:Resource {2}a {2}created \(\d+s\)/);
  });

  test("unchanged inputs: no provider change, the old id and outputs are kept", async () => {
    const p = new FakeProvider();
    const s1 = await twoResources(p);
    const p2 = new FakeProvider();
    let result;
    const run = await up(p2, s1, async (r) => {
      result = await r.register("a", { size: 1, zone: "z1" });
      await r.register("b", { size: 1, zone: "z1" }, { dependencies: [urnOf("a")] });
    });
    expect(p2.changes()).toEqual([]);
    expect(p2.args.find((a) => a.call === "check a")?.args[0]).toMatchObject({ size: 1, zone: "z1" }); // olds given
    expect(result).toMatchObject({ id: "id-1", object: { status: "running" } });
    expect(run.deployment.summary).toMatchObject({ same: 3, create: 0, update: 0 });
    expect(run.state().resources.map((r) => r.name)).toEqual(["proj-dev", "a", "b"]);
    expect(run.text()).not.toMatch(/unchanged|created/);
  });

  test("changed inputs without replace keys: update in place with the old id, old outputs and old inputs", async () => {
    const s1 = await twoResources();
    const p = new FakeProvider();
    const run = await up(p, s1, async (r) => {
      await r.register("a", { size: 2, zone: "z1" });
      await r.register("b", { size: 1, zone: "z1" }, { dependencies: [urnOf("a")] });
    });
    expect(p.changes()).toEqual(["update a id-1"]);
    const args = p.args.find((a) => a.call === "update a id-1")?.args;
    expect(args?.[0]).toMatchObject({ size: 1, status: "running" });
    expect(args?.[1]).toMatchObject({ size: 2 });
    expect(args?.[2]).toMatchObject({ size: 1 });
    expect(resource(run.state(), "a")).toMatchObject({ id: "id-1", inputs: { size: 2 }, outputs: { size: 2, status: "running" } });
    expect(run.deployment.steps.find((s) => s.name === "a")).toEqual({ op: "update", urn: urnOf("a"), type: TYPE, name: "a", diffs: ["size"] });
    expect(run.text()).toMatch(/ ~ {3}pulumi-nodejs:dynamic:Resource {2}a {2}updated \[diff: ~size\] \(\d+s\)/);
  });

  test("the diff label lists the inputs that changed, as the real engine does, not an output drift the update reverts", async () => {
    // pkg/backend/display/rows.go getDiffInfo: with no detailed diff (the Node dynamic-provider host sends none)
    // the label is the old inputs against the new ones, internal __ keys skipped.
    const s1 = await twoResources();
    (resource(s1, "a")?.outputs ?? {}).size = 9; // as a refresh would have left it
    const p = new FakeProvider();
    const run = await up(p, s1, async (r) => {
      await r.register("a", { size: 1, zone: "z2x" }, { replaceOnChanges: [] });
    });
    expect(run.deployment.steps.find((s) => s.name === "a")?.diffs).toEqual(["zone"]);
    expect(run.text()).toMatch(/ a {2}replaced \[diff: ~zone\]/);
  });

  test("ignoreChanges properties the update does not change and a drift to an absent value are not listed", async () => {
    const s1 = await twoResources();
    const outputs = resource(s1, "a")?.outputs ?? {};
    outputs.size = 9; // changed in the panel, ignored by the program
    delete outputs.zone; // cleared in the panel: the refreshed outputs lack it
    const p = new FakeProvider();
    p.diff = async () => ({ changes: true, replaces: [], deleteBeforeReplace: false }); // the provider reverts the drift
    const run = await up(p, s1, async (r) => {
      await r.register("a", { size: 4, zone: "z1" }, { ignoreChanges: ["size"] });
      await r.register("b", { zone: "z1", extra: "x" }, { dependencies: [urnOf("a")] });
    });
    expect(p.changes()).toEqual(["update a id-1", "update b id-2"]);
    expect(run.deployment.steps.find((s) => s.name === "a")?.diffs).toEqual([]);
    expect(run.text()).toMatch(/ ~ {3}pulumi-nodejs:dynamic:Resource {2}a {2}updated \(\d+s\)/); // no [diff: ~size] nor ~__provider
    // an input added and one removed: the real engine's signs, each group once
    expect(run.text()).toMatch(/ b {2}updated \[diff: \+extra-size\] \(\d+s\)/);
  });

  test("the provider's diff decides: a change it reports with no visible input change is an update with no diff label", async () => {
    const s1 = await twoResources();
    const p = new FakeProvider();
    p.diff = async () => ({ changes: true, replaces: [], deleteBeforeReplace: false });
    const run = await up(p, s1, async (r) => {
      await r.register("a", { size: 1, zone: "z1" });
      await r.register("b", { size: 1, zone: "z1" }, { dependencies: [urnOf("a")] });
    });
    expect(p.changes()).toEqual(["update a id-1", "update b id-2"]);
    expect(run.deployment.steps.find((s) => s.name === "a")?.diffs).toEqual([]);
    expect(run.text()).not.toContain("__provider");
  });

  test("Check failures stop the resource with every failure named", async () => {
    const p = new FakeProvider();
    p.faults.failCheck.add("a");
    let result;
    const run = await up(p, emptyState(), async (r) => {
      result = await r.register("a", { size: 1 });
    });
    expect(result).toEqual({ urn: urnOf("a"), id: "", object: {}, failed: true });
    expect(run.deployment.errors).toEqual([`${TYPE} "a": invalid inputs: size: too big; zone: unknown`]);
    expect(p.changes()).toEqual([]);
  });
});

describe("replacement (step_generator.go continueStepsFromDiff, step.go CreateStep/DeleteStep)", () => {
  test("create-before-delete: the replacement is created, checked without olds, and the old one deleted at the end", async () => {
    const s1 = await twoResources();
    const p = new FakeProvider();
    const run = await up(p, s1, async (r) => {
      await r.register("a", { size: 1, zone: "z2" });
      await r.register("b", { size: 1, zone: "z1" }, { dependencies: [urnOf("a")] });
    });
    expect(p.changes()).toEqual(["create a", "delete a id-1"]);
    const checks = p.args.filter((a) => a.call === "check a").map((a) => a.args[0]);
    expect(checks).toEqual([expect.objectContaining({ zone: "z1" }), {}]);
    expect(resource(run.state(), "a")).toMatchObject({ id: "id-1", inputs: { zone: "z2" } });
    expect(run.state().resources.filter((x) => x.name === "a")).toHaveLength(1);
    const step = run.deployment.steps.find((s) => s.name === "a");
    expect(step).toEqual({ op: "replace", urn: urnOf("a"), type: TYPE, name: "a", diffs: ["zone"], replaces: ["zone"] });
    expect(run.deployment.summary).toMatchObject({ replace: 1, delete: 0, same: 2 });
    expect(run.text()).toMatch(/\+- {2}pulumi-nodejs:dynamic:Resource {2}a {2}replaced \[diff: ~zone\] \(replace forced by zone\) \(\d+s\)/);
    expect(run.text()).toContain(" -   pulumi-nodejs:dynamic:Resource  a  deleting the replaced resource (id id-1)...");
    expect(run.text()).toMatch(/deleted the replaced resource \(id id-1\) \(\d+s\)/);
  });

  test("the old resource is pending-delete in the state once its replacement exists, not before", async () => {
    const s1 = await twoResources();
    const p = new FakeProvider(3);
    const run = await up(p, s1, async (r) => {
      await r.register("a", { size: 1, zone: "z2" });
    });
    const marks = run.checkpoints.map((c) => c.resources.filter((x) => x.name === "a").map((x) => `${x.id}${x.pendingDelete ? "!" : ""}`).join(","));
    const created = marks.indexOf("id-3,id-1!");
    expect(created).toBeGreaterThan(0);
    expect(marks.slice(0, created).every((m) => m === "id-1")).toBe(true);
    expect(marks[marks.length - 1]).toBe("id-3");
  });

  test("a replacement whose create fails keeps the old resource live and deletes nothing", async () => {
    const s1 = await twoResources();
    const p = new FakeProvider();
    p.faults.failCreate.add("a");
    const run = await up(p, s1, async (r) => {
      await r.register("a", { size: 1, zone: "z2" });
    });
    expect(p.changes()).toEqual(["create a"]);
    expect(run.deployment.errors).toEqual([`${TYPE} "a": create of a refused`]);
    const as = run.state().resources.filter((x) => x.name === "a");
    expect(as).toEqual([expect.objectContaining({ id: "id-1", inputs: expect.objectContaining({ zone: "z1" }) })]);
    expect(as[0].pendingDelete).toBeUndefined();
  });

  test("a replacement that fails to initialize still replaces: the old one is deleted by the next up", async () => {
    const s1 = await twoResources();
    const p = new FakeProvider(3);
    p.faults.initFailCreate.add("a");
    const run = await up(p, s1, async (r) => {
      await r.register("a", { size: 1, zone: "z2" });
    });
    const as = run.state().resources.filter((x) => x.name === "a");
    expect(as.map((x) => [x.id, x.pendingDelete ?? false, x.initErrors])).toEqual([
      ["id-3", false, ["did not boot"]],
      ["id-1", true, undefined],
    ]);
    const p2 = new FakeProvider(4);
    const next = await up(p2, run.state(), async (r) => {
      await r.register("a", { size: 1, zone: "z2" });
      await r.register("b", { size: 1, zone: "z1" }, { dependencies: [urnOf("a")] });
    });
    expect(p2.changes()).toEqual(["update a id-3", "delete a id-1"]);
    expect(resource(next.state(), "a")?.initErrors).toBeUndefined();
    expect(next.state().resources.filter((x) => x.name === "a")).toHaveLength(1);
  });

  test("delete-before-replace asked by the provider: delete first, then create", async () => {
    const s1 = await twoResources();
    const p = new FakeProvider(3);
    p.faults.dbr.add("b");
    const run = await up(p, s1, async (r) => {
      await r.register("a", { size: 1, zone: "z1" });
      await r.register("b", { size: 1, zone: "z2" }, { dependencies: [urnOf("a")] });
    });
    expect(p.changes()).toEqual(["delete b id-2", "create b"]);
    expect(run.state().resources.filter((x) => x.name === "b")).toEqual([expect.objectContaining({ id: "id-3" })]);
    expect(run.deployment.summary).toMatchObject({ replace: 1, delete: 0 });
  });

  test("the program's deleteBeforeReplace overrides the provider's, both ways", async () => {
    const s1 = await twoResources();
    const p = new FakeProvider();
    p.faults.dbr.add("b");
    await up(p, s1, async (r) => {
      await r.register("a", { size: 1, zone: "z1" });
      await r.register("b", { size: 1, zone: "z2" }, { dependencies: [urnOf("a")], deleteBeforeReplace: false });
    });
    expect(p.changes()).toEqual(["create b", "delete b id-2"]);
    const p2 = new FakeProvider();
    const run = await up(p2, s1, async (r) => {
      await r.register("a", { size: 1, zone: "z1" });
      await r.register("b", { size: 1, zone: "z2" }, { dependencies: [urnOf("a")], deleteBeforeReplace: true });
    });
    expect(p2.changes()).toEqual(["delete b id-2", "create b"]);
    expect(resource(run.state(), "b")?.deleteBeforeReplace).toBe(true);
  });

  test("delete-before-replace deletes the dependents that must be replaced first and re-creates them (calculateDependentReplacements)", async () => {
    const p0 = new FakeProvider();
    const s1 = (
      await up(p0, emptyState(), async (r) => {
        await r.register("a", { size: 1, zone: "z1" });
        // b's zone comes from a: replacing a makes it unknown, and a zone change replaces b.
        await r.register("b", { size: 1, zone: "z1" }, { dependencies: [urnOf("a")], propertyDependencies: { zone: [urnOf("a")] } });
        // c only depends on a through its size: an unknown size is an update, c is not replaced.
        await r.register("c", { size: 1, zone: "z1" }, { dependencies: [urnOf("a")], propertyDependencies: { size: [urnOf("a")] } });
        // d is deleted with b: replaced with it.
        await r.register("d", { size: 1, zone: "z1" }, { deletedWith: urnOf("b") });
        // e does not depend on a at all.
        await r.register("e", { size: 1, zone: "z1" });
      })
    ).state();
    const p = new FakeProvider();
    const run = await up(p, s1, async (r) => {
      await r.register("a", { size: 1, zone: "z2" }, { deleteBeforeReplace: true });
      await r.register("b", { size: 1, zone: "z2" }, { dependencies: [urnOf("a")], propertyDependencies: { zone: [urnOf("a")] } });
      await r.register("c", { size: 1, zone: "z1" }, { dependencies: [urnOf("a")], propertyDependencies: { size: [urnOf("a")] } });
      await r.register("d", { size: 1, zone: "z1" }, { deletedWith: urnOf("b") });
      await r.register("e", { size: 1, zone: "z1" });
    });
    expect(run.deployment.errors).toEqual([]);
    // d goes with b (no Delete call of its own), then b, then a; then each is created when it registers.
    expect(p.changes()).toEqual(["delete b id-2", "delete a id-1", "create a", "create b", "create d"]);
    const cDiff = p.args.find((x) => x.call === "diff c");
    expect((cDiff?.args[2] as Record<string, unknown>).size).toBe(UNKNOWN_VALUE);
    expect(run.deployment.steps.filter((s) => s.op === "replace").map((s) => s.name)).toEqual(["a", "b", "d"]);
    expect(run.deployment.steps.find((s) => s.name === "b")?.replaces).toEqual([]);
    expect(run.state().resources.map((x) => x.name).sort()).toEqual(["a", "b", "c", "d", "e", "proj-dev"]);
    expect(run.state().resources.some((x) => x.pendingDelete)).toBe(false);
    expect(resource(run.state(), "c")?.id).toBe("id-3");
  });

  test("a protected dependent refuses the delete-before-replace cascade before anything is deleted", async () => {
    const s1 = await twoResources(new FakeProvider(), { protect: true, deletedWith: urnOf("a") });
    const p = new FakeProvider();
    const run = await up(p, s1, async (r) => {
      await r.register("a", { size: 1, zone: "z2" }, { deleteBeforeReplace: true });
    });
    expect(p.changes()).toEqual([]);
    expect(run.deployment.errors[0]).toBe(
      `${TYPE} "a": unable to replace resource ${urnOf("b")} as part of replacing ${urnOf("a")} as it is currently marked for protection. ` +
        "To unprotect the resource, remove the `protect` flag from the resource in your Pulumi program and run `up`",
    );
  });

  test("retainOnDelete: removed, replaced or destroyed, the resource gets no Delete call and leaves the state (step.go DeleteStep.Apply)", async () => {
    const s1 = await twoResources(new FakeProvider(), { retainOnDelete: true });
    expect(resource(s1, "b")?.retainOnDelete).toBe(true);
    // replaced (create-before-delete): the new one is made, the old one is only dropped
    const p = new FakeProvider();
    const replaced = await up(p, s1, async (r) => {
      await r.register("a", { size: 1, zone: "z1" });
      await r.register("b", { size: 1, zone: "z2" }, { dependencies: [urnOf("a")], retainOnDelete: true });
    });
    expect(replaced.deployment.errors).toEqual([]);
    expect(p.changes()).toEqual(["create b"]);
    expect(replaced.text()).toContain("(retainOnDelete: left as it is, dropped from the state)");
    expect(replaced.state().resources.filter((x) => x.name === "b").map((x) => x.id)).toEqual(["id-1"]); // the new one (this run's provider counts from 1); the old was id-2
    // no longer declared: dropped without a call, what it depends on is deleted as usual
    const p2 = new FakeProvider();
    const removed = await up(p2, s1, async (r) => {
      await r.register("other", { size: 1, zone: "z1" });
    });
    expect(p2.changes()).toEqual(["create other", "delete a id-1"]);
    expect(removed.state().resources.map((x) => x.name)).toEqual(["proj-dev", "other"]);
    // destroy
    const p3 = new FakeProvider();
    const destroyed = new Run(p3, s1);
    await destroyed.deployment.destroy();
    expect(p3.changes()).toEqual(["delete a id-1"]);
    expect(destroyed.state().resources).toEqual([]);
  });

  test("a resource deleted with one being replaced is replaced too (step_generator.go: deletedWith replaces)", async () => {
    const s1 = await twoResources(new FakeProvider(), { deletedWith: urnOf("a") });
    const p = new FakeProvider();
    const run = await up(p, s1, async (r) => {
      await r.register("a", { size: 1, zone: "z2" });
      await r.register("b", { size: 1, zone: "z1" }, { dependencies: [urnOf("a")], deletedWith: urnOf("a") });
    });
    expect(run.deployment.steps.find((s) => s.name === "b")).toMatchObject({ op: "replace", replaces: ["deletedWith"] });
    // Both old ones go at the end; b's delete is skipped as a goes in the same run.
    expect(p.changes()).toEqual(["create a", "create b", "delete a id-1"]);
  });

  test("--replace replaces whatever the diff, blaming id, checked from the program's inputs", async () => {
    const s1 = await twoResources();
    const p = new FakeProvider();
    const run = await up(
      p,
      s1,
      async (r) => {
        await r.register("a", { size: 1, zone: "z1" }, { ignoreChanges: ["size"] });
      },
      { replaceTargets: [urnOf("a")] },
    );
    expect(p.calls.filter((c) => c.startsWith("diff"))).toEqual([]);
    expect(p.args.filter((a) => a.call === "check a").map((a) => a.args[0])).toEqual([{}]);
    expect(run.deployment.steps.find((s) => s.name === "a")).toMatchObject({ op: "replace", replaces: ["id"] });
    // b, no longer in the program, depends on the old a: it goes first (dependents first).
    expect(p.changes()).toEqual(["create a", "delete b id-2", "delete a id-1"]);
  });

  test("a --replace URN not in the stack stops the run before anything (deployment_executor.go checkTargets)", async () => {
    const p = new FakeProvider();
    const run = await up(p, emptyState(), async () => undefined, { replaceTargets: [urnOf("zz")] });
    expect(run.deployment.errors).toEqual([`${urnOf("zz")}: a --replace target could not be found in the stack`]);
    expect(run.deployment.steps).toEqual([]);
  });
});

describe("failures (step_executor.go: after the first failed step no further changes)", () => {
  test("after a failed create later registrations fail at once and nothing is deleted", async () => {
    const s1 = await twoResources();
    const p = new FakeProvider();
    p.faults.failCreate.add("n");
    let later;
    const run = await up(p, s1, async (r) => {
      await r.register("n", { size: 1 });
      later = await r.register("m", { size: 1 });
    });
    expect(later).toEqual({ urn: urnOf("m"), id: "", object: {}, failed: true });
    expect(p.changes()).toEqual(["create n"]); // a and b (no longer in the program) are not deleted
    expect(run.state().resources.map((x) => x.name)).toEqual(["proj-dev", "a", "b"]);
    expect(run.text()).toContain(`error: ${TYPE} "n": create of n refused`);
  });

  test("a failed plan stops the plans queued behind it, even when registered concurrently", async () => {
    const p = new FakeProvider();
    p.faults.failCheck.add("a");
    const run = await up(p, emptyState(), async (r) => {
      const results = await Promise.all([r.register("a", { size: 1 }), r.register("b", { size: 1 })]);
      expect(results.map((x) => x.failed)).toEqual([true, true]);
    });
    expect(p.calls.filter((c) => c.startsWith("check"))).toEqual(["check a"]);
    expect(run.deployment.errors).toHaveLength(1);
  });

  test("a create that fails to initialize is recorded with exactly the error's properties; the next up updates it", async () => {
    const p = new FakeProvider();
    p.faults.initFailCreate.add("a");
    const run = await up(p, emptyState(), async (r) => {
      await r.register("a", { size: 1 }, { additionalSecretOutputs: ["status"] });
    });
    expect(resource(run.state(), "a")).toMatchObject({ id: "id-1", outputs: { status: secret("broken"), size: 1 }, initErrors: ["did not boot"] });
    expect(Object.keys(resource(run.state(), "a")?.outputs ?? {}).sort()).toEqual(["size", "status"]);
    expect(run.text()).toContain("    a: created but failed to initialize (recorded in the state with id id-1): did not boot");
    expect(run.deployment.errors).toEqual([`${TYPE} "a": a did not boot`]);
    const p2 = new FakeProvider();
    const next = await up(p2, run.state(), async (r) => {
      await r.register("a", { size: 1 });
    });
    expect(p2.changes()).toEqual(["update a id-1"]);
    expect(next.deployment.steps.find((s) => s.name === "a")?.diffs).toEqual([]);
    expect(resource(next.state(), "a")?.initErrors).toBeUndefined();
  });

  test("an update that fails to initialize keeps the old inputs and the error's outputs; its message when no reasons", async () => {
    const s1 = await twoResources();
    const p = new FakeProvider();
    p.faults.initFailUpdate.add("a");
    const run = await up(p, s1, async (r) => {
      await r.register("a", { size: 5, zone: "z1" });
    });
    expect(resource(run.state(), "a")).toMatchObject({ id: "id-1", inputs: { size: 1 }, outputs: { status: "broken" }, initErrors: ["a broke"] });
  });

  test("an update that fails outright leaves the old state of the resource", async () => {
    const s1 = await twoResources();
    const p = new FakeProvider();
    p.faults.failUpdate.add("a");
    const run = await up(p, s1, async (r) => {
      await r.register("a", { size: 5, zone: "z1" });
    });
    expect(resource(run.state(), "a")).toMatchObject({ id: "id-1", inputs: { size: 1 }, outputs: { size: 1 } });
    expect(run.deployment.errors).toEqual([`${TYPE} "a": update of a refused`]);
  });

  test("a failed program deletes nothing (finishUp with programOk false)", async () => {
    const s1 = await twoResources();
    const p = new FakeProvider();
    const run = new Run(p, s1);
    await run.stack();
    await run.deployment.finishUp(false);
    expect(p.changes()).toEqual([]);
    expect(run.state().resources.map((x) => x.name)).toEqual(["proj-dev", "a", "b"]);
  });

  test("a duplicate URN and unsupported options are refused per resource", async () => {
    const p = new FakeProvider();
    const run = new Run(p, emptyState());
    await run.stack();
    const refuse = async (name: string, o: Parameters<Run["register"]>[2], message: string): Promise<void> => {
      const fresh = new Run(p, emptyState());
      const res = await fresh.register(name, {}, o);
      expect(res).toEqual({ urn: expect.any(String), id: "", object: {}, failed: true });
      expect(fresh.deployment.errors).toEqual([message]);
    };
    await refuse("x", { type: "aws:s3:Bucket" }, `aws:s3:Bucket "x": aws:s3:Bucket "x": only dynamic provider resources (pulumi.dynamic.Resource) are supported by the local engine`);
    await refuse("x", { provider: "urn:p::id" }, `${TYPE} "x": x: explicit providers are not supported by the local engine`);
    await refuse("x", { importId: "i-1" }, `${TYPE} "x": x: the import option is not supported by the local engine`);
    await refuse("x", { replacementTrigger: true }, `${TYPE} "x": x: replacementTrigger is not supported by the local engine`);
    await run.register("a", {});
    const dup = await run.register("a", {});
    expect(dup.failed).toBe(true);
    expect(run.deployment.errors).toEqual([`duplicate resource URN ${urnOf("a")}: two resources of type ${TYPE} are named "a"`]);
    expect(p.calls).toEqual(["check a", "create a"]);
  });

  test("cancel: steps under way finish, nothing new starts, nothing is deleted, the run fails", async () => {
    const s1 = await twoResources();
    const p = new FakeProvider();
    const run = new Run(p, s1);
    await run.stack();
    const g = gate();
    p.faults.hold.set("create n", g.promise);
    const n = run.register("n", { size: 1 });
    while (p.running === 0) await new Promise((r) => setImmediate(r));
    run.deployment.cancel();
    run.deployment.cancel(); // once
    g.open();
    expect((await n).failed).toBe(false);
    expect((await run.register("m", { size: 1 })).failed).toBe(true);
    await run.deployment.finishUp(true);
    expect(p.changes()).toEqual(["create n"]);
    expect(run.deployment.errors).toEqual(["update canceled"]);
    expect(resource(run.state(), "n")?.id).toBe("id-1");
  });

  test("cancel in preview says preview canceled", () => {
    const run = new Run(new FakeProvider(), emptyState(), { dryRun: true });
    run.deployment.cancel();
    expect(run.deployment.errors).toEqual(["preview canceled"]);
  });
});

describe("pending operations (backend/snapshot.go, deployment_executor.go printPendingOperationsWarning)", () => {
  test("a step's operation is in the state while the provider works, and gone after", async () => {
    const s1 = await twoResources();
    const p = new FakeProvider();
    const run = await up(p, s1, async (r) => {
      await r.register("a", { size: 2, zone: "z1" });
      await r.register("n", { size: 1 });
    });
    const ops = run.checkpoints.map((c) => (c.pending_operations ?? []).map((o) => `${o.type} ${o.resource.urn.split("::").pop()} ${o.resource.id ?? ""}`.trim()));
    expect(ops.flat()).toEqual(["updating a id-1", "creating n", "deleting b id-2"]);
    expect(run.state().pending_operations).toBeUndefined();
    expect(run.checkpoints.find((c) => c.pending_operations?.[0]?.type === "updating")?.pending_operations?.[0].resource.inputs).toMatchObject({ size: 2 });
  });

  test("the next up warns about them, keeps pending creates and drops the others; refresh --clear-pending-creates clears them", async () => {
    const s1 = await twoResources();
    const old: StateFile = {
      ...s1,
      pending_operations: [
        { type: "creating", resource: { urn: urnOf("lost"), type: TYPE, inputs: {} } },
        { type: "updating", resource: { urn: urnOf("a"), type: TYPE, id: "id-1", inputs: {} } },
      ],
    };
    const run = new Run(new FakeProvider(), old);
    expect(run.deployment.preflight(false)).toBe(true);
    expect(run.text()).toContain("warning: Attempting to deploy or update resources with 2 pending operations from previous deployment.");
    expect(run.text()).toContain(`  * ${urnOf("lost")}, interrupted while creating\n  * ${urnOf("a")}, interrupted while updating\n`);
    expect(run.text()).toContain("`refresh --clear-pending-creates`");
    // the CLI's text (deployment_executor.go printPendingOperationsWarning), whole
    expect(run.text()).toContain(
      [
        "warning: Attempting to deploy or update resources with 2 pending operations from previous deployment.",
        `  * ${urnOf("lost")}, interrupted while creating`,
        `  * ${urnOf("a")}, interrupted while updating`,
        "These resources are in an unknown state because the engine was interrupted while waiting for changes to these resources to " +
          "complete. You should confirm whether or not the operations listed completed successfully by checking the state of the " +
          "resources in the cloud.",
        "",
        "Once you have confirmed the status of the interrupted operations, you can repair your stack using `refresh`, which will " +
          "refresh the state from the provider and clear the pending operations if there are any (pending CREATE operations are " +
          "cleared only with `refresh --clear-pending-creates`).",
      ].join("\n"),
    );
    expect(run.state().pending_operations).toEqual([old.pending_operations?.[0]]);

    const quiet = [new Run(new FakeProvider(), old, { dryRun: true }), new Run(new FakeProvider(), old)];
    quiet[0].deployment.preflight(false);
    quiet[1].deployment.preflight(true);
    expect(quiet.map((q) => q.text())).toEqual(["", ""]);

    const refresh = new Run(new FakeProvider(), old);
    await refresh.deployment.refresh(false);
    expect(refresh.state().pending_operations).toHaveLength(1);
    const clear = new Run(new FakeProvider(), old);
    await clear.deployment.refresh(true);
    expect(clear.state().pending_operations).toBeUndefined();
  });

  test("preview writes no checkpoint", async () => {
    const run = await up(new FakeProvider(), emptyState(), async (r) => r.register("a", { size: 1 }), { dryRun: true });
    expect(run.checkpoints).toEqual([]);
  });
});

describe("preview", () => {
  test("checks and diffs only; outputs are the inputs; an update keeps its id, a create or replace has none", async () => {
    const s1 = await twoResources();
    const p = new FakeProvider();
    const results: Record<string, unknown> = {};
    const run = await up(
      p,
      s1,
      async (r) => {
        results.a = await r.register("a", { size: 2, zone: "z1" });
        results.b = await r.register("b", { size: 1, zone: "z2" }, { dependencies: [urnOf("a")] });
        results.n = await r.register("n", { size: 1 });
      },
      { dryRun: true },
    );
    expect(p.changes()).toEqual([]);
    expect(results.a).toMatchObject({ id: "id-1", object: { size: 2, checked: true } });
    expect(results.b).toMatchObject({ id: "" });
    expect(results.n).toMatchObject({ id: "", object: { size: 1 } });
    expect(run.deployment.summary).toEqual({ create: 1, update: 1, replace: 1, delete: 0, same: 1 });
    expect(run.text()).toContain(" ~   pulumi-nodejs:dynamic:Resource  a  update [diff: ~size]\n");
    expect(run.text()).toContain(" +-  pulumi-nodejs:dynamic:Resource  b  replace [diff: ~zone] (replace forced by zone)\n");
  });

  test("preview of removed resources lists their deletes without calling the provider", async () => {
    const s1 = await twoResources();
    const p = new FakeProvider();
    const run = await up(p, s1, async () => undefined, { dryRun: true });
    expect(p.calls).toEqual([]);
    expect(run.deployment.steps.map((s) => [s.op, s.name])).toEqual([
      ["same", "proj-dev"],
      ["delete", "b"],
      ["delete", "a"],
    ]);
    expect(run.text()).toContain(" -   pulumi-nodejs:dynamic:Resource  b  delete\n");
  });
});

describe("helpers", () => {
  test("defaultParallel: PULUMI_PARALLEL when a positive integer, else 4 per CPU (up.go defaultParallel)", () => {
    const cpus = require("node:os").availableParallelism() as number;
    expect(defaultParallel({ PULUMI_PARALLEL: "3" })).toBe(3);
    expect(defaultParallel({ PULUMI_PARALLEL: "0" })).toBe(cpus * 4);
    expect(defaultParallel({ PULUMI_PARALLEL: "1.5" })).toBe(cpus * 4);
    expect(defaultParallel({})).toBe(cpus * 4);
  });

  test("isDynamicType: the dynamic provider's types only", () => {
    expect(isDynamicType("pulumi-nodejs:dynamic:Resource")).toBe(true);
    expect(isDynamicType("pulumi-nodejs:dynamic/vmhost:Instance")).toBe(true);
    expect(isDynamicType("xpulumi-nodejs:dynamic:Resource")).toBe(false);
    expect(isDynamicType("pulumi-nodejs:dynamic:Resource:x")).toBe(false);
    expect(isDynamicType("pulumi-nodejs:dynamic/a:b:Resource")).toBe(false);
    expect(isDynamicType("pulumi-nodejs:dynamic/:Resource")).toBe(false);
    expect(isDynamicType("pulumi-nodejs:dynamic:")).toBe(false);
  });

  test("InitFailedError carries the id, properties and reasons", () => {
    const e = new InitFailedError("m", "i", { a: 1 }, ["r"]);
    expect([e.name, e.message, e.id, e.properties, e.reasons]).toEqual(["InitFailedError", "m", "i", { a: 1 }, ["r"]]);
  });

  test("request defaults are what a plain registration sends", () => {
    expect(request("x", {}).deleteBeforeReplace).toBeUndefined();
  });
});

describe("plan details (step_generator.go)", () => {
  test("a serialized provider that changed is not shown as a changed input", async () => {
    const s1 = await twoResources();
    const p = new FakeProvider(3);
    const run = await up(p, s1, async (r) => {
      await r.register("a", { size: 2, zone: "z1", __provider: "serialized-v2" });
    });
    expect(run.deployment.steps.find((s) => s.name === "a")?.diffs).toEqual(["size"]);
  });

  test("an unchanged resource with secret inputs gives the program its old outputs with those secret", async () => {
    const p0 = new FakeProvider();
    const s1 = (await up(p0, emptyState(), async (r) => r.register("a", { pw: secret("x") }))).state();
    const p = new FakeProvider(2);
    let result;
    await up(p, s1, async (r) => {
      result = await r.register("a", { pw: secret("x") }, { additionalSecretOutputs: ["status"] });
    });
    expect(p.changes()).toEqual([]);
    expect(result).toMatchObject({ id: "id-1", object: { pw: secret("x"), status: secret("running") } });
  });

  test("delete-before-replace cascade: a dependent registered earlier in the run, or depending only through dependsOn, is not replaced", async () => {
    const p0 = new FakeProvider();
    const s1 = (
      await up(p0, emptyState(), async (r) => {
        await r.register("a", { size: 1, zone: "z1" });
        await r.register("b", { size: 1, zone: "z1" }, { dependencies: [urnOf("a")], propertyDependencies: { zone: [urnOf("a")] } });
        await r.register("c", { size: 1, zone: "z1" }, { dependencies: [urnOf("a")] });
      })
    ).state();
    const p = new FakeProvider(4);
    const run = await up(p, s1, async (r) => {
      // b no longer takes anything from a and registers first.
      await r.register("b", { size: 1, zone: "z1" });
      await r.register("a", { size: 1, zone: "z2" }, { deleteBeforeReplace: true });
      await r.register("c", { size: 1, zone: "z1" }, { dependencies: [urnOf("a")] });
    });
    expect(p.changes()).toEqual(["delete a id-1", "create a"]);
    // No input of c came from a: the cascade asks no Diff (the one "diff c" is c's own plan).
    expect(p.calls.filter((c) => c === "diff c")).toHaveLength(1);
    expect(run.deployment.errors).toEqual([]);
  });

  test("two delete-before-replace roots sharing a dependent delete it once; it is re-created, checked without olds", async () => {
    const p0 = new FakeProvider();
    const deps = { dependencies: [urnOf("a"), urnOf("c")], propertyDependencies: { zone: [urnOf("a"), urnOf("c")] } };
    const s1 = (
      await up(p0, emptyState(), async (r) => {
        await r.register("a", { size: 1, zone: "z1" });
        await r.register("c", { size: 1, zone: "z1" });
        await r.register("b", { size: 1, zone: "z1" }, deps);
      })
    ).state();
    const p = new FakeProvider(4);
    const run = await up(p, s1, async (r) => {
      await r.register("a", { size: 1, zone: "z2" }, { deleteBeforeReplace: true });
      await r.register("c", { size: 1, zone: "z2" }, { deleteBeforeReplace: true });
      await r.register("b", { size: 1, zone: "z2" }, deps);
    });
    expect(p.changes()).toEqual(["delete b id-3", "delete a id-1", "create a", "delete c id-2", "create c", "create b"]);
    expect(p.args.filter((x) => x.call === "check b").map((x) => x.args[0])).toEqual([{}]);
    expect(run.deployment.steps.filter((s) => s.op === "replace").map((s) => s.name)).toEqual(["a", "c", "b"]);
  });

  test("the cascade's diff of a dependent applies the dependent's own replaceOnChanges, kept in the state", async () => {
    const p0 = new FakeProvider();
    const bOpts = { dependencies: [urnOf("a")], propertyDependencies: { size: [urnOf("a")] }, replaceOnChanges: ["size"] };
    const s1 = (
      await up(p0, emptyState(), async (r) => {
        await r.register("a", { size: 1, zone: "z1" });
        await r.register("b", { size: 1, zone: "z1" }, bOpts);
      })
    ).state();
    const p = new FakeProvider(3);
    p.faults.unknownDiff.add("b");
    const run = await up(p, s1, async (r) => {
      await r.register("a", { size: 1, zone: "z2" }, { deleteBeforeReplace: true });
      await r.register("b", { size: 1, zone: "z1" }, bOpts);
    });
    expect(p.changes()).toEqual(["delete b id-2", "delete a id-1", "create a", "create b"]);
    expect(run.deployment.errors).toEqual([]);
  });
});
