/**
 * Engine conformance, whole runs: refresh, deletion scheduling, parallelism, aliases, interruption,
 * --replace and --target. Each test mirrors one rule of the real Pulumi engine (pulumi/pulumi, cited per
 * test) with the fixture provider, in its own fixture project.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { defaultParallel } from "../../tools/local-engine/deployment";
import { changesOf, FIXTURE_API_KEY, ItemSpec, useFixtureProject } from "./helpers";

// Each engine run starts two Node processes; on a loaded 2-core machine a test of several runs needs time.
jest.setTimeout(180_000);

const p = useFixtureProject("each");

/** Deletes that overlapped: a begin-delete logged while another delete had begun and not yet finished. */
function maxConcurrentDeletes(log: string[]): number {
  let running = 0;
  let max = 0;
  for (const l of log) {
    if (l.startsWith("begin-delete:")) max = Math.max(max, ++running);
    else if (l.startsWith("delete:") && log.includes(`begin-${l}`)) running--;
  }
  return max;
}

// step.go RefreshStep.Apply / ResultOp: drift is the provider's Diff of the refreshed state against the old
// inputs (what an up of the unchanged program would do); outputs that moved without such a diff are
// taken into the state but are not drift.
test("5. refresh: drift is decided by the provider's Diff, not by outputs that moved", async () => {
  const program: ItemSpec[] = [{ name: "r", size: 1 }];
  expect((await p.run("up", program)).ok).toBe(true);
  p.editCloud((c) => {
    Object.values(c.items)[0].status = "rebooted"; // an output only: the diff ignores it
  });
  const quiet = await p.run("refresh", program);
  expect(quiet.ok).toBe(true);
  expect(quiet.drift).toEqual([]);
  expect(quiet.summary.update).toBe(0);
  expect(p.state().resources.find((r) => r.name === "r")?.outputs.status).toBe("rebooted");

  p.editCloud((c) => {
    Object.values(c.items)[0].size = 4; // an input: the diff sees it
  });
  const drifted = await p.run("refresh", program);
  expect(drifted.drift).toEqual([expect.objectContaining({ name: "r", properties: [{ name: "size", old: "1", new: "4" }] })]);
  expect(drifted.summary.update).toBe(1);
});

// step_generator.go ScheduleDeletes + deployment_executor.go performPostSteps: deletions run dependency
// level by level, each level in parallel (destroy too).
test("6. deletes run in parallel level by level: dependents first, independent ones together", async () => {
  const program: ItemSpec[] = [
    { name: "net", size: 1 },
    { name: "vm1", size: 1, dependsOn: ["net"] },
    { name: "vm2", size: 1, dependsOn: ["net"] },
    { name: "vm3", size: 1, dependsOn: ["net"] },
  ];
  expect((await p.run("up", program)).ok).toBe(true);
  p.editCloud((c) => {
    c.faults.slowDelete = ["net", "vm1", "vm2", "vm3"];
    c.log = [];
  });
  const r = await p.run("destroy", []);
  expect(r.ok).toBe(true);
  const log = p.cloud().log;
  expect(maxConcurrentDeletes(log)).toBe(3);
  // net starts only after its three dependents are gone.
  const netStart = log.indexOf("begin-delete:net");
  for (const vm of ["vm1", "vm2", "vm3"]) expect(log.indexOf(`delete:${vm}`)).toBeLessThan(netStart);
  expect(p.cloud().items).toEqual({});
  expect(p.state().resources).toEqual([]);
});

// deployment.go Options.DegreeOfParallelism + step_executor.go newStepExecutor: at most `parallel`
// steps at once; the default is PULUMI_PARALLEL, else 4 per CPU (cmd/pulumi/operations/up.go defaultParallel).
test("7. a bounded worker pool: --parallel 1 runs one delete at a time; the default is Pulumi's", async () => {
  expect(defaultParallel({ PULUMI_PARALLEL: "3" })).toBe(3);
  expect(defaultParallel({})).toBe(os.availableParallelism() * 4);
  const program: ItemSpec[] = [
    { name: "a", size: 1 },
    { name: "b", size: 1 },
    { name: "c", size: 1 },
  ];
  expect((await p.run("up", program)).ok).toBe(true);
  p.editCloud((c) => {
    c.faults.slowDelete = ["a", "b", "c"];
    c.log = [];
  });
  expect((await p.run("destroy", [], { parallel: 1 })).ok).toBe(true);
  expect(maxConcurrentDeletes(p.cloud().log)).toBe(1);
  expect(p.cloud().items).toEqual({});
});

// step_generator.go getOldResource: an old resource is found by URN, then by the registration's aliases,
// and is taken over (not deleted and re-created).
test("11. a rename with an alias keeps the resource", async () => {
  expect((await p.run("up", [{ name: "old-name", size: 1 }])).ok).toBe(true);
  const id = p.item("old-name")!.id;
  p.clearLog();
  const r = await p.run("up", [{ name: "new-name", itemName: "old-name", size: 1, aliases: ["old-name"] }]);
  expect(r.errors).toEqual([]);
  expect(changesOf(r)).toEqual([]);
  expect(p.cloud().log).toEqual([]);
  const names = p.state().resources.map((s) => s.name);
  expect(names).toContain("new-name");
  expect(names).not.toContain("old-name");
  expect(p.state().resources.find((s) => s.name === "new-name")?.id).toBe(id);
});

// backend/snapshot.go (BeginMutation writes the operation as pending; snap() keeps pending CREATEs of the
// base snapshot) + deploy/deployment_executor.go printPendingOperationsWarning + cmd/pulumi/operations/
// refresh.go (--clear-pending-creates): an interrupted run leaves its operations pending in the state; the
// next up warns about them; only a refresh that clears them removes pending creates.
test("12. interruption: operations under way are recorded as pending and reported by the next run", async () => {
  p.editCloud((c) => {
    c.faults.slowCreate = ["slow"];
  });
  const cancel = new AbortController();
  const running = p.run("up", [{ name: "slow", size: 1 }], { signal: cancel.signal });
  // The state as a kill would leave it: written when the create started.
  let killedState = "";
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    const text = fs.existsSync(p.stateFile) ? p.stateText() : "";
    if (text.includes('"creating"')) {
      killedState = text;
      break;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  expect(JSON.parse(killedState).pending_operations).toEqual([
    expect.objectContaining({ type: "creating", resource: expect.objectContaining({ urn: p.urn("slow") }) }),
  ]);
  // A graceful cancel (first Ctrl-C): the create under way finishes and is recorded; nothing stays pending.
  cancel.abort();
  const cancelled = await running;
  expect(cancelled.ok).toBe(false);
  expect(cancelled.errors.join("\n")).toMatch(/update canceled/);
  expect(p.state().pending_operations).toBeUndefined();
  expect(p.state().resources.map((r) => r.name)).toContain("slow");

  // As if the process had been killed during the create.
  fs.writeFileSync(p.stateFile, killedState);
  const next = await p.run("up", [{ name: "slow", size: 1 }]);
  expect(next.stdout).toMatch(/1 pending operations from previous deployment[\s\S]*Item::slow, interrupted while creating/);
  expect(p.state().pending_operations).toEqual([expect.objectContaining({ type: "creating" })]);
  expect((await p.run("refresh", [])).ok).toBe(true);
  expect(p.state().pending_operations).toHaveLength(1);
  expect((await p.run("refresh", [], { clearPendingCreates: true })).ok).toBe(true);
  expect(p.state().pending_operations).toBeUndefined();
});

// The CLI as the Pulumi CLI on signals: the first SIGINT cancels gracefully, the second terminates at once
// (cmd/pulumi: "^C received; ... press ^C again to terminate immediately"), leaving the operation under way
// pending in the state; the next run takes the dead run's lock over and warns.
test("12b. the command line: a second SIGINT exits at once, leaving the create pending", async () => {
  p.editCloud((c) => {
    c.faults.hangCreate = ["stuck"];
  });
  const program: ItemSpec[] = [{ name: "stuck", size: 1 }];
  const child = spawn(
    process.execPath,
    [
      path.join(__dirname, "fixtures", "run-cli.js"),
      "up",
      "--cwd", p.dir,
      "--config", `fixture:resources=${JSON.stringify(program)}`,
      "--config", `fixture:cloudFile=${p.cloudFile}`,
      "--secret", `fixture:apiKey=${FIXTURE_API_KEY}`,
      "--secret", "fixture:password=unused",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  let stdout = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    if (fs.existsSync(p.stateFile) && p.stateText().includes('"creating"')) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  child.kill("SIGINT");
  // (Two signals sent back to back may be merged into one by the OS: wait for the first to be taken.)
  for (const deadline = Date.now() + 30_000; Date.now() < deadline && !stdout.includes("cancelling"); ) {
    await new Promise((r) => setTimeout(r, 20));
  }
  expect(stdout).toContain("cancelling");
  child.kill("SIGINT");
  const code = await Promise.race([exited, new Promise<string>((r) => setTimeout(() => r("still running"), 30_000))]);
  if (code === "still running") child.kill("SIGKILL");
  expect(code).toBe(1);
  expect(stderr).toContain("terminating immediately");
  expect(p.state().pending_operations).toEqual([
    expect.objectContaining({ type: "creating", resource: expect.objectContaining({ urn: p.urn("stuck") }) }),
  ]);
  p.editCloud((c) => {
    c.faults = {};
  });
  const next = await p.run("up", program);
  expect(next.ok).toBe(true);
  expect(next.stdout).toMatch(/pending operations from previous deployment/);
});

// step_generator.go isTargetedReplace + diff(): --replace replaces the resource whatever the diff says,
// blaming "id"; checkTargets refuses a URN that is not in the stack.
test("13a. --replace <urn> replaces a resource that has no changes", async () => {
  const program: ItemSpec[] = [
    { name: "x", size: 1 },
    { name: "y", size: 1 },
  ];
  expect((await p.run("up", program)).ok).toBe(true);
  const ids = { x: p.item("x")!.id, y: p.item("y")!.id };
  const r = await p.run("up", program, { replace: [p.urn("x")] });
  expect(r.ok).toBe(true);
  expect(r.steps.find((s) => s.name === "x")).toMatchObject({ op: "replace", replaces: ["id"] });
  expect(p.item("x")!.id).not.toBe(ids.x);
  expect(p.item("y")!.id).toBe(ids.y);
  const unknown = await p.run("up", program, { replace: [p.urn("nope")] });
  expect(unknown.ok).toBe(false);
  expect(unknown.errors.join("\n")).toMatch(/Item::nope.*could not be found/);
});

// step_generator.go continueStepsFromImport (untargeted: same step, no Check or Diff; not created) and
// GenerateDeletes (only targeted resources are deleted).
test("13b. --target changes only the targeted resources", async () => {
  const v1: ItemSpec[] = [
    { name: "t", size: 1 },
    { name: "u", size: 1 },
    { name: "gone", size: 1 },
  ];
  expect((await p.run("up", v1)).ok).toBe(true);
  p.clearLog();
  const v2: ItemSpec[] = [
    { name: "t", size: 2 },
    { name: "u", size: 2 },
    { name: "fresh", size: 1 },
  ];
  const r = await p.run("up", v2, { targets: [p.urn("t")] });
  expect(r.errors).toEqual([]);
  expect(changesOf(r)).toEqual([["update", "t"]]);
  expect(p.cloud().log).toEqual(["update:t"]);
  expect(p.item("u")?.size).toBe(1);
  expect(p.item("fresh")).toBeUndefined();
  expect(p.item("gone")).toBeDefined();
  expect(p.state().resources.map((s) => s.name).sort()).toEqual(["fixture-dev", "gone", "t", "u"]);
  // Targeting the removed one deletes it, and only it.
  p.clearLog();
  expect((await p.run("up", v2, { targets: [p.urn("gone")] })).ok).toBe(true);
  expect(p.cloud().log).toEqual(["delete:gone"]);
});

// step_generator.go GenerateDeletes + determineAllowedResourcesToDeleteFromTargets: a target's dependents
// (getTargetDependents: dependsOn, property dependencies, deletedWith, children) are deleted with it, and each
// one not in the --target list is refused (diag 2014) before anything is deleted, unless --target-dependents;
// step.go DeleteStep.Apply isDeletedWith: no Delete call for one deleted with another of the same run.
test("13c. destroy --target of a resource with dependents: refused unless listed or --target-dependents", async () => {
  const program: ItemSpec[] = [
    { name: "vm", size: 1 },
    { name: "ip", size: 1, deletedWith: "vm" },
    { name: "fw", size: 1, dependsOn: ["vm"] },
    { name: "other", size: 1 },
  ];
  expect((await p.run("up", program)).ok).toBe(true);
  p.clearLog();
  const refused = await p.run("destroy", program, { targets: [p.urn("vm")] });
  expect(refused.ok).toBe(false);
  expect(refused.errors).toEqual(
    ["ip", "fw"].map(
      (n) =>
        `Resource '${p.urn(n)}' will be destroyed but was not specified in --target list.\n` +
        "Either include resource in --target list or pass --target-dependents to proceed.",
    ),
  );
  expect(p.cloud().log).toEqual([]);
  expect(p.state().resources.map((r) => r.name).sort()).toEqual(["fixture-dev", "fw", "ip", "other", "vm"]);

  const r = await p.run("destroy", program, { targets: [p.urn("vm")], targetDependents: true });
  expect(r.errors).toEqual([]);
  expect(changesOf(r).sort()).toEqual([["delete", "fw"], ["delete", "ip"], ["delete", "vm"]]);
  // ip goes with vm (no Delete call of its own); fw before vm.
  expect(p.cloud().log.filter((l) => l.startsWith("delete:"))).toEqual(["delete:fw", "delete:vm"]);
  expect(p.state().resources.map((r) => r.name).sort()).toEqual(["fixture-dev", "other"]);
});

// step_generator.go GenerateDeletes: the old half of a replacement (res.Delete, NewDeleteReplacementStep) has a
// targeted URN, so it is deleted; the 2014 refusal concerns only URNs outside the --target list, and untargeted
// dependents (registered: same steps) keep their old state.
test("13d. up --target of a replaced resource deletes the old one even though untargeted ones depend on it", async () => {
  const v1: ItemSpec[] = [
    { name: "vm", size: 1, zone: "z1" },
    { name: "fw", size: 1, dependsOn: ["vm"] },
  ];
  expect((await p.run("up", v1)).ok).toBe(true);
  const oldId = p.item("vm")!.id;
  const v2: ItemSpec[] = [
    { name: "vm", size: 1, zone: "z2" },
    { name: "fw", size: 2, dependsOn: ["vm"] },
  ];
  const r = await p.run("up", v2, { targets: [p.urn("vm")] });
  expect(r.errors).toEqual([]);
  expect(r.ok).toBe(true);
  expect(changesOf(r)).toEqual([["replace", "vm"]]);
  const vms = Object.values(p.cloud().items).filter((i) => i.name === "vm");
  expect(vms).toHaveLength(1);
  expect(vms[0].id).not.toBe(oldId);
  expect(p.item("fw")?.size).toBe(1);
  expect(p.state().resources.filter((s) => s.name === "vm" && s.pendingDelete)).toEqual([]);
});
