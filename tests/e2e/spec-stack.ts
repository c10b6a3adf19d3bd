/**
 * A stack whose program is data: spec-program.js declares the resources listed in the `spec` stack config, so one
 * test can run a few ups of different programs (and engine options such as --replace) through the local engine
 * and the real dynamic-provider host without an example project per case.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { EngineCommand, EngineOptions, EngineResult, runEngine } from "../../tools/local-engine";
import { TestSimulator, VM_PASSWORD, installExamples, simState, startTestSimulator } from "./helpers";

/** One resource of the program: its class, name, arguments ("$id:<name>", "$password" resolved) and options. */
export interface Res { type: string; name: string; args: Record<string, unknown>; opts?: Record<string, unknown> }

/** A stack of spec-program.js in its own project folder under the installed examples. */
export class SpecStack {
  readonly stateFile: string;
  /**
   * `providerDirectory`: the provider processes of this stack's runs keep a VMHOST_CACHE_DIR (in the stack's folder)
   * from one run to the next, as on a user's machine; without it, "off" (jest's setting): each run starts blank.
   */
  constructor(readonly dir: string, private readonly sim: TestSimulator, private readonly providerDirectory = false) {
    this.stateFile = path.join(dir, ".state.json");
  }
  static async create(sim: TestSimulator, providerDirectory = false): Promise<SpecStack> {
    const root = await installExamples();
    fs.mkdirSync(path.join(root, "projects"), { recursive: true });
    const dir = fs.mkdtempSync(path.join(root, "projects", "spec-"));
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: spec\nruntime: nodejs\nmain: index.js\n");
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "spec", private: true, main: "index.js" }));
    fs.copyFileSync(path.join(__dirname, "spec-program.js"), path.join(dir, "index.js"));
    return new SpecStack(dir, sim, providerDirectory);
  }
  run(command: EngineCommand, resources: Res[], extra: Partial<Pick<EngineOptions, "refresh" | "expectNoChanges" | "replace" | "targets" | "targetDependents" | "parallel">> = {}): Promise<EngineResult> {
    return runEngine({
      command, projectDir: this.dir, stateFile: this.stateFile,
      config: { "vmhost:baseUrl": this.sim.url, spec: JSON.stringify({ resources }) },
      secrets: { "vmhost:apiKey": this.sim.apiKey, vmPassword: VM_PASSWORD },
      env: { VMHOST_API_KEY: "", VMHOST_BASE_URL: "", ...(this.providerDirectory ? { VMHOST_CACHE_DIR: path.join(this.dir, ".vmhost-cache") } : {}) },
      ...extra,
      onOutput: process.env.E2E_VERBOSE ? (l) => process.stdout.write(`[spec] ${l}\n`) : undefined,
    });
  }
  state(): { resources: { urn: string; name: string; id?: string; outputs?: Record<string, unknown>; inputs?: Record<string, unknown>; initErrors?: string[] }[] } {
    return JSON.parse(fs.readFileSync(this.stateFile, "utf8"));
  }
  res(name: string) {
    return this.state().resources.find((r) => r.name === name && !(r as { pendingDelete?: boolean }).pendingDelete);
  }
  remove(): void { fs.rmSync(this.dir, { recursive: true, force: true }); }
}

/** The simulator's admin API (`/__sim`): its JSON answer, typed by the caller. */
export async function admin<T>(sim: TestSimulator, method: string, p: string, body?: unknown): Promise<T> {
  const res = await fetch(`${sim.adminUrl}${p}`, { method, headers: { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

export function show(r: EngineResult): string {
  return `exit ${r.exitCode}\nerrors: ${r.errors.join("\n")}\n${r.stdout}`;
}

export async function until(what: string, check: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`${what}: not reached within ${ms} ms`);
    await delay(50);
  }
}

export { simState, VM_PASSWORD };

export const vmArgs = (hostname: string, extra: Record<string, unknown> = {}) => ({
  locationId: 1, tierId: 1, templateId: 1, hostname, cpu: 1, memory: 1, storage: 20, username: "deploy", password: "$password", ...extra,
});

/**
 * A test file's simulator (started before all its tests, closed after them) and the spec stacks its tests make
 * (removed after them). `sim` is valid inside tests.
 */
export function specSuite(): { readonly sim: TestSimulator; newStack(options?: { providerDirectory?: boolean }): Promise<SpecStack> } {
  let sim: TestSimulator | undefined;
  const stacks: SpecStack[] = [];
  beforeAll(async () => {
    sim = await startTestSimulator();
  }, 120_000);
  afterAll(async () => {
    await sim?.close();
    for (const s of stacks) s.remove();
  });
  return {
    get sim(): TestSimulator {
      if (!sim) throw new Error("the simulator starts in beforeAll: use suite.sim inside tests");
      return sim;
    },
    async newStack(options: { providerDirectory?: boolean } = {}): Promise<SpecStack> {
      const s = await SpecStack.create(this.sim, options.providerDirectory);
      stacks.push(s);
      return s;
    },
  };
}
