/**
 * The engine's pure parts: the state file (secrets encrypted on disk, refused for another stack), stack
 * config parsing (more in config-and-cli.test.ts), property paths (ignoreChanges) and diffs. No processes are spawned here.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { readConfigJson, readProject, resolveStackConfig } from "../../tools/local-engine/config";
import { loadState, lockState, saveState, StateFile } from "../../tools/local-engine/state";
import { PropertyMap, SECRET_SIG, SPECIAL_SIG_KEY, changedKeys, makeSecret, processIgnoreChanges } from "../../tools/local-engine/values";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "vmhost-engine-unit-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function stateWith(outputs: PropertyMap): StateFile {
  return {
    version: 1,
    project: "p",
    stack: "dev",
    secretsSalt: "c2FsdHNhbHRzYWx0c2FsdA==",
    resources: [
      {
        urn: "urn:pulumi:dev::p::t::r",
        type: "t",
        name: "r",
        custom: true,
        id: "1",
        parent: "",
        inputs: { password: makeSecret("pw-plain-1") },
        outputs,
        dependencies: [],
        protect: false,
        additionalSecretOutputs: [],
        deleteBeforeReplace: false,
      },
    ],
  };
}

test("secrets are encrypted on disk and come back as secrets", () => {
  const file = path.join(dir, "state.json");
  saveState(file, stateWith({ nested: { token: makeSecret({ deep: "tok-plain-2" }) }, plain: "visible" }), "pass");
  const text = fs.readFileSync(file, "utf8");
  expect(text).not.toContain("pw-plain-1");
  expect(text).not.toContain("tok-plain-2");
  expect(text).toContain("visible");
  const loaded = loadState(file, "p", "dev", "pass");
  expect(loaded.resources[0].inputs.password).toEqual({ [SPECIAL_SIG_KEY]: SECRET_SIG, value: "pw-plain-1" });
  expect(loaded.resources[0].outputs.nested).toEqual({ token: { [SPECIAL_SIG_KEY]: SECRET_SIG, value: { deep: "tok-plain-2" } } });
});

test("a wrong passphrase or another stack's state file is refused", () => {
  const file = path.join(dir, "state.json");
  saveState(file, stateWith({}), "right");
  expect(() => loadState(file, "p", "dev", "wrong")).toThrow(/PULUMI_CONFIG_PASSPHRASE/);
  expect(() => loadState(file, "p", "prod", "right")).toThrow(/belongs to project "p" stack "dev"/);
  expect(loadState(path.join(dir, "missing.json"), "p", "dev", "").resources).toEqual([]);
});

test("stack config files: plain values, quoting, comments and namespaces; lists reach the program as JSON", async () => {
  // Read with a YAML parser as the CLI does (workspace/loaders.go LoadProjectStackBytes): keys without a
  // namespace get the project's; a list set with `pulumi config set --path` is handed over as JSON text.
  fs.writeFileSync(
    path.join(dir, "Pulumi.dev.yaml"),
    [
      "config:",
      "  vmhost:baseUrl: http://127.0.0.1:8080/v1 # the simulator",
      '  region: "jakarta # not a comment"',
      "  proj:names:",
      "    - a",
      "    - b",
      "encryptionsalt: abc",
    ].join("\n"),
  );
  const project = { name: "proj", main: ".", typescript: false, config: {} };
  expect(await resolveStackConfig({ projectDir: dir, project, stack: "dev", env: {} })).toEqual({
    "vmhost:baseUrl": { value: "http://127.0.0.1:8080/v1", secret: false },
    "proj:region": { value: "jakarta # not a comment", secret: false },
    "proj:names": { value: '["a","b"]', secret: false },
  });

  fs.writeFileSync(path.join(dir, "c.json"), JSON.stringify({ count: 3, "vmhost:apiKey": { secret: "k" } }));
  expect(readConfigJson(path.join(dir, "c.json"), "proj")).toEqual({
    "proj:count": { value: "3", secret: false },
    "vmhost:apiKey": { value: "k", secret: true },
  });
});

test("Pulumi.yaml: name, main, and TypeScript on by default when the project has index.ts", () => {
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: basic-vm\nruntime: nodejs\n");
  expect(readProject(dir)).toEqual({ name: "basic-vm", main: ".", typescript: false, config: {} });
  fs.writeFileSync(path.join(dir, "index.ts"), "");
  expect(readProject(dir).typescript).toBe(true);
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: x\nmain: src/\nruntime:\n  name: nodejs\n  options:\n    typescript: false\n");
  expect(readProject(dir)).toEqual({ name: "x", main: "src/", typescript: false, config: {} });
});

test("Pulumi.yaml missing or malformed: the error names the directory, or the file and the field", () => {
  expect(() => readProject(dir)).toThrow(`no Pulumi.yaml in ${dir}`);
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "runtime: nodejs\n");
  expect(() => readProject(dir)).toThrow(`${path.join(dir, "Pulumi.yaml")}: name: `);
});

test("ignoreChanges paths reset nested properties to their old values", () => {
  const m: PropertyMap = { tags: { env: "prod", team: "a" }, list: [{ x: 1 }] };
  const old: PropertyMap = { tags: { env: "test" }, list: [{ x: 2 }] };
  expect(processIgnoreChanges(m, old, ["tags.env", "tags.team", "list[0].x"]).inputs).toEqual({ tags: { env: "test" }, list: [{ x: 2 }] });
});

test("diffs ignore the serialized provider and compare secrets by value", () => {
  const olds: PropertyMap = { __provider: "old code", a: 1, s: makeSecret("x"), gone: true };
  const news: PropertyMap = { __provider: "new code", a: 1, s: makeSecret("y"), added: 2 };
  expect(changedKeys(olds, news)).toEqual(["added", "gone", "s"]);
  expect(changedKeys({ s: makeSecret("x") }, { s: "x" })).toEqual([]);
});

test("one run at a time per state file; a lock left by a dead process is taken over", () => {
  const file = path.join(dir, "state.json");
  const release = lockState(file);
  expect(() => lockState(file)).toThrow(/in use by another engine run \(pid \d+\)/);
  release();
  lockState(file)();
  fs.writeFileSync(`${file}.lock`, "2147483646"); // no such process
  const again = lockState(file);
  expect(fs.readFileSync(`${file}.lock`, "utf8")).toBe(String(process.pid));
  again();
  expect(fs.existsSync(`${file}.lock`)).toBe(false);
});
