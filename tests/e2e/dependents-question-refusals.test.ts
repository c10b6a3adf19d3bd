/**
 * The engine's "would this dependent be replaced?" Diff (pulumi/pulumi pkg/resource/deploy/step_generator.go
 * calculateDependentReplacements): when a resource is replaced delete-before-replace, each dependent registered later in
 * the program is asked its Diff with the STATE's inputs (r.Inputs, the last up's), those that came from the replaced
 * resource made unknown, before the dependent's own Check: not what the program declares now. A refusal of an update
 * made there judges the last up's declaration, not the program's.
 */
import { show, simState, specSuite, vmArgs, admin, type Res } from "./spec-stack";

jest.setTimeout(300_000);
const suite = specSuite();

test("a dependent VM whose grown disk the program now declares: the up replacing its source VM delete-before-replace goes through", async () => {
  const s = await suite.newStack();
  // b's hostname comes from a's id: a's delete-before-replace makes it unknown in the engine's question to b
  const program = (a: Record<string, unknown>, b: Record<string, unknown>): Res[] => [
    { type: "Instance", name: "a", args: vmArgs("dq-a", a), opts: { deleteBeforeReplace: true } },
    { type: "Instance", name: "b", args: vmArgs("$id:a", b) },
  ];
  const up = await s.run("up", program({}, {}));
  expect(up.ok ? "" : show(up)).toBe("");
  const b = s.res("b")!.id!;
  await admin(suite.sim, "PATCH", `/instances/${b}`, { storage: 40 });
  const refresh = await s.run("refresh", program({}, {}));
  expect(refresh.ok ? "" : show(refresh)).toBe("");
  expect(s.res("b")!.outputs).toEqual(expect.objectContaining({ storage: 40 }));
  // the program now declares the disk b has, and a new template for a (a replace, delete-before-replace)
  const next = program({ templateId: 2 }, { storage: 40 });
  const preview = await s.run("preview", next);
  expect(preview.ok ? "" : show(preview)).toBe("");
  const up2 = await s.run("up", next);
  expect(up2.ok ? "" : show(up2)).toBe("");
  const a2 = s.res("a")!.id!;
  expect((await simState(suite.sim)).instances.find((i) => i.uuid === b)).toMatchObject({ storageGb: 40, hostname: a2 });
});

test("the same up with the program still declaring the smaller disk: preview and up refuse at the dependent's own Diff, naming it; its VM unchanged", async () => {
  const s = await suite.newStack();
  const program = (a: Record<string, unknown>): Res[] => [
    { type: "Instance", name: "a", args: vmArgs("dq-c", a), opts: { deleteBeforeReplace: true } },
    { type: "Instance", name: "d", args: vmArgs("$id:a") },
  ];
  const up = await s.run("up", program({}));
  expect(up.ok ? "" : show(up)).toBe("");
  const d = s.res("d")!.id!;
  await admin(suite.sim, "PATCH", `/instances/${d}`, { storage: 40 });
  const refresh = await s.run("refresh", program({}));
  expect(refresh.ok ? "" : show(refresh)).toBe("");
  const refusal = `pulumi-nodejs:dynamic/vmhost:Instance "d": instance ${d} has a 40 GB disk and the program declares storage: 20; disks cannot shrink.`;
  const preview = await s.run("preview", program({ templateId: 2 }));
  expect(preview.ok).toBe(false);
  expect(preview.errors.join("\n")).toContain(refusal);
  // The up replaces a as asked (the engine's question to d cannot know the program's storage), then refuses d before any write to it
  const up2 = await s.run("up", program({ templateId: 2 }));
  expect(up2.ok).toBe(false);
  expect(up2.errors.join("\n")).toContain(refusal);
  expect((await simState(suite.sim)).instances.find((i) => i.uuid === d)).toMatchObject({ storageGb: 40 });
});

test("a snapshot renamed in the panel, its VM replaced delete-before-replace: refused before anything is deleted, with a way out that works", async () => {
  const s = await suite.newStack();
  const program = (vm: Record<string, unknown>, name: string): Res[] => [
    { type: "Instance", name: "vm", args: vmArgs("dq-snap", vm), opts: { deleteBeforeReplace: true } },
    { type: "Snapshot", name: "snap", args: { instanceId: "$id:vm", name } },
  ];
  const up = await s.run("up", program({}, "base"));
  expect(up.ok ? "" : show(up)).toBe("");
  const snap = s.res("snap")!.id!;
  await admin(suite.sim, "PATCH", `/snapshots/${snap}`, { name: "keep-pre-incident" });
  const refresh = await s.run("refresh", program({}, "base"));
  expect(refresh.ok ? "" : show(refresh)).toBe("");
  // The program declares the panel's name now, and replaces the VM: the engine asks the snapshot with the last up's name
  const replaced = await s.run("up", program({ templateId: 2 }, "keep-pre-incident"));
  expect(replaced.ok).toBe(false);
  const said = replaced.errors.join("\n");
  expect(said).toContain(`Snapshot ${snap} was changed in the panel`);
  expect(said).toContain("pulumi up once without the change that replaces the VM");
  expect((await simState(suite.sim)).snapshots.find((x) => x.uuid === snap)).toMatchObject({ name: "keep-pre-incident" });
  // the way out it names: an up keeping the VM records the declaration (nothing sent), then the replacement goes through
  const kept = await s.run("up", program({}, "keep-pre-incident"));
  expect(kept.ok ? "" : show(kept)).toBe("");
  const again = await s.run("up", program({ templateId: 2 }, "keep-pre-incident"));
  expect(again.ok ? "" : show(again)).toBe("");
});
