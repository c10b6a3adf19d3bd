/**
 * The main life of a stack through the local engine: up, no-change preview, drift found by refresh and
 * converged by up, update vs replace, removal, destroy. One fixture project for the whole file (each engine
 * run spawns the language runtime and the dynamic-provider host), so the tests run in order.
 */
import { ItemSpec, useFixtureProject } from "./helpers";

// Each engine run starts two Node processes; on a loaded 2-core machine a test of several runs needs time.
jest.setTimeout(180_000);

const p = useFixtureProject("file");

const program: ItemSpec[] = [
  { name: "a", size: 1 },
  { name: "b", size: 2, dependsOn: ["a"] },
];

test("up creates every resource and records stack outputs", async () => {
  const r = await p.run("up", program);
  expect(r.errors).toEqual([]);
  expect(r.ok).toBe(true);
  expect(r.summary).toMatchObject({ create: 3, update: 0, replace: 0, delete: 0 }); // stack + a + b
  expect(r.stdout).toMatch(/\+\s+pulumi-nodejs:dynamic\/fixture:Item\s+a\s+created/);
  expect(Object.keys(p.cloud().items)).toHaveLength(2);
  expect(r.outputs.ids).toEqual({ a: p.item("a")?.id, b: p.item("b")?.id });
  expect(r.outputs.statuses).toEqual({ a: "ready", b: "ready" });
});

test("a second preview shows no changes", async () => {
  const r = await p.run("preview", program, { expectNoChanges: true });
  expect(r.ok).toBe(true);
  expect(r.summary).toMatchObject({ create: 0, update: 0, replace: 0, delete: 0, same: 3 });
  expect(r.steps.every((s) => s.op === "same")).toBe(true);
});

test("an out-of-band change is shown by refresh and converged by the next up", async () => {
  p.editCloud((c) => {
    const a = Object.values(c.items).find((i) => i.name === "a")!;
    a.size = 5;
  });
  const check = await p.run("preview", program, { refresh: true, expectNoChanges: true });
  expect(check.ok).toBe(false);

  const refreshed = await p.run("refresh", program);
  expect(refreshed.ok).toBe(true);
  expect(refreshed.drift).toEqual([
    expect.objectContaining({ name: "a", gone: false, properties: [{ name: "size", old: "1", new: "5" }] }),
  ]);
  expect(refreshed.stdout).toContain("~ size: 1 => 5");

  const up = await p.run("up", program);
  expect(up.ok).toBe(true);
  expect(up.steps.filter((s) => s.op !== "same")).toEqual([expect.objectContaining({ op: "update", name: "a", diffs: ["size"] })]);
  expect(p.item("a")?.size).toBe(1);
  expect((await p.run("preview", program, { refresh: true, expectNoChanges: true })).ok).toBe(true);
});

test("a changed program updates in place or replaces, as the provider's diff says", async () => {
  const before = { a: p.item("a")!.id, b: p.item("b")!.id };
  p.clearLog();
  const changed: ItemSpec[] = [
    { name: "a", size: 3 },
    { name: "b", size: 2, zone: "z2", dependsOn: ["a"] },
  ];
  const preview = await p.run("preview", changed);
  expect(preview.steps.filter((s) => s.op !== "same").map((s) => [s.op, s.name, s.diffs])).toEqual([
    ["update", "a", ["size"]],
    ["replace", "b", ["zone"]],
  ]);
  expect(p.cloud().log).toEqual([]); // preview changes nothing

  const up = await p.run("up", changed);
  expect(up.ok).toBe(true);
  expect(up.summary).toMatchObject({ update: 1, replace: 1 });
  expect(up.stdout).toMatch(/\+-\s+pulumi-nodejs:dynamic\/fixture:Item\s+b\s+replaced \[diff: ~zone\] \(replace forced by zone\)/);
  expect(p.item("a")!.id).toBe(before.a);
  expect(p.item("b")!.id).not.toBe(before.b);
  expect(p.cloud().items[before.b]).toBeUndefined();
  // Create-before-delete: the new b exists before the old one goes.
  expect(p.cloud().log).toEqual(["update:a", "create:b", "delete:b"]);
});

test("a resource removed from the program is deleted", async () => {
  const r = await p.run("up", [{ name: "a", size: 3 }]);
  expect(r.ok).toBe(true);
  expect(r.steps.filter((s) => s.op === "delete").map((s) => s.name)).toEqual(["b"]);
  expect(p.item("b")).toBeUndefined();
  expect(p.item("a")).toBeDefined();
});

test("a resource deleted outside Pulumi leaves the state on refresh and is recreated by up", async () => {
  const gone = p.item("a")!.id;
  p.editCloud((c) => {
    delete c.items[gone];
  });
  const refreshed = await p.run("refresh", [{ name: "a", size: 3 }]);
  expect(refreshed.drift).toEqual([expect.objectContaining({ name: "a", gone: true })]);
  expect(JSON.parse(p.stateText()).resources.map((r: { name: string }) => r.name)).toEqual(["fixture-dev"]);
  const up = await p.run("up", [{ name: "a", size: 3 }]);
  expect(up.steps.filter((s) => s.op !== "same")).toEqual([expect.objectContaining({ op: "create", name: "a" })]);
});

test("destroy deletes everything and leaves an empty state", async () => {
  const r = await p.run("destroy", []);
  expect(r.ok).toBe(true);
  expect(p.cloud().items).toEqual({});
  expect(JSON.parse(p.stateText()).resources).toEqual([]);
});
