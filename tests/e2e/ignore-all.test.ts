/**
 * `ignoreChanges: ["*"]` added to (or widened on) an existing Instance, then a change in the panel: the change is
 * no drift and survives `up --refresh`. The local engine applies ignoreChanges with the real engine's Reset rules
 * (tools/local-engine/values.ts processIgnoreChanges, after pulumi/pulumi sdk/go/common/resource/properties_path.go),
 * under which a bare "*" would delete the `__ignoreChanges` input the provider needs (the old inputs lack it, or
 * hold the narrower list); the SDK hands the engine the resource's property names instead (sdk/nodejs/options.ts
 * engineIgnoreChanges). Also: the `import` option stops the program with the SDK's message naming adoptId.
 */
import { admin, show, simState, specSuite, vmArgs, type Res } from "./spec-stack";

jest.setTimeout(600_000);
const suite = specSuite();

const cpuOf = async (uuid: string) => (await simState(suite.sim)).instances.find((i) => i.uuid === uuid)!;

test('ignoreChanges ["*"] added to an existing VM: a panel resize is no drift and up --refresh keeps it', async () => {
  const stack = await suite.newStack();
  const plain: Res[] = [{ type: "Instance", name: "web", args: vmArgs("ign-all-1") }];
  const up1 = await stack.run("up", plain);
  expect(up1.ok).toBe(true);
  const withOpt: Res[] = [{ ...plain[0]!, opts: { ignoreChanges: ["*"] } }];
  const up2 = await stack.run("up", withOpt);
  expect(up2.ok).toBe(true);
  const web = stack.res("web")!;
  // The provider's half of the option reached the state (the real engine's Reset of a bare "*" deletes it).
  expect(web.inputs?.__ignoreChanges).toEqual(["*"]);
  expect((stack.state().resources.find((r) => r.name === "web") as { ignoreChanges?: string[] }).ignoreChanges).toEqual(
    expect.arrayContaining(["cpu", "memory", "hostname"]),
  );

  await admin(suite.sim, "PATCH", `/instances/${web.id}`, { cpu: 2 });
  const check = await stack.run("preview", withOpt, { refresh: true, expectNoChanges: true });
  expect({ exit: check.exitCode, summary: check.summary }).toEqual({ exit: 0, summary: expect.objectContaining({ update: 0, replace: 0 }) });
  const up3 = await stack.run("up", withOpt, { refresh: true });
  expect(up3.ok).toBe(true);
  expect(up3.summary).toMatchObject({ update: 0, replace: 0, create: 0, delete: 0 });
  expect((await cpuOf(web.id!)).cpu).toBe(2);
});

test('ignoreChanges widened from ["cpu"] to ["*"]: the provider gets the new list, a panel memory change is kept', async () => {
  const stack = await suite.newStack();
  const args = vmArgs("ign-all-2", { memory: 2 });
  const narrow: Res[] = [{ type: "Instance", name: "web", args, opts: { ignoreChanges: ["cpu"] } }];
  expect((await stack.run("up", narrow)).ok).toBe(true);
  const wide: Res[] = [{ type: "Instance", name: "web", args, opts: { ignoreChanges: ["*"] } }];
  const up2 = await stack.run("up", wide);
  expect(up2.ok).toBe(true);
  const web = stack.res("web")!;
  expect(web.inputs?.__ignoreChanges).toEqual(["*"]); // not the old ["cpu"] frozen by Reset

  await admin(suite.sim, "PATCH", `/instances/${web.id}`, { memory: 4 });
  const check = await stack.run("preview", wide, { refresh: true, expectNoChanges: true });
  expect(check.exitCode).toBe(0);
  const up3 = await stack.run("up", wide, { refresh: true });
  expect(up3.ok).toBe(true);
  expect(up3.summary).toMatchObject({ update: 0, replace: 0 });
  expect((await cpuOf(web.id!)).memoryGb).toBe(4);
});

test("the import option stops the program at the resource with the SDK's message naming adoptId; nothing is created", async () => {
  const stack = await suite.newStack();
  const before = (await simState(suite.sim)).instances.length;
  const id = "6f1c0a52-0000-4000-8000-000000000042";
  const r = await stack.run("up", [{ type: "Instance", name: "old", args: vmArgs("ign-all-imp"), opts: { import: id } }]);
  expect(r.ok).toBe(false);
  expect(r.exitCode).toBe(1);
  const text = show(r);
  expect(text).toContain(`vmhost.Instance old: the import resource option does not work for dynamic-provider resources; use adoptId: "${id}" instead`);
  expect(text).not.toContain("not supported by the local engine"); // refused by the SDK before the engine sees it
  expect(text).not.toContain("    at "); // a RunError: the message alone, no stack
  expect((await simState(suite.sim)).instances.length).toBe(before);
});
