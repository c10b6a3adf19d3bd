/**
 * What importing pulumi-vmhost loads, in the packed package as users install it (`make pack`). Every `pulumi preview`
 * and `up` starts the program again, and most programs only declare resources: the functions' machinery (the API
 * client with undici, the instance waits, the zod schemas) loads when a function is first called, not with the
 * package (sdk/nodejs/functions/index.ts). It was 0.17 s of CPU at every program start, more than the rest of the
 * package together. Speed itself is measured, not asserted; this guards the structure that gives it.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startSimulator, type RunningSimulator } from "../simulator";
import { installPacked } from "./host/packed";

let dir: string;
let sim: RunningSimulator;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? os.tmpdir(), "vmhost-load-"));
  installPacked(dir);
  sim = await startSimulator({ opSeconds: 0.05 });
});

afterAll(async () => {
  await sim?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs the project's `file` in a fresh Node process; returns the JSON it writes. */
async function runInProject(file: string, source: string): Promise<unknown> {
  fs.writeFileSync(path.join(dir, file), source);
  // (not execFileSync: the simulator answering the functions runs in this process)
  const { stdout } = await promisify(execFile)(process.execPath, [file], { cwd: dir, encoding: "utf8" });
  return JSON.parse(stdout);
}

/** Runs `body` (CommonJS, `vmhost` and `loaded()` in scope) in a fresh Node process in the project; returns its JSON. */
async function inFreshProcess(body: string): Promise<Record<string, unknown>> {
  const program = [
    "const loaded = () => Object.keys(require.cache).map((f) => f.split(/node_modules[\\\\/]/).pop().split(/[\\\\/]/)[0]);",
    'const vmhost = require("pulumi-vmhost");',
    `(async () => { ${body} })().then((r) => process.stdout.write(JSON.stringify(r)), (e) => { console.error(e); process.exit(1); });`,
  ].join("\n");
  return (await runInProject("probe.js", program)) as Record<string, unknown>;
}

it("importing the package loads neither the API client nor zod; the resource classes are there", async () => {
  const result = await inFreshProcess("return { classes: typeof vmhost.Instance + ',' + typeof vmhost.PublicIp, loaded: [...new Set(loaded())] };");
  expect(result.classes).toBe("function,function");
  expect(result.loaded).not.toContain("undici");
  expect(result.loaded).not.toContain("zod");
});

it("a function called after the import loads what it needs and answers; functionSchemas is still exported", async () => {
  const result = await inFreshProcess(
    `const before = loaded().includes("zod");
     const { locations } = await vmhost.getLocations({}, { apiKey: ${JSON.stringify(sim.apiKey)}, baseUrl: ${JSON.stringify(sim.url)} });
     const refused = await vmhost.getLocation({ name: 42 }).catch((e) => e instanceof vmhost.FunctionArgumentError && e.message);
     return { before, locations: locations.length, refused, schemas: Object.keys(vmhost.functionSchemas).includes("getInstance") };`,
  );
  expect(result.before).toBe(false);
  expect(result.locations).toBeGreaterThan(0);
  expect(result.refused).toMatch(/^getLocation: name/);
  expect(result.schemas).toBe(true);
});

it("an ES module imports the functions, functionSchemas and the classes by name (Node reads the lazy export)", async () => {
  const result = await runInProject(
    "probe.mjs",
    'import { functionSchemas, getInstance, Instance } from "pulumi-vmhost";\n' +
      "process.stdout.write(JSON.stringify([typeof getInstance, typeof Instance, Object.keys(functionSchemas).length > 0]));\n",
  );
  expect(result).toEqual(["function", "function", true]);
});
