/**
 * Renames through the local engine and the real dynamic-provider host: names move between VMs of one stack in one
 * up, whatever order the engine runs the steps in (it orders them by dependencies the provider cannot see), and a
 * new Instance may take a name another one leaves in the same up.
 */
import { show, simState, specSuite, vmArgs, type Res } from "./spec-stack";

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
