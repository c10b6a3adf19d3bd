/**
 * Resource options the engine must honour: ignoreChanges,
 * dependsOn and parent ordering. One fixture project for the file; each test uses its own resource names
 * and cleans up with destroy where the next test needs an empty stack.
 */
import { ItemSpec, useFixtureProject } from "./helpers";

// Each engine run starts two Node processes; on a loaded 2-core machine a test of several runs needs time.
jest.setTimeout(180_000);

const p = useFixtureProject("file");

const changesOf = (r: { steps: Array<{ op: string; name: string; diffs: string[] }> }) =>
  r.steps.filter((s) => s.op !== "same").map((s) => [s.op, s.name, s.diffs]);

test("ignoreChanges keeps the old value: no diff, and the provider never sees the new one", async () => {
  const v1: ItemSpec[] = [{ name: "ign", size: 1, tags: { env: "prod" }, ignoreChanges: ["tags"] }];
  expect((await p.run("up", v1)).ok).toBe(true);

  const v2: ItemSpec[] = [{ name: "ign", size: 1, tags: { env: "test" }, ignoreChanges: ["tags"] }];
  expect(changesOf(await p.run("preview", v2))).toEqual([]);

  // Another property still updates, and the ignored one keeps its old value in the cloud.
  const v3: ItemSpec[] = [{ name: "ign", size: 2, tags: { env: "test" }, ignoreChanges: ["tags"] }];
  const up = await p.run("up", v3);
  expect(changesOf(up)).toEqual([["update", "ign", ["size"]]]);
  expect(p.item("ign")).toMatchObject({ size: 2, tags: { env: "prod" } });

  // Without ignoreChanges the same program is an update of tags.
  expect(changesOf(await p.run("preview", [{ name: "ign", size: 2, tags: { env: "test" } }]))).toEqual([["update", "ign", ["tags"]]]);
});

test("dependsOn, parents and components order creation, and deletion runs in reverse", async () => {
  // The first resource is slow to create: had the engine answered its registration before the create
  // finished, its dependents would have been created first.
  p.editCloud((c) => {
    c.faults.slowCreate = ["base"];
  });
  p.clearLog();
  const program: ItemSpec[] = [
    { name: "base", size: 1 },
    { name: "mid", size: 1, dependsOn: ["base"] },
    { name: "top", size: 1, dependsOn: ["mid"] },
    { name: "child", size: 1, parent: "base" },
    { name: "grp", group: true, size: 0 },
    { name: "member", size: 1, parent: "grp" },
  ];
  const up = await p.run("up", program);
  expect(up.ok).toBe(true);
  const creates = p.cloud().log;
  expect(creates.indexOf("create:base")).toBeLessThan(creates.indexOf("create:mid"));
  expect(creates.indexOf("create:mid")).toBeLessThan(creates.indexOf("create:top"));
  expect(creates.indexOf("create:base")).toBeLessThan(creates.indexOf("create:child"));
  // A child's URN carries its parent's type.
  expect(up.steps.find((s) => s.name === "child")?.urn).toContain("pulumi-nodejs:dynamic/fixture:Item$pulumi-nodejs:dynamic/fixture:Item::child");

  expect(up.steps.find((s) => s.name === "member")?.urn).toBe(
    "urn:pulumi:dev::fixture::fixture:index:Group$pulumi-nodejs:dynamic/fixture:Item::member",
  );
  expect(p.item("member")).toBeDefined();

  p.clearLog();
  const destroy = await p.run("destroy", []);
  expect(destroy.ok).toBe(true);
  const deleted = destroy.steps.map((s) => s.name);
  expect(deleted.indexOf("member")).toBeLessThan(deleted.indexOf("grp"));
  const deletes = p.cloud().log;
  expect(deletes).toHaveLength(5);
  expect(deletes.indexOf("delete:top")).toBeLessThan(deletes.indexOf("delete:mid"));
  expect(deletes.indexOf("delete:mid")).toBeLessThan(deletes.indexOf("delete:base"));
  expect(deletes.indexOf("delete:child")).toBeLessThan(deletes.indexOf("delete:base"));
});

test("resources removed from the program are deleted dependents first", async () => {
  const program: ItemSpec[] = [
    { name: "r1", size: 1 },
    { name: "r2", size: 1, dependsOn: ["r1"] },
    { name: "keep", size: 1 },
  ];
  expect((await p.run("up", program)).ok).toBe(true);
  p.clearLog();
  const r = await p.run("up", [{ name: "keep", size: 1 }]);
  expect(r.ok).toBe(true);
  expect(p.cloud().log).toEqual(["delete:r2", "delete:r1"]);
});

test("deletedWith: no Delete call when the resource it goes with is deleted in the same run", async () => {
  const program: ItemSpec[] = [
    { name: "vm", size: 1 },
    { name: "addr", size: 1, deletedWith: "vm" },
    { name: "addr2", size: 1, deletedWith: "vm" },
  ];
  expect((await p.run("up", program)).ok).toBe(true);
  // Removed on its own (its VM stays): it is deleted normally.
  p.clearLog();
  expect((await p.run("up", program.slice(0, 2))).ok).toBe(true);
  expect(p.cloud().log).toEqual(["delete:addr2"]);
  // Destroyed with its VM: only the VM's delete is called, and the state forgets both.
  p.clearLog();
  const destroy = await p.run("destroy", []);
  expect(destroy.ok).toBe(true);
  expect(destroy.steps.filter((s) => s.op === "delete").map((s) => s.name)).toEqual(expect.arrayContaining(["vm", "addr"]));
  expect(p.cloud().log).toEqual(["delete:vm"]);
  expect(JSON.parse(p.stateText()).resources).toEqual([]);
});
