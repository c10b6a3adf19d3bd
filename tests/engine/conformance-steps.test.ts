/**
 * Engine conformance, step decisions: each test mirrors one rule of the real Pulumi engine (pulumi/pulumi,
 * cited per test) with the fixture provider, so a provider bug the real engine would expose is exposed here.
 * Each test has its own fixture project (a fresh stack and cloud).
 */
import { changesOf, ItemSpec, useFixtureProject } from "./helpers";

// Each engine run starts two Node processes; on a loaded 2-core machine a test of several runs needs time.
jest.setTimeout(180_000);

const p = useFixtureProject("each");

const stateOf = (name: string) => p.state().resources.filter((r) => r.name === name);

// step.go CreateStep.Apply (partial failure keeps resp.Properties as the outputs) and
// provider_plugin.go Create (the error's properties, unmarshalled as they are): nothing is added.
test("1a. an init failure on create stores exactly the error's properties as outputs", async () => {
  p.editCloud((c) => {
    c.faults.initFailCreate = ["with", "bare"];
    c.faults.bareInitError = ["bare"];
  });
  // One failing resource per run: after the first failure a queued step would not run (test 1d).
  expect((await p.run("up", [{ name: "with", size: 1 }])).ok).toBe(false);
  // (a failed up deletes nothing, so "with" stays while this run's program declares only "bare")
  expect((await p.run("up", [{ name: "bare", size: 1 }])).ok).toBe(false);
  const withProvider = stateOf("with")[0];
  const bare = stateOf("bare")[0];
  expect(withProvider.initErrors).toEqual([expect.stringMatching(/failed to become ready/)]);
  // The fixture's error carries the item, an initFailed marker and (for "with") its __provider.
  expect(Object.keys(withProvider.outputs).sort()).toEqual([...Object.keys(p.item("with")!), "__provider", "initFailed"].sort());
  expect(bare.outputs.initFailed).toBe(true);
  expect(bare.outputs).not.toHaveProperty("__provider");
});

// engine/update.go OnResourceStepPost: a partially failed update persists the OLD inputs with the new
// outputs (pulumi/pulumi#2011); step_generator.go continueStepsFromDiff: init errors force an update next time.
test("1b. an init failure on update keeps the old inputs; the next up updates again", async () => {
  expect((await p.run("up", [{ name: "u", size: 1 }])).ok).toBe(true);
  p.editCloud((c) => {
    c.faults.initFailUpdate = ["u"];
  });
  const failed = await p.run("up", [{ name: "u", size: 2 }]);
  expect(failed.ok).toBe(false);
  const [u] = stateOf("u");
  expect(u.inputs.size).toBe(1);
  expect(u.outputs.size).toBe(2);
  expect(u.initErrors).toHaveLength(1);
  p.editCloud((c) => {
    c.faults = {};
    c.log = [];
  });
  const again = await p.run("up", [{ name: "u", size: 2 }]);
  expect(again.ok).toBe(true);
  expect(changesOf(again)).toEqual([["update", "u"]]);
  expect(p.cloud().log).toEqual(["update:u"]);
  expect(stateOf("u")[0]).toMatchObject({ inputs: expect.objectContaining({ size: 2 }) });
  expect(stateOf("u")[0].initErrors).toBeUndefined();
});

// step.go RefreshStep.Apply: `s.new.InitErrors = initErrors`, set only by a Read that reports a partial failure,
// which the Node dynamic-provider host's read never does (sdk/nodejs/cmd/dynamic-provider/index.ts, read). So a
// refresh clears the init errors, and the next up is forced into nothing: only the provider's Diff decides.
test("1c. a refresh whose read succeeds clears init errors; the next up follows the provider's diff alone", async () => {
  p.editCloud((c) => {
    c.faults.initFailCreate = ["flaky"];
  });
  const program: ItemSpec[] = [{ name: "flaky", size: 1 }];
  expect((await p.run("up", program)).ok).toBe(false);
  expect(stateOf("flaky")[0].initErrors).toHaveLength(1);
  p.editCloud((c) => {
    c.faults = {};
  });
  expect((await p.run("refresh", program)).ok).toBe(true);
  expect(stateOf("flaky")[0].initErrors).toBeUndefined();
  p.clearLog();
  // The fixture's diff compares inputs only: nothing differs, so nothing is done (the item stays "broken").
  const again = await p.run("up", program);
  expect(again.ok).toBe(true);
  expect(changesOf(again)).toEqual([]);
  expect(p.cloud().log).toEqual([]);
});

// step_executor.go: the first failed step cancels the executor's context (cancelDueToError), and executeChain
// checks it before each step, so steps still waiting for a worker are never applied.
test("1d. after a failed step, steps still waiting for a worker are not run", async () => {
  p.editCloud((c) => {
    c.faults.slowCreate = ["first"];
    c.faults.failCreate = ["first"];
  });
  const r = await p.run("up", [
    { name: "first", size: 1 },
    { name: "second", size: 1 },
  ], { parallel: 1 });
  expect(r.ok).toBe(false);
  expect(p.cloud().log).toEqual([]);
  expect(p.item("second")).toBeUndefined();
  expect(stateOf("second")).toEqual([]);
});

// step.go CreateStep.Apply: `s.old.Delete = true` (pending delete) is set only after the replacement's
// create succeeded or partly succeeded.
test("2. a create-before-delete replacement whose create fails keeps the old resource live", async () => {
  const v1: ItemSpec[] = [{ name: "cbd", size: 1 }];
  expect((await p.run("up", v1)).ok).toBe(true);
  const original = p.item("cbd")!.id;
  p.editCloud((c) => {
    c.faults.failCreate = ["cbd"];
  });
  const failed = await p.run("up", [{ name: "cbd", size: 1, zone: "z2" }]);
  expect(failed.ok).toBe(false);
  expect(failed.errors.join("\n")).toMatch(/quota exceeded/);
  expect(stateOf("cbd")).toEqual([expect.objectContaining({ id: original })]);
  expect(stateOf("cbd")[0].pendingDelete).toBeUndefined();
  // Reverting the program: nothing to do, the original stays.
  p.editCloud((c) => {
    c.faults = {};
    c.log = [];
  });
  const reverted = await p.run("up", v1);
  expect(reverted.ok).toBe(true);
  expect(changesOf(reverted)).toEqual([]);
  expect(p.cloud().log).toEqual([]);
  expect(p.item("cbd")!.id).toBe(original);
});

// step_generator.go applyReplaceOnChanges + diffResource: replaceOnChanges only turns keys the diff
// reports as changed into replacements. The Node dynamic-provider host sends no changed keys and no
// detailed diff, so with a provider that answers `changes: true` it has no effect; with a provider that
// answers neither true nor false (DIFF_UNKNOWN) the engine diffs the inputs itself and it applies.
test("3. replaceOnChanges applies only to keys the diff reports as changed", async () => {
  const v1: ItemSpec[] = [
    { name: "answers", size: 1, tags: { env: "a" }, replaceOnChanges: ["size"] },
    { name: "unknown", size: 1, tags: { env: "a" }, replaceOnChanges: ["tags.env"] },
  ];
  p.editCloud((c) => {
    c.faults.unknownDiff = ["unknown"];
  });
  expect((await p.run("up", v1)).ok).toBe(true);
  const ids = { answers: p.item("answers")!.id, unknown: p.item("unknown")!.id };

  // A size change: the answering provider's `changes: true` carries no keys, so it is an update; for the
  // other one size is not under replaceOnChanges, so also an update.
  const sizes = await p.run("up", [
    { ...v1[0], size: 2 },
    { ...v1[1], size: 2 },
  ]);
  expect(sizes.ok).toBe(true);
  expect(changesOf(sizes).sort()).toEqual([
    ["update", "answers"],
    ["update", "unknown"],
  ]);
  // tags.env changes under DIFF_UNKNOWN: the engine's own diff lists tags.env, so it is replaced.
  const tags = await p.run("up", [
    { ...v1[0], size: 2 },
    { ...v1[1], size: 2, tags: { env: "b" } },
  ]);
  expect(tags.ok).toBe(true);
  expect(tags.steps.find((s) => s.name === "unknown")).toMatchObject({ op: "replace", replaces: ["tags"] });
  expect(p.item("answers")!.id).toBe(ids.answers);
  expect(p.item("unknown")!.id).not.toBe(ids.unknown);
});

// step_generator.go continueStepsFromDiff: on replace, Check runs again with no olds and the program's
// raw inputs (goal.Properties): ignoreChanges does not apply to the new resource, defaults are recomputed.
test("4. a replacement is checked afresh: no olds, and ignoreChanges does not apply to it", async () => {
  const v1: ItemSpec[] = [{ name: "rep", size: 1, tags: { env: "prod" }, ignoreChanges: ["tags"] }];
  expect((await p.run("up", v1)).ok).toBe(true);
  const first = p.item("rep")!;
  const r = await p.run("up", [{ ...v1[0], tags: { env: "test" }, zone: "z2" }]);
  expect(r.ok).toBe(true);
  expect(changesOf(r)).toEqual([["replace", "rep"]]);
  const second = p.item("rep")!;
  expect(second.id).not.toBe(first.id);
  expect(second.tags).toEqual({ env: "test" }); // the program's value, not the ignored old one
  expect(second.label).not.toBe(first.label); // Check had no olds to keep the auto-name from
});

// step_generator.go continueStepsFromDiff: `if goal.DeleteBeforeReplace != nil` the program's value,
// true or false, overrides the provider's DeleteBeforeReplace.
test("8a. the program's deleteBeforeReplace (true or false) overrides the provider's", async () => {
  p.editCloud((c) => {
    c.faults.providerDbr = ["prov", "forced"];
  });
  const v1: ItemSpec[] = [
    { name: "prov", size: 1 },
    { name: "forced", size: 1, deleteBeforeReplace: false },
  ];
  expect((await p.run("up", v1)).ok).toBe(true);
  p.clearLog();
  const r = await p.run("up", v1.map((s) => ({ ...s, zone: "z2" })));
  expect(r.ok).toBe(true);
  const log = p.cloud().log;
  expect(log.filter((l) => l.endsWith(":prov"))).toEqual(["delete:prov", "create:prov"]);
  expect(log.filter((l) => l.endsWith(":forced"))).toEqual(["create:forced", "delete:forced"]);
});

// step_generator.go calculateDependentReplacements: before a delete-before-replace, the dependents whose
// inputs come from it and that the provider's Diff (those inputs unknown) would replace are deleted first,
// then re-created; a dependent through dependsOn only is left alone.
test("8b. delete-before-replace first deletes the dependents that must be replaced with it", async () => {
  const v1: ItemSpec[] = [
    { name: "base", size: 1, deleteBeforeReplace: true },
    { name: "follower", size: 1, zoneFrom: "base" },
    { name: "bystander", size: 1, dependsOn: ["base"] },
  ];
  expect((await p.run("up", v1)).ok).toBe(true);
  const bystander = p.item("bystander")!.id;
  p.clearLog();
  const v2 = v1.map((s) => (s.name === "base" ? { ...s, zone: "z7" } : s));
  const r = await p.run("up", v2);
  expect(r.errors).toEqual([]);
  expect(p.cloud().log).toEqual(["delete:follower", "delete:base", "create:base", "create:follower"]);
  expect(p.item("follower")?.zone).toBe("z7");
  expect(p.item("bystander")?.id).toBe(bystander);
  expect(changesOf(r).sort()).toEqual([
    ["replace", "base"],
    ["replace", "follower"],
  ]);
});

// step_generator.go continueStepsFromDiff: a replace is refused only when old AND new are protected, so
// unprotecting and replacing in one run works; step.go DeleteStep.Apply + step_executor.go
// cancelDueToError: a protected delete fails that resource only (deleteProtectedError continues).
test("9. protect: refuses a replace only when old and new are protected; a protected delete fails alone", async () => {
  const prot: ItemSpec = { name: "prot", size: 1, protect: true };
  expect((await p.run("up", [prot, { name: "other", size: 1 }])).ok).toBe(true);
  const id = p.item("prot")!.id;

  const refused = await p.run("up", [{ ...prot, zone: "z2" }, { name: "other", size: 1 }]);
  expect(refused.ok).toBe(false);
  expect(refused.errors.join("\n")).toMatch(/unable to replace .*prot.* marked for protection/);
  expect(p.item("prot")?.id).toBe(id);

  // Both removed from the program: "other" is deleted, "prot" is refused, the run fails.
  const removed = await p.run("up", []);
  expect(removed.ok).toBe(false);
  expect(removed.errors.join("\n")).toMatch(/prot.* cannot be deleted because it is protected/);
  expect(p.item("other")).toBeUndefined();
  expect(p.item("prot")?.id).toBe(id);

  // destroy refuses it too, and deletes nothing.
  const destroy = await p.run("destroy", []);
  expect(destroy.ok).toBe(false);
  expect(p.item("prot")?.id).toBe(id);

  // Unprotect and replace in the same run.
  const replaced = await p.run("up", [{ ...prot, protect: false, zone: "z2" }]);
  expect(replaced.ok).toBe(true);
  expect(p.item("prot")?.id).not.toBe(id);
  expect(p.item("prot")?.zone).toBe("z2");
});
