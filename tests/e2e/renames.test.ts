/**
 * Renames through the local engine and the real dynamic-provider host: names move between VMs of one stack in one
 * up, whatever order the engine runs the steps in (it orders them by dependencies the provider cannot see), and a
 * new Instance may take a name another one leaves in the same up.
 */
import { admin, show, simState, specSuite, vmArgs, type Res } from "./spec-stack";

jest.setTimeout(300_000);
const suite = specSuite();
const names = async (ids: string[]) => Object.fromEntries((await simState(suite.sim)).instances.filter((i) => ids.includes(i.uuid)).map((i) => [i.uuid, i.hostname]));

test("a rename chain between dependent VMs goes through in one up (b takes a's name while a, which depends on b, leaves it)", async () => {
  const before: Res[] = [
    { type: "Instance", name: "b", args: vmArgs("chain-new") },
    { type: "Instance", name: "a", args: vmArgs("chain-web"), opts: { dependsOn: ["b"] } },
  ];
  const s = await suite.newStack();
  const up = await s.run("up", before);
  expect(up.ok ? "" : show(up)).toBe("");
  const [a, b] = [s.res("a")!.id!, s.res("b")!.id!];
  const after: Res[] = [
    { type: "Instance", name: "b", args: vmArgs("chain-web") },
    { type: "Instance", name: "a", args: vmArgs("chain-old"), opts: { dependsOn: ["b"] } },
  ];
  const renamed = await s.run("up", after);
  expect(renamed.ok ? "" : show(renamed)).toBe("");
  expect(await names([a, b])).toEqual({ [a]: "chain-old", [b]: "chain-web" });
});

test("a new Instance takes the name another Instance leaves in the same up", async () => {
  const before: Res[] = [{ type: "Instance", name: "old", args: vmArgs("freed-e2e") }];
  const s = await suite.newStack();
  const up = await s.run("up", before);
  expect(up.ok ? "" : show(up)).toBe("");
  const old = s.res("old")!.id!;
  const after: Res[] = [
    { type: "Instance", name: "old", args: vmArgs("freed-e2e-old") },
    { type: "Instance", name: "new", args: vmArgs("freed-e2e") },
  ];
  const renamed = await s.run("up", after);
  expect(renamed.ok ? "" : show(renamed)).toBe("");
  const fresh = s.res("new")!.id!;
  expect(await names([old, fresh])).toEqual({ [old]: "freed-e2e-old", [fresh]: "freed-e2e" });
  const check = await s.run("preview", after, { refresh: true, expectNoChanges: true });
  expect(check.ok ? "" : show(check)).toBe("");
});

test("a new Instance declared before the one that leaves its name still gets it (the leaving VM's diff comes while it lists)", async () => {
  const before: Res[] = [{ type: "Instance", name: "old", args: vmArgs("ord-web") }];
  const s = await suite.newStack();
  const up = await s.run("up", before);
  expect(up.ok ? "" : show(up)).toBe("");
  const old = s.res("old")!.id!;
  const after: Res[] = [
    { type: "Instance", name: "new", args: vmArgs("ord-web") },
    { type: "Instance", name: "old", args: vmArgs("ord-web-old") },
  ];
  const renamed = await s.run("up", after);
  expect(renamed.ok ? "" : show(renamed)).toBe("");
  const fresh = s.res("new")!.id!;
  expect(await names([old, fresh])).toEqual({ [old]: "ord-web-old", [fresh]: "ord-web" });
});

test("a new Instance takes the name of a VM renamed by an Instance that waits for another resource (diffed after the create began)", async () => {
  // `old` depends on `slow`, which is resized: the SDK registers `old` only once `slow`'s update is done, so the
  // engine diffs it (and learns of the rename) after `new` has listed its hostname (rename audit: refused at every up)
  const before: Res[] = [
    { type: "Instance", name: "slow", args: vmArgs("late-slow") },
    { type: "Instance", name: "old", args: vmArgs("late-web"), opts: { dependsOn: ["slow"] } },
  ];
  const s = await suite.newStack();
  const up = await s.run("up", before);
  expect(up.ok ? "" : show(up)).toBe("");
  const old = s.res("old")!.id!;
  const after: Res[] = [
    { type: "Instance", name: "slow", args: vmArgs("late-slow", { cpu: 2, memory: 2 }) },
    { type: "Instance", name: "old", args: vmArgs("late-web-old"), opts: { dependsOn: ["slow"] } },
    { type: "Instance", name: "new", args: vmArgs("late-web") },
  ];
  const renamed = await s.run("up", after);
  expect(renamed.ok ? "" : show(renamed)).toBe("");
  const fresh = s.res("new")!.id!;
  expect(await names([old, fresh])).toEqual({ [old]: "late-web-old", [fresh]: "late-web" });
  const check = await s.run("preview", after, { refresh: true, expectNoChanges: true });
  expect(check.ok ? "" : show(check)).toBe("");
});

describe.each([false, true])("a hostname change with a replace while a new Instance takes the old name (deleteBeforeReplace %s)", (deleteBeforeReplace) => {
  test("goes through in one up: the replaced VM is no stranger under its old name", async () => {
    const tag = deleteBeforeReplace ? "dbr" : "cbd";
    const before: Res[] = [{ type: "Instance", name: "old", args: vmArgs(`rr-${tag}`), opts: { deleteBeforeReplace } }];
    const s = await suite.newStack();
    const up = await s.run("up", before);
    expect(up.ok ? "" : show(up)).toBe("");
    const replaced = s.res("old")!.id!;
    const after: Res[] = [
      { type: "Instance", name: "old", args: vmArgs(`rr-${tag}-old`, { templateId: 2 }), opts: { deleteBeforeReplace } },
      { type: "Instance", name: "new", args: vmArgs(`rr-${tag}`) },
    ];
    const r = await s.run("up", after);
    expect(r.ok ? "" : show(r)).toBe("");
    const [replacement, fresh] = [s.res("old")!.id!, s.res("new")!.id!];
    const vms = (await simState(suite.sim)).instances.filter((i) => i.hostname.startsWith(`rr-${tag}`));
    expect(vms.map((i) => [i.uuid, i.hostname]).sort()).toEqual([[replacement, `rr-${tag}-old`], [fresh, `rr-${tag}`]].sort());
    expect(vms.map((i) => i.uuid)).not.toContain(replaced);
    const check = await s.run("preview", after, { refresh: true, expectNoChanges: true });
    expect(check.ok ? "" : show(check)).toBe("");
  });
});

test("adopting the VM another Instance manages is refused before anything is recorded, also when that Instance is diffed late", async () => {
  // `old` waits for `slow`, so the engine reaches `new`'s adopting create first: it waits for the up's other operations,
  // learns from `old`'s diff that the VM is `old`'s, and refuses (audit: both recorded it; removing `new` from the
  // program then deleted the VM `old` still declared)
  const before: Res[] = [
    { type: "Instance", name: "slow", args: vmArgs("two-slow") },
    { type: "Instance", name: "old", args: vmArgs("two-web"), opts: { dependsOn: ["slow"] } },
  ];
  const s = await suite.newStack();
  const up = await s.run("up", before);
  expect(up.ok ? "" : show(up)).toBe("");
  const old = s.res("old")!.id!;
  const after: Res[] = [
    { type: "Instance", name: "slow", args: vmArgs("two-slow", { cpu: 2, memory: 2 }) },
    { type: "Instance", name: "old", args: vmArgs("two-web-old"), opts: { dependsOn: ["slow"] } },
    { type: "Instance", name: "new", args: vmArgs("two-web", { adoptId: old }) },
  ];
  const r = await s.run("up", after);
  expect(r.ok).toBe(false);
  expect(r.errors.join("\n")).toContain(`adoptId: Instance ${old} belongs to another resource of this stack`);
  expect(s.res("new")).toBeUndefined();
  expect(s.state().resources.filter((x) => x.id === old).map((x) => x.name)).toEqual(["old"]);
  // the way out: no adoptId; `new` gets a VM of its own once `old` has left the name
  const fixed = after.map((x) => (x.name === "new" ? { ...x, args: vmArgs("two-web") } : x));
  const again = await s.run("up", fixed);
  expect(again.ok ? "" : show(again)).toBe("");
  const fresh = s.res("new")!.id!;
  expect(await names([old, fresh])).toEqual({ [old]: "two-web-old", [fresh]: "two-web" });
});

test("a new Instance takes the name of a VM another Instance adopts and renames away in the same up", async () => {
  const seeded = await admin<{ data: { uuid: string } }>(suite.sim, "POST", "/instances", {
    hostname: "arn-web", locationId: 1, tierId: 1, templateId: 1, cpu: 1, memory: 1, storage: 20, username: "deploy",
  });
  const x = seeded.data.uuid;
  const program: Res[] = [
    { type: "Instance", name: "legacy", args: vmArgs("arn-legacy", { adoptId: x }) },
    { type: "Instance", name: "web", args: vmArgs("arn-web") },
  ];
  const s = await suite.newStack();
  const up = await s.run("up", program);
  expect(up.ok ? "" : show(up)).toBe("");
  const web = s.res("web")!.id!;
  expect(await names([x, web])).toEqual({ [x]: "arn-legacy", [web]: "arn-web" });
});

test("with --parallel 1, a create waiting for a rename that cannot start fails at once, and its advice works", async () => {
  // `new` takes the only step slot and waits for `old` to leave the name; `old`'s update (after `dep`'s) can never
  // run meanwhile (audit: the create waited to its deadline, 30 minutes by default)
  const before: Res[] = [
    { type: "Instance", name: "dep", args: vmArgs("par-dep") },
    { type: "Instance", name: "old", args: vmArgs("par-web"), opts: { dependsOn: ["dep"] } },
  ];
  const s = await suite.newStack();
  const up = await s.run("up", before);
  expect(up.ok ? "" : show(up)).toBe("");
  const old = s.res("old")!.id!;
  const after: Res[] = [
    { type: "Instance", name: "dep", args: vmArgs("par-dep", { cpu: 2 }) },
    { type: "Instance", name: "old", args: vmArgs("par-web-old"), opts: { dependsOn: ["dep"] } },
    { type: "Instance", name: "new", args: vmArgs("par-web", { timeouts: { create: "10m" } }) },
  ];
  const r = await s.run("up", after, { parallel: 1 });
  expect(r.ok).toBe(false);
  expect(r.errors.join("\n")).toMatch(/that update has not started while nothing else of this up runs[\s\S]*give this Instance dependsOn on the renaming Instance/);
  expect((await simState(suite.sim)).instances.filter((i) => i.hostname === "par-web").map((i) => i.uuid)).toEqual([old]);
  // the advice: dependsOn on the renaming Instance, and the same --parallel 1 goes through
  const fixed = after.map((x) => (x.name === "new" ? { ...x, opts: { dependsOn: ["old"] } } : x));
  const again = await s.run("up", fixed, { parallel: 1 });
  expect(again.ok ? "" : show(again)).toBe("");
  const fresh = s.res("new")!.id!;
  expect(await names([old, fresh])).toEqual({ [old]: "par-web-old", [fresh]: "par-web" });
});
