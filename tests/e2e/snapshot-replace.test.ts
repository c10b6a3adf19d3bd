/**
 * `pulumi up --replace` of a Snapshot, through the local engine and the real dynamic-provider host, checked against
 * the simulator's state. The engine skips Diff for it and replaces create-before-delete (pulumi/pulumi
 * pkg/resource/deploy/step_generator.go, diff() and isTargetedReplace), so the new snapshot meets the old one of its
 * name, which the provider cannot tell from one left by an interrupted up: refused, naming deleteBeforeReplace; with
 * that option the old one is deleted first and the replace goes through.
 */
import { admin, show, simState, specSuite, vmArgs, type Res } from "./spec-stack";

jest.setTimeout(300_000);
const suite = specSuite();

test("up --replace of a Snapshot says deleteBeforeReplace is needed (nothing changed), and with it replaces the snapshot", async () => {
  const program = (opts?: Record<string, unknown>): Res[] => [
    { type: "Instance", name: "vm", args: vmArgs("snap-replace") },
    { type: "Snapshot", name: "snap", args: { instanceId: "$id:vm", name: "base" }, ...(opts ? { opts } : {}) },
  ];
  const s = await suite.newStack();
  const up = await s.run("up", program());
  expect(up.ok ? "" : show(up)).toBe("");
  const vm = s.res("vm")!.id!;
  const first = s.res("snap")!.id!;
  const snapshots = async () => (await simState(suite.sim)).snapshots.filter((x) => x.instanceUuid === vm).map((x) => x.uuid);

  const refused = await s.run("up", program(), { replace: [s.res("snap")!.urn] });
  expect(refused.ok).toBe(false);
  expect(refused.errors.join("\n")).toContain(
    "(Replacing this Snapshot with `pulumi up --replace` keeping its name needs the resource option deleteBeforeReplace: true",
  );
  expect(await snapshots()).toEqual([first]);
  expect(s.res("snap")!.id).toBe(first);

  const replaced = await s.run("up", program({ deleteBeforeReplace: true }), { replace: [s.res("snap")!.urn] });
  expect(replaced.ok ? "" : show(replaced)).toBe("");
  const second = s.res("snap")!.id!;
  expect(second).not.toBe(first);
  expect(await snapshots()).toEqual([second]);
  const destroy = await s.run("destroy", program({ deleteBeforeReplace: true }));
  expect(destroy.ok ? "" : show(destroy)).toBe("");
});

// audit F2: a snapshot renamed in the panel, then what examples/ci runs on every merge (`pulumi up --yes --refresh`)
// took a new snapshot of the disk as it is now and deleted this restore point, without asking.
test("a snapshot renamed in the panel survives up --refresh: preview and up fail naming the panel's name (a refresh alone records it); declaring it settles, without drift", async () => {
  const program = (name: string, opts?: Record<string, unknown>): Res[] => [
    { type: "Instance", name: "vm", args: vmArgs("snap-panel") },
    { type: "Snapshot", name: "snap", args: { instanceId: "$id:vm", name }, ...(opts ? { opts } : {}) },
  ];
  const s = await suite.newStack();
  const up = await s.run("up", program("baseline"));
  expect(up.ok ? "" : show(up)).toBe("");
  const vm = s.res("vm")!.id!;
  const original = s.res("snap")!.id!;
  const snapshots = async () => (await simState(suite.sim)).snapshots.filter((x) => x.instanceUuid === vm).map((x) => [x.uuid, x.name]);
  // zero false drift right after the up
  const clean = await s.run("preview", program("baseline"), { refresh: true, expectNoChanges: true });
  expect(clean.ok ? "" : show(clean)).toBe("");

  await admin(suite.sim, "PATCH", `/snapshots/${original}`, { name: "keep-pre-incident" });
  const refusal = `snapshot ${original} of instance ${vm}: its name is "keep-pre-incident" and the program declares "baseline". It was changed outside Pulumi (in the panel).`;
  // the drift check fails, and so does the preview a pull request runs: with the refusal the up would meet, before any
  // change (never a replace); the refresh's own Diff only shows the drift
  for (const expectNoChanges of [true, false]) {
    const check = await s.run("preview", program("baseline"), { refresh: true, expectNoChanges });
    expect(check.ok).toBe(false);
    expect(check.errors.join("\n")).toContain(refusal);
    expect(check.summary).toEqual(expect.objectContaining({ replace: 0, create: 0, delete: 0 }));
  }

  const ci = await s.run("up", program("baseline"), { refresh: true });
  expect(ci.ok).toBe(false);
  expect(ci.errors.join("\n")).toContain(refusal);
  expect(ci.errors.join("\n")).toContain('To keep it, declare name: "keep-pre-incident"');
  expect(await snapshots()).toEqual([[original, "keep-pre-incident"]]);
  // and again (the refreshed state is kept; the diff still tells the panel's change from the program's), also after a
  // `pulumi refresh` of its own (it succeeds: the engine shows a refresh through the provider's Diff) and a plain up
  const refresh = await s.run("refresh", program("baseline"));
  expect(refresh.ok ? "" : show(refresh)).toBe("");
  const again = await s.run("up", program("baseline"));
  expect(again.ok).toBe(false);
  expect(again.errors.join("\n")).toContain(`its name is "keep-pre-incident" and the program declares "baseline"`);
  expect(await snapshots()).toEqual([[original, "keep-pre-incident"]]);

  // the fix the message names: declare the panel's name. Nothing is sent; then no drift.
  const settled = await s.run("up", program("keep-pre-incident"), { refresh: true });
  expect(settled.ok ? "" : show(settled)).toBe("");
  expect(s.res("snap")!.id).toBe(original);
  expect(await snapshots()).toEqual([[original, "keep-pre-incident"]]);
  const quiet = await s.run("preview", program("keep-pre-incident"), { refresh: true, expectNoChanges: true });
  expect(quiet.ok ? "" : show(quiet)).toBe("");

  // a rename in the program is still a replace (preview shows it), and the old snapshot goes
  const renamed = await s.run("up", program("next"), { refresh: true });
  expect(renamed.ok ? "" : show(renamed)).toBe("");
  const next = s.res("snap")!.id!;
  expect(next).not.toBe(original);
  expect(await snapshots()).toEqual([[next, "next"]]);
  const destroy = await s.run("destroy", program("next"));
  expect(destroy.ok ? "" : show(destroy)).toBe("");
});

// ignoreChanges ["name"] kept the panel's name as the program's, and the diff took that for a new declaration to record:
// every rename in the panel was drift (an update at `preview --refresh --expect-no-changes`, also after `pulumi refresh`)
// until an up recorded it, although the option promises the panel's changes are kept without drift.
test("a snapshot renamed in the panel with ignoreChanges on name: no drift, nothing recorded; without the option the rename is refused again", async () => {
  const program = (opts?: Record<string, unknown>): Res[] => [
    { type: "Instance", name: "vm", args: vmArgs("snap-ignore") },
    { type: "Snapshot", name: "snap", args: { instanceId: "$id:vm", name: "baseline" }, ...(opts ? { opts } : {}) },
  ];
  const ignoring = program({ ignoreChanges: ["name"] });
  const s = await suite.newStack();
  const up = await s.run("up", ignoring);
  expect(up.ok ? "" : show(up)).toBe("");
  const vm = s.res("snap")!.outputs!.instanceId as string;
  const original = s.res("snap")!.id!;
  const snapshots = async () => (await simState(suite.sim)).snapshots.filter((x) => x.instanceUuid === vm).map((x) => [x.uuid, x.name]);

  await admin(suite.sim, "PATCH", `/snapshots/${original}`, { name: "keep-pre-incident" });
  const check = await s.run("preview", ignoring, { refresh: true, expectNoChanges: true });
  expect(check.ok ? "" : show(check)).toBe("");
  // a refresh of its own records the panel's name; no drift after it either
  const refresh = await s.run("refresh", ignoring);
  expect(refresh.ok ? "" : show(refresh)).toBe("");
  expect(s.res("snap")!.outputs).toEqual(expect.objectContaining({ name: "keep-pre-incident", declaredName: "baseline" }));
  const quiet = await s.run("preview", ignoring, { expectNoChanges: true });
  expect(quiet.ok ? "" : show(quiet)).toBe("");
  const ci = await s.run("up", ignoring, { refresh: true });
  expect(ci.ok ? "" : show(ci)).toBe("");
  expect(ci.summary).toEqual(expect.objectContaining({ update: 0, replace: 0, create: 0, delete: 0 }));
  expect(s.res("snap")!.outputs).toEqual(expect.objectContaining({ name: "keep-pre-incident", declaredName: "baseline" }));
  expect(await snapshots()).toEqual([[original, "keep-pre-incident"]]);

  // the option removed: the program still declares "baseline", the panel's rename is refused as documented (never a replace)
  const refusal = `snapshot ${original} of instance ${vm}: its name is "keep-pre-incident" and the program declares "baseline". It was changed outside Pulumi (in the panel).`;
  const drift = await s.run("preview", program(), { refresh: true, expectNoChanges: true });
  expect(drift.ok).toBe(false);
  expect(drift.errors.join("\n")).toContain(refusal);
  expect(drift.summary).toEqual(expect.objectContaining({ replace: 0, create: 0, delete: 0 }));
  const refused = await s.run("up", program(), { refresh: true });
  expect(refused.ok).toBe(false);
  expect(refused.errors.join("\n")).toContain(refusal);
  expect(await snapshots()).toEqual([[original, "keep-pre-incident"]]);
  const destroy = await s.run("destroy", program());
  expect(destroy.ok ? "" : show(destroy)).toBe("");
});
