/**
 * Failures the engine must not lose track of (initialization failures recorded in the state, converged by
 * the next up, deleted by destroy; invalid inputs), and secrets: the state never holds the API key or a
 * secret value in plain text, secret outputs are stored as secrets. Also the CLI and a TypeScript program.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { main } from "../../tools/local-engine/cli";
import { cliArgs, FIXTURE_API_KEY, ItemSpec, useFixtureProject } from "./helpers";

const SIG = "4dabf18193072939515e22adb298388d";
const SECRET = "1b47061264138c4ac30d75fd1eb44270";

// Each engine run starts two Node processes; on a loaded 2-core machine a test of several runs needs time.
jest.setTimeout(180_000);

const p = useFixtureProject("file");

interface StateResource {
  name: string;
  id?: string;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
  initErrors?: string[];
}
const stateResources = (): StateResource[] => JSON.parse(p.stateText()).resources as StateResource[];
const stateOf = (name: string) => stateResources().find((r) => r.name === name);

test("an initialization failure is recorded in the state and converged by the next up", async () => {
  p.editCloud((c) => {
    c.faults.initFailCreate = ["flaky"];
  });
  const program: ItemSpec[] = [{ name: "flaky", size: 1 }];
  const failed = await p.run("up", program);
  expect(failed.ok).toBe(false);
  expect(failed.errors.join("\n")).toMatch(/failed to become ready/);
  const created = p.item("flaky")!;
  expect(created.status).toBe("broken");
  expect(stateOf("flaky")).toMatchObject({ id: created.id, initErrors: [expect.stringMatching(/failed to become ready/)] });

  // The fault is gone; the next up must update the existing item (not create a second one).
  p.editCloud((c) => {
    c.faults.initFailCreate = [];
  });
  p.clearLog();
  const converged = await p.run("up", program);
  expect(converged.ok).toBe(true);
  expect(converged.steps.find((s) => s.name === "flaky")?.op).toBe("update");
  expect(p.cloud().log).toEqual(["update:flaky"]);
  expect(p.item("flaky")).toMatchObject({ id: created.id, status: "ready" });
  expect(stateOf("flaky")?.initErrors).toBeUndefined();
  expect(Object.keys(p.cloud().items)).toHaveLength(1);
});

test("a resource that failed to initialize is deleted by destroy", async () => {
  p.editCloud((c) => {
    c.faults.initFailUpdate = ["flaky"];
  });
  const failed = await p.run("up", [{ name: "flaky", size: 2 }]);
  expect(failed.ok).toBe(false);
  expect(stateOf("flaky")?.initErrors).toEqual([expect.stringMatching(/failed to apply the update/)]);
  const destroy = await p.run("destroy", []);
  expect(destroy.ok).toBe(true);
  expect(p.cloud().items).toEqual({});
  expect(stateResources()).toEqual([]);
  p.editCloud((c) => {
    c.faults = {};
  });
});

test("a replaced resource whose deletion failed stays pending and is deleted by the next up", async () => {
  await p.run("up", [{ name: "rep", size: 1 }]);
  const oldId = p.item("rep")!.id;
  p.editCloud((c) => {
    c.faults.failDelete = ["rep"];
  });
  const failed = await p.run("up", [{ name: "rep", size: 1, zone: "z2" }]);
  expect(failed.ok).toBe(false);
  expect(failed.errors.join("\n")).toMatch(/cannot delete rep/);
  const pending = stateResources().filter((r) => r.name === "rep");
  expect(pending.map((r) => [r.id, (r as { pendingDelete?: boolean }).pendingDelete ?? false])).toEqual(
    expect.arrayContaining([
      [oldId, true],
      [expect.not.stringMatching(oldId), false],
    ]),
  );

  p.editCloud((c) => {
    c.faults = {};
  });
  const retried = await p.run("up", [{ name: "rep", size: 1, zone: "z2" }]);
  expect(retried.ok).toBe(true);
  expect(p.cloud().items[oldId]).toBeUndefined();
  expect(stateResources().filter((r) => r.name === "rep")).toHaveLength(1);
  expect((await p.run("destroy", [])).ok).toBe(true);
});

test("a program that fails half-way deletes nothing it did not get to declare", async () => {
  expect((await p.run("up", [{ name: "keep1", size: 1 }, { name: "keep2", size: 1 }])).ok).toBe(true);
  // This version of the program declares only keep1, then crashes: keep2 must survive.
  const crashed = await p.run("up", [{ name: "keep1", size: 1 }], { config: { "fixture:crash": "boom" } });
  expect(crashed.ok).toBe(false);
  expect(crashed.stdout).toContain("program bug: boom");
  expect(crashed.summary.delete).toBe(0);
  expect(p.item("keep2")).toBeDefined();
  expect((await p.run("destroy", [])).ok).toBe(true);
});

test("invalid inputs fail the up before anything is created, naming the property", async () => {
  const r = await p.run("up", [{ name: "bad", size: "big" }, { name: "after", size: 1 }]);
  expect(r.ok).toBe(false);
  expect(r.errors.join("\n")).toMatch(/size: size must be a number/);
  expect(p.cloud().items).toEqual({});
});

test("the state holds no API key and no secret in plain text; secret outputs are stored as secrets", async () => {
  const program: ItemSpec[] = [{ name: "sec", size: 1, password: true, additionalSecretOutputs: ["token"] }];
  const r = await p.run("up", program);
  expect(r.ok).toBe(true);
  const item = p.item("sec")!;
  expect(item.password).toBe("hunter2-password-plain"); // the provider got the real value
  const text = p.stateText();
  expect(text).not.toContain(FIXTURE_API_KEY);
  expect(text).not.toContain("hunter2-password-plain");
  expect(text).not.toContain(item.token as string);
  expect(text).not.toContain("stack-output-secret-value");
  const sec = stateOf("sec")!;
  expect(sec.inputs.password).toEqual({ [SIG]: SECRET, ciphertext: expect.stringMatching(/^v1:/) });
  expect(sec.outputs.password).toEqual({ [SIG]: SECRET, ciphertext: expect.any(String) });
  expect(sec.outputs.token).toEqual({ [SIG]: SECRET, ciphertext: expect.any(String) });
  expect(String(sec.inputs.__provider)).not.toContain(FIXTURE_API_KEY);
  expect(r.outputs.secretNote).toBe("[secret]");
  // The state reads back (secrets decrypt) and the program sees no change.
  expect((await p.run("preview", program, { expectNoChanges: true })).ok).toBe(true);
});

test("the CLI runs commands, and its exit code reports failure and unexpected changes", async () => {
  const args = (cmd: string, resources: ItemSpec[]) => cliArgs(p, cmd, resources, "hunter2-password-plain");
  const write = jest.spyOn(process.stdout, "write").mockImplementation(() => true);
  const usage = jest.spyOn(console, "error").mockImplementation(() => undefined);
  try {
    const program: ItemSpec[] = [{ name: "sec", size: 1, password: true, additionalSecretOutputs: ["token"] }];
    expect(await main([...args("preview", program), "--expect-no-changes"])).toBe(0);
    // Changes with --expect-no-changes: the CLI's ExitNoChanges (7); more in config-and-cli.test.ts.
    expect(await main([...args("preview", [{ ...program[0], size: 2 }]), "--expect-no-changes"])).toBe(7);
    expect(await main([...args("up", []), "--yes"])).toBe(0);
    expect(p.cloud().items).toEqual({});
    expect(await main(["launch"])).toBe(2);
  } finally {
    write.mockRestore();
    usage.mockRestore();
  }
});

test("a TypeScript program runs through the language runtime's ts-node", async () => {
  fs.rmSync(path.join(p.dir, "index.js"));
  fs.writeFileSync(path.join(p.dir, "Pulumi.yaml"), "name: fixture\nruntime: nodejs\n");
  fs.writeFileSync(path.join(p.dir, "package.json"), JSON.stringify({ name: "fixture-program", main: "index.ts" }));
  fs.writeFileSync(
    path.join(p.dir, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { strict: true, target: "es2020", module: "commonjs", moduleResolution: "node" }, files: ["index.ts"] }),
  );
  fs.writeFileSync(
    path.join(p.dir, "index.ts"),
    [
      'import * as pulumi from "@pulumi/pulumi";',
      'import { Item } from "fixture-cloud";',
      "const size: number = 4;",
      'const item = new Item("typed", { name: "typed", size });',
      "export const typedId: pulumi.Output<string> = item.id;",
    ].join("\n"),
  );
  const r = await p.run("up", []);
  expect(r.errors).toEqual([]);
  expect(r.outputs.typedId).toBe(p.item("typed")?.id);
  expect(p.item("typed")?.size).toBe(4);
});
