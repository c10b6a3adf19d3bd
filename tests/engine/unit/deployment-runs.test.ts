/**
 * The engine's deletions, refresh, destroy, --target and resource options (tools/local-engine/deployment.ts), in
 * process against the fake provider and program of tests/engine/unit/fake-provider.ts. Each rule is the real
 * engine's (pulumi/pulumi pkg/resource/deploy, file named per test).
 */
import { Severity } from "../../../tools/local-engine/monitor";
import { StateFile } from "../../../tools/local-engine/state";
import { PropertyMap, PropertyValue, SECRET_SIG, SPECIAL_SIG_KEY } from "../../../tools/local-engine/values";
import { FakeProvider, Run, STACK_URN, TYPE, emptyState, gate, resource, up, urnOf } from "./fake-provider";

const secret = (value: PropertyValue): PropertyMap => ({ [SPECIAL_SIG_KEY]: SECRET_SIG, value });
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

/** Waits (bounded) until `cond` holds; fails instead of hanging. */
async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !cond(); i++) await tick();
  expect(cond()).toBe(true);
}

/** A stack built by one up: `spec` maps names to their registration options. */
async function stackOf(spec: Array<[string, PropertyMap, Parameters<Run["register"]>[2]?]>): Promise<StateFile> {
  const run = await up(new FakeProvider(), emptyState(), async (r) => {
    for (const [name, inputs, o] of spec) await r.register(name, inputs, o);
  });
  expect(run.deployment.errors).toEqual([]);
  return run.state();
}

const dep = (...names: string[]): { dependencies: string[] } => ({ dependencies: names.map((n) => urnOf(n)) });

describe("deletions (step_generator.go ScheduleDeletes, deployment_executor.go performPostSteps)", () => {
  test("removed resources are deleted dependents first, level by level, each level at once", async () => {
    // a <- b, a <- c, b <- d: levels d | b c | a.
    const s = await stackOf([
      ["a", { size: 1 }],
      ["b", { size: 1 }, dep("a")],
      ["c", { size: 1 }, { parent: STACK_URN, propertyDependencies: { size: [urnOf("a")] } }],
      ["d", { size: 1 }, dep("b")],
    ]);
    const p = new FakeProvider();
    const hold = gate();
    p.faults.hold.set("delete b", hold.promise);
    p.faults.hold.set("delete c", hold.promise);
    const run = new Run(p, s);
    await run.stack();
    const finishing = run.deployment.finishUp(true);
    await until(() => p.running === 2); // b and c together, a not before both are done
    expect(p.changes()).toEqual(["delete d id-4", "delete b id-2", "delete c id-3"]);
    hold.open();
    await finishing;
    expect(p.changes()).toEqual(["delete d id-4", "delete b id-2", "delete c id-3", "delete a id-1"]);
    expect(run.state().resources.map((x) => x.name)).toEqual(["proj-dev"]);
    expect(run.deployment.summary.delete).toBe(4);
    expect(run.text()).toMatch(/ - {3}pulumi-nodejs:dynamic:Resource {2}a {2}deleted \(\d+s\)/);
    expect(run.text()).toContain(" -   pulumi-nodejs:dynamic:Resource  a  deleting...");
  });

  test("the worker pool bounds provider calls to --parallel", async () => {
    const s = await stackOf([["a", { size: 1 }], ["b", { size: 1 }], ["c", { size: 1 }]]);
    for (const [parallel, most] of [[1, 1], [2, 2]]) {
      const p = new FakeProvider();
      const run = new Run(p, s, { parallel });
      await run.stack();
      await run.deployment.finishUp(true);
      expect(p.changes()).toHaveLength(3);
      expect(p.maxRunning).toBe(most);
    }
    const p = new FakeProvider();
    const run = new Run(p, s, { parallel: 0 }); // at least one
    await run.stack();
    await run.deployment.finishUp(true);
    expect(p.maxRunning).toBe(1);
  });

  test("a failed delete stops the deletions not yet started; the failed one stays", async () => {
    const s = await stackOf([["a", { size: 1 }], ["b", { size: 1 }, dep("a")]]);
    const p = new FakeProvider();
    p.faults.failDelete.add("b");
    const run = await up(p, s, async () => undefined);
    expect(p.changes()).toEqual(["delete b id-2"]);
    expect(run.deployment.errors).toEqual([`${TYPE} "b": delete failed: delete of b refused`]);
    expect(run.state().resources.map((x) => x.name)).toEqual(["proj-dev", "a", "b"]);
  });

  test("a protected resource fails alone: what it depends on stays, the others are deleted (step.go DeleteStep.Apply)", async () => {
    const s = await stackOf([
      ["a", { size: 1 }],
      ["b", { size: 1 }, { ...dep("a"), protect: true }],
      ["c", { size: 1 }],
      ["d", { size: 1 }, { parent: urnOf("b") }],
    ]);
    const p = new FakeProvider();
    const run = await up(p, s, async () => undefined);
    expect(run.deployment.errors).toEqual([
      `resource "${urnOf("b")}" cannot be deleted because it is protected. To unprotect the resource, remove the \`protect\` flag from the resource in your Pulumi program and run \`up\``,
    ]);
    expect(p.changes().sort()).toEqual(["delete c id-3", `delete d id-4`].sort());
    expect(run.state().resources.map((x) => x.name)).toEqual(["proj-dev", "a", "b"]);
  });

  test("a protected resource that was replaced is still deleted (its replacement is the protected one)", async () => {
    const s = await stackOf([["a", { size: 1, zone: "z1" }, { protect: true }]]);
    const p = new FakeProvider(2);
    const run = await up(p, s, async (r) => r.register("a", { size: 1, zone: "z2" }, { protect: false }));
    expect(p.changes()).toEqual(["create a", "delete a id-1"]);
    expect(run.deployment.errors).toEqual([]);
  });

  test("deletedWith: no Delete call when the resource it goes with is deleted too, else a normal delete", async () => {
    const s = await stackOf([
      ["vm", { size: 1 }],
      ["addr", { size: 1 }, { deletedWith: urnOf("vm") }],
    ]);
    const p = new FakeProvider();
    const run = await up(p, s, async () => undefined);
    expect(p.changes()).toEqual(["delete vm id-1"]);
    expect(run.text()).toContain(" -   pulumi-nodejs:dynamic:Resource  addr  deleted (with vm)\n");
    expect(run.deployment.summary.delete).toBe(2);
    const p2 = new FakeProvider(3);
    await up(p2, s, async (r) => r.register("vm", { size: 1 }));
    expect(p2.changes()).toEqual(["delete addr id-2"]);
  });

  test("destroy --target of a VM with dependents: refused without them; --target-dependents deletes them, deletedWith without a call", async () => {
    // step_generator.go determineAllowedResourcesToDeleteFromTargets (getTargetDependents: transitive dependents,
    // children and deletedWith included), GenerateDeletes (diag 2014, nothing deleted), step.go DeleteStep.Apply
    // (isDeletedWith: no Delete call when the deletedWith resource is deleted in the same run).
    const s = await stackOf([
      ["vm", { size: 1 }],
      ["ip", { size: 1 }, { deletedWith: urnOf("vm") }],
      ["fw", { size: 1 }, dep("vm")],
      ["fwlog", { size: 1 }, { parent: urnOf("fw") }],
      ["other", { size: 1 }],
    ]);
    const refused = new Run(new FakeProvider(), s, { targets: [urnOf("vm")] });
    await refused.deployment.destroy();
    const fwlog = `urn:pulumi:${"dev"}::proj::${TYPE}$${TYPE}::fwlog`;
    expect(refused.deployment.errors).toEqual(
      [urnOf("ip"), urnOf("fw"), fwlog].map(
        (u) => `Resource '${u}' will be destroyed but was not specified in --target list.\nEither include resource in --target list or pass --target-dependents to proceed.`,
      ),
    );
    expect(refused.provider.changes()).toEqual([]);
    expect(refused.state().resources).toHaveLength(6);
    const p = new FakeProvider();
    const run = new Run(p, s, { targets: [urnOf("vm")], targetDependents: true });
    await run.deployment.destroy();
    expect(run.deployment.errors).toEqual([]);
    expect(p.changes()).toEqual(["delete fwlog id-4", "delete fw id-3", "delete vm id-1"]);
    expect(run.text()).toContain(" -   pulumi-nodejs:dynamic:Resource  ip  deleted (with vm)\n");
    expect(run.state().resources.map((x) => x.name)).toEqual(["proj-dev", "other"]);
  });

  test("components and the stack are removed from the state without provider calls", async () => {
    const s = await stackOf([["grp", {}, { custom: false, type: "my:Group" }], ["a", { size: 1 }, { parent: urnOf("grp", "my:Group") }]]);
    const p = new FakeProvider();
    const run = new Run(p, s);
    await run.deployment.destroy();
    expect(p.changes()).toEqual(["delete a id-1"]);
    expect(run.state().resources).toEqual([]);
    // Children before their parent.
    expect(run.deployment.steps.map((x) => x.name)).toEqual(["a", "grp", "proj-dev"]);
  });

  test("destroy deletes everything, in dependency order; with --target only the targeted", async () => {
    const s = await stackOf([["a", { size: 1 }], ["b", { size: 1 }, dep("a")], ["c", { size: 1 }]]);
    const p = new FakeProvider();
    const run = new Run(p, s);
    await run.deployment.destroy();
    // Antichains: b first; a and c (nothing left depends on them) together.
    expect(p.changes()).toEqual(["delete b id-2", "delete a id-1", "delete c id-3"]);
    const p2 = new FakeProvider();
    const t = new Run(p2, s, { targets: [urnOf("c")] });
    await t.deployment.destroy();
    expect(p2.changes()).toEqual(["delete c id-3"]);
    expect(t.state().resources.map((x) => x.name)).toEqual(["proj-dev", "a", "b"]);
    // A target's dependents are deleted with it (determineAllowedResourcesToDeleteFromTargets); those not in the
    // target list are refused before anything is deleted (GenerateDeletes, diag 2014).
    const refused = new Run(new FakeProvider(), s, { targets: [urnOf("a")] });
    await refused.deployment.destroy();
    expect(refused.deployment.errors).toEqual([
      `Resource '${urnOf("b")}' will be destroyed but was not specified in --target list.\n` +
        "Either include resource in --target list or pass --target-dependents to proceed.",
    ]);
    expect(refused.provider.changes()).toEqual([]);
    expect(refused.state().resources.map((x) => x.name)).toEqual(["proj-dev", "a", "b", "c"]);
    for (const opts of [{ targets: [urnOf("a"), urnOf("b")] }, { targets: [urnOf("a")], targetDependents: true }]) {
      const run = new Run(new FakeProvider(), s, opts);
      await run.deployment.destroy();
      expect(run.deployment.errors).toEqual([]);
      expect(run.provider.changes()).toEqual(["delete b id-2", "delete a id-1"]);
      expect(run.state().resources.map((x) => x.name)).toEqual(["proj-dev", "c"]);
    }
    const bad = new Run(new FakeProvider(), s, { targets: [urnOf("zz")] });
    await bad.deployment.destroy();
    expect(bad.deployment.errors).toEqual([`Target '${urnOf("zz")}' could not be found in the stack.`]);
    expect(bad.deployment.steps).toEqual([]);
  });
});

describe("--target (step_generator.go continueStepsFromImport, GenerateDeletes, validateSteps)", () => {
  test("untargeted resources keep their old state untouched, new untargeted ones are not created", async () => {
    const s = await stackOf([["a", { size: 1 }], ["b", { size: 1 }]]);
    const p = new FakeProvider(3);
    let skipped;
    const run = await up(
      p,
      s,
      async (r) => {
        await r.register("a", { size: 2 });
        await r.register("b", { size: 2 });
        skipped = await r.register("n", { size: 1 });
      },
      { targets: [urnOf("b")] },
    );
    expect(p.calls.filter((c) => c.endsWith(" a"))).toEqual([]); // not even checked
    expect(p.changes()).toEqual(["update b id-2"]);
    expect(skipped).toEqual({ urn: urnOf("n"), id: "", object: {}, failed: false });
    expect(resource(run.state(), "a")?.inputs.size).toBe(1);
    expect(resource(run.state(), "n")).toBeUndefined();
    expect(run.text()).toContain("     pulumi-nodejs:dynamic:Resource  n  unchanged (not targeted: not created)");
  });

  test("a targeted resource needing an untargeted one that was not created is an error", async () => {
    const p = new FakeProvider();
    const run = await up(
      p,
      emptyState(),
      async (r) => {
        await r.register("n", { size: 1 });
        expect((await r.register("m", { size: 1 }, dep("n"))).failed).toBe(true);
      },
      { targets: [urnOf("m")] },
    );
    expect(run.deployment.errors).toEqual([
      `${TYPE} "m": Resource '${urnOf("m")}' will be created but its dependency '${urnOf("n")}' was not specified in the target list (--target).`,
    ]);
    expect(p.changes()).toEqual([]);
  });

  test("removed resources are deleted only when targeted; one an untargeted registration depends on is kept", async () => {
    const s = await stackOf([["a", { size: 1 }], ["b", { size: 1 }, dep("a")], ["c", { size: 1 }]]);
    const p = new FakeProvider();
    const run = await up(p, s, async () => undefined, { targets: [urnOf("c")] });
    expect(p.changes()).toEqual(["delete c id-3"]);
    expect(run.state().resources.map((x) => x.name)).toEqual(["proj-dev", "a", "b"]);
    // b is registered but untargeted: its old state (which depends on a) is kept as it is, and so is a, ahead of
    // it (step_generator.go continueStepsFromImport, untargeted getDependencySteps: an untargeted same step for
    // the old dependency, which GenerateDeletes then sees as operated on and does not delete).
    const p2 = new FakeProvider();
    const run2 = await up(p2, s, async (r) => r.register("b", { size: 1 }, dep("a")), { targets: [urnOf("a")] });
    expect(run2.deployment.errors).toEqual([]);
    expect(p2.changes()).toEqual([]);
    expect(run2.state().resources.map((x) => x.name)).toEqual(["proj-dev", "a", "b", "c"]);
    const p3 = new FakeProvider();
    const run3 = await up(p3, s, async () => undefined, { targets: [urnOf("new")] });
    expect(run3.deployment.errors).toEqual([`Target '${urnOf("new")}' could not be found in the stack.`]);
    expect(p3.changes()).toEqual([]);
  });

  // GenerateDeletes with determineAllowedResourcesToDeleteFromTargets: the targets' dependents are deleted too,
  // and each one that was not itself given as a target is refused (diag 2014) unless --target-dependents.
  const unspecified = (name: string): string =>
    `Resource '${urnOf(name)}' will be destroyed but was not specified in --target list.\n` +
    "Either include resource in --target list or pass --target-dependents to proceed.";

  test("a removed target whose removed dependents are not targeted is refused before anything is deleted", async () => {
    const s = await stackOf([["a", { size: 1 }], ["b", { size: 1 }, dep("a")], ["d", { size: 1 }, dep("b")], ["c", { size: 1 }]]);
    const p = new FakeProvider(5);
    const run = await up(p, s, async (r) => r.register("c", { size: 2 }), { targets: [urnOf("a"), urnOf("c")] });
    expect(run.deployment.errors).toEqual([unspecified("b"), unspecified("d")]);
    expect(p.changes()).toEqual(["update c id-4"]); // the program's steps ran; no delete did
    expect(run.state().resources.map((x) => x.name)).toEqual(["proj-dev", "c", "a", "b", "d"]);
    // Preview reports every one and still shows the deletions (GenerateDeletes keeps going in a dry run).
    const prev = await up(new FakeProvider(5), s, async (r) => r.register("c", { size: 1 }), { targets: [urnOf("a")], dryRun: true });
    expect(prev.deployment.errors).toEqual([unspecified("b"), unspecified("d")]);
    expect(prev.deployment.steps.filter((x) => x.op === "delete").map((x) => x.name)).toEqual(["d", "b", "a"]);
    // --target-dependents: they go too, dependents first.
    const p2 = new FakeProvider(5);
    const run2 = await up(p2, s, async (r) => r.register("c", { size: 1 }), { targets: [urnOf("a")], targetDependents: true });
    expect(run2.deployment.errors).toEqual([]);
    expect(p2.changes()).toEqual(["delete d id-3", "delete b id-2", "delete a id-1"]);
    expect(run2.state().resources.map((x) => x.name)).toEqual(["proj-dev", "c"]);
  });

  test("a targeted replace deletes the old resource even though untargeted resources depend on it", async () => {
    // The old half of a replacement is a delete of a targeted URN (step_generator.go GenerateDeletes: res.Delete,
    // NewDeleteReplacementStep; the 2014 check only concerns URNs outside the target list); untargeted
    // dependents keep their old state.
    const s = await stackOf([
      ["vm", { size: 1, zone: "z1" }],
      ["ip", { size: 1 }, { deletedWith: urnOf("vm") }],
      ["fw", { size: 1 }, dep("vm")],
    ]);
    const p = new FakeProvider(4);
    const run = await up(
      p,
      s,
      async (r) => {
        await r.register("vm", { size: 1, zone: "z2" });
        await r.register("ip", { size: 1 }, { deletedWith: urnOf("vm") });
        await r.register("fw", { size: 2 }, dep("vm"));
      },
      { targets: [urnOf("vm")] },
    );
    expect(run.deployment.errors).toEqual([]);
    expect(p.changes()).toEqual(["create vm", "delete vm id-1"]);
    const state = run.state();
    expect(state.resources.filter((x) => x.name === "vm").map((x) => x.id)).toEqual(["id-4"]);
    expect(resource(state, "ip")?.id).toBe("id-2");
    expect(resource(state, "fw")?.inputs.size).toBe(1);
  });

  test("an untargeted dependent deleted ahead of a targeted delete-before-replace is re-created from its old inputs", async () => {
    // step_generator.go continueStepsFromImport: `recreating` (case 1) comes before the untargeted same step,
    // and an untargeted resource's Check is stubbed to return its old inputs.
    const s = await stackOf([
      ["vm", { size: 1, zone: "z1" }],
      ["ip", { size: 1 }, { deletedWith: urnOf("vm") }],
    ]);
    const p = new FakeProvider(3);
    p.faults.dbr.add("vm");
    const run = await up(
      p,
      s,
      async (r) => {
        await r.register("vm", { size: 1, zone: "z2" });
        await r.register("ip", { size: 2 }, { deletedWith: urnOf("vm") });
      },
      { targets: [urnOf("vm")] },
    );
    expect(run.deployment.errors).toEqual([]);
    expect(p.changes()).toEqual(["delete vm id-1", "create vm", "create ip"]);
    expect(p.calls.filter((c) => c === "check ip")).toEqual([]);
    const ip = resource(run.state(), "ip");
    expect(ip?.id).toBe("id-4");
    expect(ip?.inputs.size).toBe(1);
  });

  test("--target-dependents in an up also changes the resources that depend on a targeted one", async () => {
    // step_generator.go isTargetedForUpdate: with TargetDependents a registration is targeted when one of its
    // dependencies was (targetsActual); others stay untargeted.
    const s = await stackOf([["a", { size: 1 }], ["b", { size: 1 }, dep("a")], ["c", { size: 1 }]]);
    const p = new FakeProvider(4);
    const run = await up(
      p,
      s,
      async (r) => {
        await r.register("a", { size: 2 });
        await r.register("b", { size: 2 }, dep("a"));
        await r.register("c", { size: 2 });
        await r.register("n", { size: 1 }, dep("b"));
      },
      { targets: [urnOf("a")], targetDependents: true },
    );
    expect(run.deployment.errors).toEqual([]);
    expect(p.changes()).toEqual(["update a id-1", "update b id-2", "create n"]);
    expect(resource(run.state(), "c")?.inputs.size).toBe(1);
  });

  test("a target that the program registers (new) is found", async () => {
    const p = new FakeProvider();
    const run = await up(p, emptyState(), async (r) => r.register("n", { size: 1 }), { targets: [urnOf("n")] });
    expect(run.deployment.errors).toEqual([]);
    expect(p.changes()).toEqual(["create n"]);
  });
});

describe("refresh (step.go RefreshStep.Apply)", () => {
  test("outputs and id are taken from the read; a resource read as gone leaves the state", async () => {
    const s = await stackOf([["a", { size: 1 }], ["b", { size: 1 }], ["c", { size: 1 }]]);
    const p = new FakeProvider();
    p.faults.newId.set("a", "id-77");
    p.faults.gone.add("b");
    const run = new Run(p, s);
    await run.deployment.refresh();
    const state = run.state();
    expect(resource(state, "a")?.id).toBe("id-77");
    expect(resource(state, "b")).toBeUndefined();
    expect(run.deployment.drift).toEqual([{ urn: urnOf("b"), type: TYPE, name: "b", gone: true, properties: [] }]);
    expect(run.deployment.summary).toMatchObject({ delete: 1, same: 2 });
    expect(run.text()).toContain(" -   pulumi-nodejs:dynamic:Resource  b  delete (gone: deleted outside Pulumi)");
    expect(p.calls.filter((c) => c.startsWith("read")).sort()).toEqual(["read a id-1", "read b id-2", "read c id-3"]);
    // The refreshed state is the deployment's old state: an up after it sees a's new id.
    await run.stack();
    await run.register("a", { size: 2 });
    expect(p.changes()).toEqual(["update a id-77"]);
  });

  test("drift is the provider's diff of the refreshed state against the old inputs, shown per property", async () => {
    const s = await stackOf([["a", { size: 1, zone: "z1" }], ["b", { size: 1 }]]);
    const p = new FakeProvider();
    p.faults.readInputs.set("a", { __provider: "serialized", size: 3, zone: "z1", checked: true });
    p.faults.drift.set("a", { size: 3 });
    p.faults.drift.set("b", { status: "stopped" }); // outputs moved, inputs the same: not drift
    const run = new Run(p, s);
    await run.deployment.refresh();
    expect(run.deployment.drift).toEqual([
      { urn: urnOf("a"), type: TYPE, name: "a", gone: false, properties: [{ name: "size", old: "1", new: "3" }] },
    ]);
    expect(run.deployment.summary).toMatchObject({ update: 1, same: 1 });
    expect(run.deployment.steps.find((x) => x.name === "a")).toEqual({ op: "update", urn: urnOf("a"), type: TYPE, name: "a", diffs: ["size"] });
    expect(run.text()).toContain(" ~   pulumi-nodejs:dynamic:Resource  a  update [diff: ~size]\n        ~ size: 1 => 3\n");
    expect(resource(run.state(), "a")).toMatchObject({ inputs: { size: 3 }, outputs: { size: 3 } });
    expect(resource(run.state(), "b")?.outputs.status).toBe("stopped");
    // The diff was asked with the refreshed state as old and the old inputs as new.
    const args = p.args.find((x) => x.call === "diff a")?.args;
    expect(args?.[0]).toBe("id-1");
    expect(args?.[2]).toMatchObject({ size: 1 });
    expect(args?.[3]).toMatchObject({ size: 3 });
  });

  test("a drift the engine diffs itself (DIFF_UNKNOWN) names its keys; an input filled in by the read is shown as (input)", async () => {
    const s = await stackOf([["a", { size: 1 }]]);
    const p = new FakeProvider();
    p.faults.unknownDiff.add("a");
    p.faults.readInputs.set("a", { __provider: "serialized", size: 1, checked: true, zone: "filled" });
    const run = new Run(p, s);
    await run.deployment.refresh();
    expect(run.deployment.drift[0].properties).toEqual([{ name: "zone (input)", old: "<absent>", new: '"filled"' }]);
  });

  test("secrets stay secret through a refresh", async () => {
    const s = await stackOf([["a", { size: 1, pw: secret("x") }, { additionalSecretOutputs: ["status"] }]]);
    const p = new FakeProvider();
    p.faults.readInputs.set("a", { __provider: "serialized", size: 1, pw: "x", checked: true });
    const run = new Run(p, s);
    await run.deployment.refresh();
    const a = resource(run.state(), "a");
    expect(a?.outputs.pw).toEqual(secret("x"));
    expect(a?.outputs.status).toEqual(secret("running"));
    expect(a?.inputs.pw).toEqual(secret("x"));
    expect(p.args.find((x) => x.call === "read a id-1")?.args[0]).toMatchObject({ pw: "x" }); // the host gets plain values
  });

  test("a failed read is an error and keeps the resource as it was; components are not read", async () => {
    const s = await stackOf([["g", {}, { custom: false, type: "my:Group" }], ["a", { size: 1 }]]);
    const p = new FakeProvider();
    p.faults.failRead.add("a");
    const run = new Run(p, s);
    await run.deployment.refresh();
    expect(run.deployment.errors).toEqual([`${TYPE} "a": refresh failed: read of a refused`]);
    expect(run.state().resources).toEqual(s.resources);
    expect(p.calls).toEqual(["read a id-1"]);
  });

  test("reads are pending operations while they run, and resetSteps starts the next phase afresh", async () => {
    const s = await stackOf([["a", { size: 1 }]]);
    const p = new FakeProvider();
    const run = new Run(p, s);
    await run.deployment.refresh();
    expect(run.checkpoints.flatMap((c) => (c.pending_operations ?? []).map((o) => o.type))).toEqual(["reading"]);
    expect(run.deployment.steps).toHaveLength(1);
    run.deployment.resetSteps();
    expect(run.deployment.steps).toEqual([]);
    expect(run.deployment.summary).toEqual({ create: 0, update: 0, replace: 0, delete: 0, same: 0 });
    const preview = new Run(new FakeProvider(), s, { dryRun: true });
    await preview.deployment.refresh();
    expect(preview.checkpoints).toEqual([]);
  });
});

describe("resource options", () => {
  test("ignoreChanges: the old value is put back before Check, so the provider never sees the new one", async () => {
    const s = await stackOf([["a", { size: 1, tags: { env: "a", team: "x" } }]]);
    const p = new FakeProvider();
    const run = await up(p, s, async (r) => r.register("a", { size: 1, tags: { env: "b", team: "x" } }, { ignoreChanges: ["tags.env"] }));
    expect(p.args.find((x) => x.call === "check a")?.args[1]).toMatchObject({ tags: { env: "a", team: "x" } });
    expect(p.changes()).toEqual([]);
    expect(resource(run.state(), "a")?.ignoreChanges).toEqual(["tags.env"]);
    // A property absent before stays absent.
    const p2 = new FakeProvider();
    await up(p2, s, async (r) => r.register("a", { size: 1, tags: { env: "a", team: "x" }, extra: 1 }, { ignoreChanges: ["extra"] }));
    expect(p2.args.find((x) => x.call === "check a")?.args[1]).not.toHaveProperty("extra");
    expect(p2.changes()).toEqual([]);
  });

  // step_generator.go processIgnoreChanges -> properties_path.go Reset (the rules themselves: values.test.ts).
  test('ignoreChanges ["*"] added to an existing resource: Reset keeps every old input and deletes every new one the old inputs lack', async () => {
    const s = await stackOf([["a", { size: 1, tags: { env: "a" }, key: secret("k1") }]]);
    const p = new FakeProvider();
    const run = await up(p, s, async (r) => r.register("a", { size: 2, tags: { env: "b" }, key: "k2", __ignoreChanges: ["*"] }, { ignoreChanges: ["*"] }));
    const checked = p.args.find((x) => x.call === "check a")?.args[1] as PropertyMap;
    expect(checked).toMatchObject({ size: 1, tags: { env: "a" }, key: "k1" });
    expect(checked).not.toHaveProperty("__ignoreChanges"); // the hidden input the old inputs lack is gone, as under the real engine
    expect(p.changes()).toEqual([]);
    // The kept value was a secret in the old inputs: it stays one although the program sent it plain.
    expect(resource(run.state(), "a")?.inputs.key).toEqual(secret("k1"));
    expect(run.text()).not.toContain("cannot ignore changes");
  });

  test("an ignoreChanges path Reset cannot apply is reported as the real engine's info line, and the program's value is used", async () => {
    const s = await stackOf([["a", { size: 1, list: [1] }]]);
    const p = new FakeProvider();
    const run = await up(p, s, async (r) => r.register("a", { size: 1, list: [1, 2] }, { ignoreChanges: ["list[1]", "size"] }));
    expect(p.args.find((x) => x.call === "check a")?.args[1]).toMatchObject({ list: [1, 2] });
    expect(run.text()).toContain('info a: cannot ignore changes in added or removed elements of the path: "list[1]"');
  });

  test("replaceOnChanges applies to the keys the engine's own diff reports (DIFF_UNKNOWN), not to a provider's bare answer", async () => {
    const s = await stackOf([["a", { size: 1, tags: { env: "a" } }], ["b", { size: 1 }]]);
    const p = new FakeProvider(3);
    p.faults.unknownDiff.add("a");
    const run = await up(p, s, async (r) => {
      await r.register("a", { size: 1, tags: { env: "b" } }, { replaceOnChanges: ["tags.*"] });
      await r.register("b", { size: 2 }, { replaceOnChanges: ["size"] });
    });
    expect(run.deployment.steps.find((x) => x.name === "a")).toMatchObject({ op: "replace", replaces: ["tags"], diffs: ["tags"] });
    expect(run.deployment.steps.find((x) => x.name === "b")).toMatchObject({ op: "update" });
    expect(resource(run.state(), "a")?.replaceOnChanges).toEqual(["tags.*"]);
    // A path not containing the changed one does not replace.
    const p2 = new FakeProvider(3);
    p2.faults.unknownDiff.add("a");
    const run2 = await up(p2, s, async (r) => r.register("a", { size: 1, tags: { env: "b" } }, { replaceOnChanges: ["size", "tags.team"] }));
    expect(run2.deployment.steps.find((x) => x.name === "a")).toMatchObject({ op: "update" });
  });

  test("replaceOnChanges on #initerror replaces a resource that failed to initialize (step_generator.go applyReplaceOnChanges)", async () => {
    const p0 = new FakeProvider();
    p0.faults.initFailCreate.add("a");
    const s = (await up(p0, emptyState(), async (r) => r.register("a", { size: 1 }))).state();
    const p = new FakeProvider(2);
    const run = await up(p, s, async (r) => r.register("a", { size: 1 }, { replaceOnChanges: ["#initerror"] }));
    expect(run.deployment.steps.find((x) => x.name === "a")).toMatchObject({ op: "replace", replaces: ["#initerror"] });
    expect(p.changes()).toEqual(["create a", "delete a id-1"]);
  });

  test("an unknown diff with no changed input is no change; list and nested changes are found by path", async () => {
    const s = await stackOf([["a", { size: 1, list: [1, 2], obj: { x: { y: 1 } } }]]);
    const p = new FakeProvider();
    p.faults.unknownDiff.add("a");
    const same = await up(p, s, async (r) => r.register("a", { size: 1, list: [1, 2], obj: { x: { y: 1 } } }));
    expect(same.deployment.summary.same).toBe(2);
    const p2 = new FakeProvider(2);
    p2.faults.unknownDiff.add("a");
    const run = await up(p2, s, async (r) => r.register("a", { size: 1, list: [1, 3], obj: { x: { y: 1 } } }, { replaceOnChanges: ["list[1]", "obj.x.y"] }));
    expect(run.deployment.steps.find((x) => x.name === "a")).toMatchObject({ op: "replace", replaces: ["list"] });
    const p3 = new FakeProvider(2);
    p3.faults.unknownDiff.add("a");
    const run3 = await up(p3, s, async (r) => r.register("a", { size: 1, list: [1, 2], obj: { x: { y: 2 } } }, { replaceOnChanges: ['obj["x"].y', "list[0]"] }));
    expect(run3.deployment.steps.find((x) => x.name === "a")).toMatchObject({ op: "replace", replaces: ["obj"] });
    const p4 = new FakeProvider(2);
    p4.faults.unknownDiff.add("a");
    const run4 = await up(p4, s, async (r) => r.register("a", { size: 1, list: [1, 2], obj: { x: { y: 2 } } }, { replaceOnChanges: ["obj.x.z", "obj.q"] }));
    expect(run4.deployment.steps.find((x) => x.name === "a")).toMatchObject({ op: "update" });
  });

  test("replaceOnChanges paths: an index names that index only, many-digit indexes, quoted keys with dots, a list that grows", async () => {
    const eleven = Array.from({ length: 11 }, (_, i) => i);
    const s = await stackOf([["a", { size: 1, list: [1, 2], big: eleven, obj: { "a.b": 1 } }]]);
    const opOf = async (inputs: PropertyMap, replaceOnChanges: string[]): Promise<string | undefined> => {
      const p = new FakeProvider(2);
      p.faults.unknownDiff.add("a");
      const run = await up(p, s, async (r) => r.register("a", inputs, { replaceOnChanges }));
      return run.deployment.steps.find((x) => x.name === "a")?.op;
    };
    const base = { size: 1, list: [1, 2], big: eleven, obj: { "a.b": 1 } };
    expect(await opOf({ ...base, list: [9, 2] }, ["list[1]"])).toBe("update");
    expect(await opOf({ ...base, list: [9, 2] }, ["list[0]"])).toBe("replace");
    expect(await opOf({ ...base, big: [...eleven.slice(0, 10), 99] }, ["big[10]"])).toBe("replace");
    expect(await opOf({ ...base, big: [...eleven.slice(0, 10), 99] }, ["big[1]"])).toBe("update");
    expect(await opOf({ ...base, obj: { "a.b": 2 } }, ['obj["a.b"]'])).toBe("replace");
    expect(await opOf({ ...base, list: [1, 2, 3] }, ["list[2]"])).toBe("replace");
    // * matches any key or index at its level (properties_path.go Contains), as a name or in brackets
    expect(await opOf({ ...base, list: [9, 2] }, ["list[*]"])).toBe("replace");
    expect(await opOf({ ...base, big: [...eleven.slice(0, 10), 99] }, ["big.*"])).toBe("replace");
    expect(await opOf({ ...base, list: [9, 2] }, ["*"])).toBe("replace");
    expect(await opOf({ ...base, list: [9, 2] }, ["obj.*"])).toBe("update");
    // a quoted key may hold \" and ], and runs to its closing quote
    expect(await opOf({ ...base, obj: { 'say "hi"]': 1 } }, ['obj["say \\"hi\\"]"]'])).toBe("replace");
    expect(await opOf({ ...base, obj: { 'say "hi"]': 1 } }, ['obj["say"]'])).toBe("update");
    // a backslash not before a quote is part of the key; an index may carry a sign (strconv.ParseInt)
    expect(await opOf({ ...base, obj: { "a\\b": 1 } }, ['obj["a\\b"]'])).toBe("replace");
    expect(await opOf({ ...base, list: [1, 9] }, ["list[+1]"])).toBe("replace");
    // a path longer than the change does not contain it: a whole new object is not "every key of it"
    expect(await opOf({ ...base, tags: { env: "x" } }, ["tags.*"])).toBe("update");
  });

  test("a replaceOnChanges path that does not parse fails the resource with the engine's message, before any change", async () => {
    const s = await stackOf([["a", { size: 1, list: [1] }]]);
    for (const [path, message] of [
      [".size", "expected property path to start with a name or index"],
      ["size.", "expected property path to end with a name or index"],
      ['list["x', "missing closing quote in property name"],
      ['list["x"', "missing closing bracket in property access"],
      ["list[0", "missing closing bracket in array index"],
      ["list[x]", 'invalid array index: strconv.ParseInt: parsing "x": invalid syntax'],
      ["list[x1]", 'invalid array index: strconv.ParseInt: parsing "x1": invalid syntax'],
      ["list[1x]", 'invalid array index: strconv.ParseInt: parsing "1x": invalid syntax'],
    ]) {
      const p = new FakeProvider();
      const run = await up(p, s, async (r) => r.register("a", { size: 2, list: [1] }, { replaceOnChanges: [path] }));
      expect(run.deployment.errors).toEqual([`${TYPE} "a": ${message}`]);
      expect(p.changes()).toEqual([]);
      // ...and is never read when nothing changed (applyReplaceOnChanges returns before parsing)
      const same = await up(new FakeProvider(), s, async (r) => r.register("a", { size: 1, list: [1] }, { replaceOnChanges: [path] }));
      expect(same.deployment.errors).toEqual([]);
    }
  });

  test("protect: a replace is refused when old and new are protected; preview reports it and still shows the replace", async () => {
    const s = await stackOf([["a", { size: 1, zone: "z1" }, { protect: true }]]);
    const p = new FakeProvider();
    const run = await up(p, s, async (r) => r.register("a", { size: 1, zone: "z2" }, { protect: true }));
    const message =
      `unable to replace resource ${urnOf("a")} (zone changed) as it is currently marked for protection. ` +
      "To unprotect the resource, remove the `protect` flag from the resource in your Pulumi program and run `up`";
    expect(run.deployment.errors).toEqual([`${TYPE} "a": ${message}`]);
    expect(p.changes()).toEqual([]);
    const pv = await up(new FakeProvider(), s, async (r) => r.register("a", { size: 1, zone: "z2" }, { protect: true }), { dryRun: true });
    expect(pv.deployment.errors).toEqual([message]);
    expect(pv.deployment.steps.find((x) => x.name === "a")?.op).toBe("replace");
    // Protected only before: unprotecting and replacing in one run is allowed.
    const p2 = new FakeProvider(2);
    const ok = await up(p2, s, async (r) => r.register("a", { size: 1, zone: "z2" }));
    expect(ok.deployment.errors).toEqual([]);
    expect(p2.changes()).toEqual(["create a", "delete a id-1"]);
  });

  test("aliases: a renamed resource keeps its cloud resource; two claims of one alias are refused", async () => {
    const s = await stackOf([["old", { size: 1 }]]);
    const p = new FakeProvider();
    const run = await up(p, s, async (r) => r.register("new", { size: 1 }, { aliases: [urnOf("old")] }));
    expect(p.changes()).toEqual([]);
    expect(run.state().resources.map((x) => [x.name, x.id ?? ""])).toEqual([
      ["proj-dev", ""],
      ["new", "id-1"],
    ]);
    const p2 = new FakeProvider();
    const run2 = await up(p2, s, async (r) => {
      await r.register("x", { size: 1 }, { aliases: [urnOf("old")] });
      expect((await r.register("y", { size: 1 }, { aliases: [urnOf("old")] })).failed).toBe(true);
    });
    expect(run2.deployment.errors).toEqual([`${TYPE} "y": ${urnOf("y")} and ${urnOf("x")} both claim the old resource ${urnOf("old")} through an alias`]);
    // An alias naming a resource the program registered under that name is a duplicate URN
    // (step_generator.go: an alias that is also a resource's URN).
    const p3 = new FakeProvider(2);
    const run3 = await up(p3, s, async (r) => {
      await r.register("old", { size: 1 });
      expect((await r.register("y", { size: 1 }, { aliases: [urnOf("nothing"), urnOf("old")] })).failed).toBe(true);
    });
    expect(run3.deployment.errors).toEqual([
      `${TYPE} "y": Duplicate resource URN '${urnOf("old")}'; try giving it a unique name (it is also an alias of ${urnOf("y")})`,
    ]);
    expect(p3.changes()).toEqual([]);
  });

  test("a resource found under its own URN ignores its aliases", async () => {
    const s = await stackOf([["old", { size: 1 }], ["other", { size: 1 }]]);
    const r2 = await up(new FakeProvider(), s, async (r) => {
      await r.register("old", { size: 1 }, { aliases: [urnOf("other")] });
      await r.register("other", { size: 1 });
    });
    expect(r2.deployment.errors).toEqual([]);
  });

  test("components: created then unchanged, outputs registered later, URNs of children carry the parent type", async () => {
    const p = new FakeProvider();
    const run = new Run(p, emptyState());
    await run.stack();
    const g = await run.register("grp", { a: 1 }, { custom: false, type: "my:Group", protect: true, deleteBeforeReplace: true });
    expect(g).toEqual({ urn: urnOf("grp", "my:Group"), id: "", object: {}, failed: false });
    const child = await run.register("c", { size: 1 }, { parent: g.urn });
    expect(child.urn).toBe(`urn:pulumi:dev::proj::my:Group$${TYPE}::c`);
    await run.deployment.registerOutputs(g.urn, { out: 5 });
    await run.deployment.registerOutputs(urnOf("unknown"), { out: 6 });
    await run.deployment.registerOutputs(STACK_URN, { url: secret("u") });
    expect(run.deployment.stackOutputs()).toEqual({ url: secret("u") });
    const s = run.state();
    expect(resource(s, "grp")).toMatchObject({ custom: false, outputs: { out: 5 }, inputs: { a: 1 }, protect: true, deleteBeforeReplace: true, parent: STACK_URN });
    expect(run.checkpoints[run.checkpoints.length - 1].resources.find((x) => x.name === "proj-dev")?.outputs).toEqual({ url: secret("u") });
    const again = new Run(new FakeProvider(), s);
    await again.stack();
    await again.register("grp", {}, { custom: false, type: "my:Group" });
    expect(again.deployment.steps.map((x) => x.op)).toEqual(["same", "same"]);
    expect(resource(again.state(), "grp")?.outputs).toEqual({ out: 5 });
    expect(again.deployment.stackOutputs()).toEqual({ url: secret("u") });
    const fresh = new Run(new FakeProvider(), s);
    expect(fresh.deployment.stackOutputs()).toEqual({ url: secret("u") });
    expect(new Run(new FakeProvider(), emptyState()).deployment.stackOutputs()).toEqual({});
  });

  test("deletedWith and options are kept in the state; a child of a custom resource gets its type chain", async () => {
    const p = new FakeProvider();
    const run = await up(p, emptyState(), async (r) => {
      await r.register("a", { size: 1 });
      await r.register("b", { size: 1 }, { deletedWith: urnOf("a"), parent: urnOf("a"), deleteBeforeReplace: false });
    });
    const b = run.state().resources.find((x) => x.name === "b");
    expect(b).toMatchObject({ deletedWith: urnOf("a"), deleteBeforeReplace: false, urn: `urn:pulumi:dev::proj::${TYPE}$${TYPE}::b` });
    expect(resource(run.state(), "a")).not.toHaveProperty("deletedWith");
    expect(resource(run.state(), "a")).not.toHaveProperty("ignoreChanges");
    expect(resource(run.state(), "a")).not.toHaveProperty("replaceOnChanges");
  });
});

describe("engine log", () => {
  test("diagnostics are printed with the resource name; errors fail the run once; debug only with VMHOST_ENGINE_DEBUG", () => {
    const run = new Run(new FakeProvider(), emptyState());
    const log = (s: Severity, m: string, u: string): void => run.deployment.log(s, m, u);
    const before = process.env.VMHOST_ENGINE_DEBUG;
    delete process.env.VMHOST_ENGINE_DEBUG;
    log("debug", "hidden", "");
    log("info", "hello", urnOf("a"));
    log("warning", "careful", "");
    log("error", "boom", "");
    log("error", "boom", "");
    process.env.VMHOST_ENGINE_DEBUG = "1";
    log("debug", "shown", "");
    if (before === undefined) delete process.env.VMHOST_ENGINE_DEBUG;
    else process.env.VMHOST_ENGINE_DEBUG = before;
    expect(run.text()).toBe("info a: hello\nwarning: careful\nerror: boom\nerror: boom\ndebug: shown\n");
    expect(run.deployment.errors).toEqual(["boom"]);
    expect(run.deployment.stackUrn()).toBe(STACK_URN);
  });
});

describe("more step rules", () => {
  test("after a failure a component registration fails too and is not recorded", async () => {
    const p = new FakeProvider();
    p.faults.failCreate.add("a");
    const run = await up(p, emptyState(), async (r) => {
      await r.register("a", { size: 1 });
      expect((await r.register("g", {}, { custom: false, type: "my:Group" })).failed).toBe(true);
    });
    expect(run.state().resources.map((x) => x.name)).toEqual(["proj-dev"]);
  });

  test("a replacement is created from the program's own inputs: ignoreChanges does not apply to it (continueStepsFromDiff)", async () => {
    const s = await stackOf([["a", { size: 1, zone: "z1" }]]);
    const p = new FakeProvider(2);
    const run = await up(p, s, async (r) => r.register("a", { size: 7, zone: "z2" }, { ignoreChanges: ["size"] }));
    const checks = p.args.filter((x) => x.call === "check a").map((x) => (x.args[1] as PropertyMap).size);
    expect(checks).toEqual([1, 7]);
    expect(p.args.find((x) => x.call === "create a")?.args[0]).toMatchObject({ size: 7, zone: "z2" });
    expect(resource(run.state(), "a")?.inputs.size).toBe(7);
  });

  test("preview of a delete-before-replace shows its dependents as replaced when they register", async () => {
    const s = await stackOf([
      ["a", { size: 1, zone: "z1" }],
      ["b", { size: 1, zone: "z1" }, { deletedWith: urnOf("a") }],
    ]);
    const p = new FakeProvider();
    const run = await up(
      p,
      s,
      async (r) => {
        await r.register("a", { size: 1, zone: "z2" }, { deleteBeforeReplace: true });
        await r.register("b", { size: 1, zone: "z1" }, { deletedWith: urnOf("a") });
      },
      { dryRun: true },
    );
    expect(run.deployment.steps.map((x) => [x.name, x.op])).toEqual([
      ["proj-dev", "same"],
      ["a", "replace"],
      ["b", "replace"],
    ]);
    expect(p.changes()).toEqual([]);
  });

  test("refresh with an engine-side diff honours the resource's ignoreChanges", async () => {
    const s = await stackOf([["a", { size: 1, tags: { env: "x" } }, { ignoreChanges: ["tags"] }]]);
    const p = new FakeProvider();
    p.faults.unknownDiff.add("a");
    p.faults.readInputs.set("a", { __provider: "serialized", size: 1, tags: { env: "changed" }, checked: true });
    const run = new Run(p, s);
    await run.deployment.refresh();
    expect(run.deployment.drift).toEqual([]);
    expect(run.deployment.summary.same).toBe(1);
    // Without the ignore, the same read is drift.
    const s2 = await stackOf([["a", { size: 1, tags: { env: "x" } }]]);
    const run2 = new Run(p, s2);
    await run2.deployment.refresh();
    expect(run2.deployment.drift.map((d) => d.properties.map((x) => x.name))).toEqual([["tags (input)"]]);
  });

  test("refresh drift the provider reports with no input difference shows the outputs that moved", async () => {
    const s = await stackOf([["a", { size: 1 }]]);
    const p = new FakeProvider();
    p.diff = async () => ({ changes: true, replaces: [], deleteBeforeReplace: false });
    p.faults.drift.set("a", { status: "stopped" });
    const run = new Run(p, s);
    await run.deployment.refresh();
    expect(run.deployment.drift[0].properties).toEqual([{ name: "status", old: '"running"', new: '"stopped"' }]);
  });

  test("drift an earlier refresh recorded shows the declared value against the live one, not the input against itself", async () => {
    const s0 = await stackOf([["a", { size: 1 }]]);
    // an earlier refresh stored the live size 3 as output; the program still declares 1
    const s: StateFile = { ...s0, resources: s0.resources.map((r) => (r.name === "a" ? { ...r, outputs: { ...r.outputs, size: 3 } } : r)) };
    const p = new FakeProvider();
    p.diff = async () => ({ changes: true, replaces: [], deleteBeforeReplace: false });
    const run = new Run(p, s);
    await run.deployment.refresh();
    expect(run.deployment.drift[0].properties).toEqual([{ name: "size", old: "1", new: "3" }]);
  });

  test("a dependent that is a component or has no id is not re-created by a delete-before-replace cascade", async () => {
    const s = await stackOf([
      ["a", { size: 1, zone: "z1" }],
      ["g", {}, { custom: false, type: "my:Group", dependencies: [urnOf("a")], propertyDependencies: { x: [urnOf("a")] } }],
    ]);
    const p = new FakeProvider(2);
    const run = await up(p, s, async (r) => {
      await r.register("a", { size: 1, zone: "z2" }, { deleteBeforeReplace: true });
      await r.register("g", {}, { custom: false, type: "my:Group", dependencies: [urnOf("a")] });
    });
    expect(p.changes()).toEqual(["delete a id-1", "create a"]);
    expect(run.deployment.steps.find((x) => x.name === "g")?.op).toBe("same");
  });

  test("a cascade skips dependents already handled in this run (registered, pending delete)", async () => {
    const s = await stackOf([
      ["a", { size: 1, zone: "z1" }],
      ["b", { size: 1, zone: "z1" }, { dependencies: [urnOf("a")], propertyDependencies: { zone: [urnOf("a")] } }],
    ]);
    const pending: StateFile = { ...s, resources: [...s.resources, { ...(resource(s, "b") as NonNullable<ReturnType<typeof resource>>), id: "id-old", pendingDelete: true }] };
    const p = new FakeProvider(3);
    const run = await up(p, pending, async (r) => {
      await r.register("a", { size: 1, zone: "z2" }, { deleteBeforeReplace: true });
      await r.register("b", { size: 1, zone: "z2" }, { dependencies: [urnOf("a")], propertyDependencies: { zone: [urnOf("a")] } });
    });
    // The pending-delete copy of b is not part of the cascade; it is deleted at the end.
    expect(p.changes()).toEqual(["delete b id-2", "delete a id-1", "create a", "create b", "delete b id-old"]);
    expect(run.deployment.errors).toEqual([]);
  });
});

describe("pending replacement (step.go DeleteStep.Apply, continueStepsFromDiff, RemovePendingReplaceStep)", () => {
  /** A stack whose `a` (and its dependent `b`) an up deleted ahead of a delete-before-replace whose create failed. */
  async function pendingAfterFailedCreate(): Promise<StateFile> {
    const s = await stackOf([
      ["a", { size: 1, zone: "z1" }],
      ["b", { size: 1, zone: "z1" }, { dependencies: [urnOf("a")], propertyDependencies: { zone: [urnOf("a")] } }],
    ]);
    const p = new FakeProvider(3);
    p.faults.failCreate.add("a");
    const run = await up(p, s, async (r) => {
      await r.register("a", { size: 1, zone: "z2" }, { deleteBeforeReplace: true });
    });
    expect(p.changes()).toEqual(["delete b id-2", "delete a id-1", "create a"]);
    expect(run.deployment.errors).not.toEqual([]);
    return run.state();
  }

  /** The next up of that stack: `a` (deleteBeforeReplace as given) and its dependent `b`, both in `zone`. */
  async function upAgain(p: FakeProvider, zone: string, deleteBeforeReplace: boolean): Promise<Run> {
    return up(p, await pendingAfterFailedCreate(), async (r) => {
      await r.register("a", { size: 1, zone }, { deleteBeforeReplace });
      await r.register("b", { size: 1, zone }, { dependencies: [urnOf("a")], propertyDependencies: { zone: [urnOf("a")] } });
    });
  }

  test("a delete-before-replace whose create fails keeps the deleted resources in the state, pending replacement", async () => {
    const s = await pendingAfterFailedCreate();
    expect(s.resources.filter((r) => r.custom).map((r) => [r.name, r.id, r.pendingReplacement])).toEqual([
      ["a", "id-1", true],
      ["b", "id-2", true],
    ]);
    // A refresh does not read them (they were deleted): they stay as they are.
    const p = new FakeProvider(5);
    const run = new Run(p, s);
    await run.deployment.refresh();
    expect(p.calls.filter((c) => c.startsWith("read"))).toEqual([]);
    expect(run.state().resources.filter((r) => r.pendingReplacement).map((r) => r.name)).toEqual(["a", "b"]);
  });

  test("the next up replaces one pending replacement whatever its Diff says, without deleting it again", async () => {
    const p = new FakeProvider(5);
    // The program is back at the old zone: the Diff finds no change, the engine replaces all the same.
    const run = await upAgain(p, "z1", true);
    expect(run.deployment.errors).toEqual([]);
    expect(p.calls).toContain("diff a");
    // b is asked the dependents' question and deleted again (the real engine's DeleteReplacementStep calls Delete).
    expect(p.changes()).toEqual(["delete b id-2", "create a", "create b"]);
    expect(run.deployment.steps.filter((x) => x.name !== "proj-dev").map((x) => [x.name, x.op])).toEqual([["a", "replace"], ["b", "replace"]]);
    const after = run.state().resources.filter((r) => r.custom);
    expect(after.map((r) => [r.name, r.id, r.pendingReplacement ?? false])).toEqual([["a", "id-5", false], ["b", "id-6", false]]);
  });

  test("replaced create-before-delete, the old one gets its Delete call again (DeleteReplacementStep)", async () => {
    const p = new FakeProvider(5);
    const run = await upAgain(p, "z2", false);
    expect(run.deployment.errors).toEqual([]);
    expect(p.changes()).toEqual(["create a", "create b", "delete b id-2", "delete a id-1"]);
    expect(run.state().resources.filter((r) => r.custom).map((r) => r.id)).toEqual(["id-5", "id-6"]);
  });

  test("no longer declared, or destroyed: dropped from the state without a Delete call, protected or not", async () => {
    const s = await pendingAfterFailedCreate();
    const protectedA: StateFile = { ...s, resources: s.resources.map((r) => (r.name === "a" ? { ...r, protect: true } : r)) };
    const p = new FakeProvider(5);
    const run = await up(p, protectedA, async () => undefined);
    expect(run.deployment.errors).toEqual([]);
    expect(p.changes()).toEqual([]);
    expect(run.state().resources.filter((r) => r.custom)).toEqual([]);
    expect(run.text()).toContain("(pending replacement: deleted by an earlier run; removed from the state)");
    const p2 = new FakeProvider(5);
    const destroyed = new Run(p2, s);
    await destroyed.deployment.destroy();
    expect(p2.changes()).toEqual([]);
    expect(destroyed.state().resources.filter((r) => r.custom)).toEqual([]);
  });
});
