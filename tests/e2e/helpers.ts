/**
 * End-to-end helpers: the examples installed as users install them (npm install of the packed tarball),
 * run through the local engine against an in-process simulator, plus the simulator's admin API.
 *
 * Install once, share everywhere: every example declares the same dependencies, so one `npm install` (per
 * tarball content) serves all of them. Each test copies its example into a fresh folder UNDER that root, where
 * Node's module resolution walks up to the shared node_modules. Nothing is symlinked: the closure serializer
 * must see pulumi-vmhost as a real folder under node_modules (it `require`s such code by name instead of
 * copying it into the state). The install is kept between runs and redone only when the tarball or the
 * declared dependencies change (about 3 s with a warm npm cache; the first one about 25 s).
 */
// The engine's provider processes inherit this environment: their waits poll every 20 ms (backing off to 200 ms)
// instead of the production 0.9 s / 10 s, to match the simulator's 0.2 s operations (startTestSimulator).
// Polling is not what these tests check; what the user sees of a run is the same at either pace.
process.env.VMHOST_POLL_FAST_MS ??= "20";
process.env.VMHOST_POLL_MAX_MS ??= "200";

import { execFileSync } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { z } from "zod";
import { EngineCommand, EngineOptions, EngineResult, runEngine } from "../../tools/local-engine";
import { startSimulator } from "../../simulator";

export const REPO = path.resolve(__dirname, "..", "..");
export const EXAMPLES_DIR = path.join(REPO, "examples");
export const TARBALL = path.join(REPO, ".pack", "pulumi-vmhost.tgz");
/** The examples that are Pulumi projects (examples/ci is a workflow, not a project). */
export const EXAMPLES = ["basic-vm", "web-cluster", "storage-and-snapshots", "by-name"] as const;
export type ExampleName = (typeof EXAMPLES)[number];

/** Holds one install folder per tarball content (`install-<hash>`), so a `make pack` run by someone else
 * while tests run never changes the packages under a running test. */
const INSTALL_BASE = path.join(os.tmpdir(), "pulumi-vmhost-e2e");
const LOCK_DIR = path.join(INSTALL_BASE, "install.lock");
/** Install folders kept for reuse (the newest); older ones are removed when a new one is made. */
const KEEP_INSTALLS = 3;

/** The password the examples' `vmPassword` secret gets in tests (must never appear in a state file). */
export const VM_PASSWORD = "Exampl3-Passw0rd-e2e";

const ExamplePackageJson = z.object({
  dependencies: z.record(z.string(), z.string()),
  devDependencies: z.record(z.string(), z.string()).optional(),
});

/** An example's declared dependencies, with `file:` paths made absolute (they are relative to the example). */
export function exampleDependencies(example: ExampleName): { dependencies: Record<string, string>; devDependencies: Record<string, string> } {
  const dir = path.join(EXAMPLES_DIR, example);
  const pkg = ExamplePackageJson.parse(JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")));
  const absolute = (deps: Record<string, string>): Record<string, string> =>
    Object.fromEntries(
      Object.entries(deps).map(([k, v]) => [k, v.startsWith("file:") ? `file:${path.resolve(dir, v.slice(5))}` : v]),
    );
  return { dependencies: absolute(pkg.dependencies), devDependencies: absolute(pkg.devDependencies ?? {}) };
}

function sha256(data: string | Buffer): string {
  return crypto.createHash("sha256").update(data).digest("hex");
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Returns a folder whose node_modules holds the examples' dependencies installed (npm install) from the
 * current tarball. Made once per tarball content and never changed afterwards. A new one starts from a copy
 * of the newest previous install (minus pulumi-vmhost) so npm only fetches what changed. Safe to call from
 * several jest workers and test runs at once: one installs, the others wait for it (polling its lock).
 */
export async function installExamples(): Promise<string> {
  if (!fs.existsSync(TARBALL)) throw new Error(`${TARBALL} is missing: run \`make pack\` first (make test does)`);
  const declared = EXAMPLES.map(exampleDependencies);
  for (const d of declared.slice(1)) {
    // One shared install is only honest if every example asks for the same packages.
    if (JSON.stringify(d) !== JSON.stringify(declared[0])) throw new Error("the examples' package.json dependencies differ");
  }
  const tarball = fs.readFileSync(TARBALL);
  const key = sha256(JSON.stringify(declared[0]) + sha256(tarball)).slice(0, 16);
  const root = path.join(INSTALL_BASE, `install-${key}`);
  const ready = (): boolean => fs.existsSync(path.join(root, "node_modules", "pulumi-vmhost", "package.json"));
  fs.mkdirSync(INSTALL_BASE, { recursive: true });

  // Another worker holding the lock is building the same root: wait for it, but not forever (a build takes a
  // few minutes at most even on a loaded machine; a stuck holder fails this run with the lock's path).
  for (const deadline = Date.now() + 10 * 60_000; ; ) {
    if (ready()) return root;
    if (Date.now() > deadline) throw new Error(`${root} not built within 10 minutes while another process held ${LOCK_DIR}`);
    try {
      fs.mkdirSync(LOCK_DIR);
    } catch {
      const pidFile = path.join(LOCK_DIR, "pid");
      const owner = Number(fs.existsSync(pidFile) ? fs.readFileSync(pidFile, "utf8") : NaN);
      if (Number.isInteger(owner) && !processAlive(owner)) fs.rmSync(LOCK_DIR, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 250)); // poll the lock another worker holds
      continue;
    }
    try {
      fs.writeFileSync(path.join(LOCK_DIR, "pid"), String(process.pid));
      if (ready()) return root;
      const building = path.join(INSTALL_BASE, `building-${process.pid}`);
      fs.rmSync(building, { recursive: true, force: true });
      fs.mkdirSync(building);
      const previous = fs
        .readdirSync(INSTALL_BASE)
        .filter((d) => d.startsWith("install-"))
        .map((d) => path.join(INSTALL_BASE, d))
        .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
      if (previous[0] && fs.existsSync(path.join(previous[0], "node_modules"))) {
        fs.cpSync(path.join(previous[0], "node_modules"), path.join(building, "node_modules"), { recursive: true });
        // npm keeps an installed file: tarball even when the tarball changed: leave it out so npm installs ours.
        fs.rmSync(path.join(building, "node_modules", "pulumi-vmhost"), { recursive: true, force: true });
      }
      fs.writeFileSync(
        path.join(building, "package.json"),
        JSON.stringify({ name: "pulumi-vmhost-e2e-install", private: true, ...declared[0] }, null, 2),
      );
      // The tarball as read above (hashed into the key), not whatever .pack holds by now.
      fs.writeFileSync(path.join(building, "pulumi-vmhost.tgz"), tarball);
      const pkg = JSON.parse(fs.readFileSync(path.join(building, "package.json"), "utf8")) as { dependencies: Record<string, string> };
      pkg.dependencies["pulumi-vmhost"] = "file:./pulumi-vmhost.tgz";
      fs.writeFileSync(path.join(building, "package.json"), JSON.stringify(pkg, null, 2));
      execFileSync("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], {
        cwd: building,
        stdio: ["ignore", "pipe", "pipe"],
      });
      // A root without its install (evicted by another checkout's test run sharing this folder, with only a
      // leftover projects/ inside) would make the rename fail: it holds nothing worth keeping.
      if (!ready()) fs.rmSync(root, { recursive: true, force: true });
      fs.renameSync(building, root);
      for (const old of previous.slice(KEEP_INSTALLS - 1)) fs.rmSync(old, { recursive: true, force: true });
      return root;
    } finally {
      fs.rmSync(LOCK_DIR, { recursive: true, force: true });
    }
  }
}

/** Copies an example's project files (not node_modules or state) into a fresh folder under the install root. */
export async function copyExample(example: ExampleName): Promise<string> {
  const root = await installExamples();
  fs.mkdirSync(path.join(root, "projects"), { recursive: true });
  const dir = fs.mkdtempSync(path.join(root, "projects", `${example}-`));
  for (const f of fs.readdirSync(path.join(EXAMPLES_DIR, example))) {
    if (f === "node_modules" || f.startsWith(".vmhost-state") || f === "package-lock.json") continue;
    fs.cpSync(path.join(EXAMPLES_DIR, example, f), path.join(dir, f), { recursive: true });
  }
  return dir;
}

/** A running simulator with typed access to its admin API. */
export interface TestSimulator {
  url: string;
  apiKey: string;
  adminUrl: string;
  close(): Promise<void>;
}

/** Starts the simulator with short operations (a create or resize takes `opSeconds`). */
export async function startTestSimulator(opSeconds = 0.2): Promise<TestSimulator> {
  const sim = await startSimulator({ opSeconds });
  return { url: sim.url, apiKey: sim.apiKey, adminUrl: sim.adminUrl, close: () => sim.close() };
}

const SimInstance = z
  .object({
    uuid: z.string(),
    hostname: z.string(),
    cpu: z.number(),
    memoryGb: z.number(),
    storageGb: z.number(),
    status: z.string(),
    publicIpUuid: z.string().nullable(),
    publicIpAddress: z.string().nullable(),
    vswitchUuid: z.string().nullable(),
    blockStorageIds: z.array(z.string()),
  })
  .passthrough();
export type SimInstance = z.infer<typeof SimInstance>;

const SimState = z
  .object({
    instances: z.array(SimInstance),
    publicIps: z.array(z.object({ uuid: z.string(), address: z.string(), instanceUuid: z.string().nullable(), seeded: z.boolean() }).passthrough()),
    blockStorages: z.array(z.object({ uuid: z.string(), name: z.string(), instanceUuid: z.string().nullable() }).passthrough()),
    vswitches: z.array(z.object({ uuid: z.string(), name: z.string() }).passthrough()),
    snapshots: z.array(z.object({ uuid: z.string(), instanceUuid: z.string(), name: z.string(), status: z.string() }).passthrough()),
    firewallRules: z.array(z.object({ id: z.string(), instanceUuid: z.string(), destinationPort: z.string() }).passthrough()),
  })
  .passthrough();
export type SimState = z.infer<typeof SimState>;

/** `GET /__sim/state`. */
export async function simState(sim: TestSimulator): Promise<SimState> {
  const res = await fetch(`${sim.adminUrl}/state`);
  if (!res.ok) throw new Error(`GET /__sim/state: ${res.status}`);
  return SimState.parse(await res.json());
}

const SimRequests = z.object({
  requests: z.array(
    z.object({ seq: z.number(), method: z.string(), path: z.string(), operation: z.string().nullable(), status: z.number().nullable() }).passthrough(),
  ),
});
export type SimRequest = z.infer<typeof SimRequests>["requests"][number];

/** `GET /__sim/requests`: the API requests the simulator answered, oldest first. */
export async function simRequests(sim: TestSimulator): Promise<SimRequest[]> {
  const res = await fetch(`${sim.adminUrl}/requests`);
  if (!res.ok) throw new Error(`GET /__sim/requests: ${res.status}`);
  return SimRequests.parse(await res.json()).requests;
}

/** `PATCH /__sim/instances/{uuid}`: an out-of-band change, as someone clicking in the panel would make. */
export async function patchInstance(sim: TestSimulator, uuid: string, change: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${sim.adminUrl}/instances/${uuid}`, {
    method: "PATCH",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(change),
  });
  if (!res.ok) throw new Error(`PATCH /__sim/instances/${uuid}: ${res.status} ${await res.text()}`);
}

/** One stack of an example (a private copy of the project and its own state file) against a simulator. */
export class ExampleStack {
  readonly stateFile: string;

  private constructor(
    readonly example: ExampleName,
    readonly dir: string,
    private readonly sim: TestSimulator,
    /** Config every run gets (the example's required keys); a run's own config is applied on top. */
    private readonly baseConfig: Record<string, string>,
  ) {
    this.stateFile = path.join(dir, ".vmhost-state.json");
  }

  static async create(example: ExampleName, sim: TestSimulator, baseConfig: Record<string, string> = {}): Promise<ExampleStack> {
    return new ExampleStack(example, await copyExample(example), sim, baseConfig);
  }

  /** Runs an engine command the way `pulumi <command>` would, with the API key and password as secrets. */
  run(
    command: EngineCommand,
    extra: { config?: Record<string, string>; secrets?: Record<string, string> } & Pick<EngineOptions, "refresh" | "expectNoChanges" | "signal"> = {},
  ): Promise<EngineResult> {
    return runEngine({
      command,
      projectDir: this.dir,
      stateFile: this.stateFile,
      config: { "vmhost:baseUrl": this.sim.url, ...this.baseConfig, ...extra.config },
      secrets: { "vmhost:apiKey": this.sim.apiKey, vmPassword: VM_PASSWORD, ...extra.secrets },
      refresh: extra.refresh,
      expectNoChanges: extra.expectNoChanges,
      signal: extra.signal,
      // Nothing from the outer environment may stand in for stack config.
      env: { VMHOST_API_KEY: "", VMHOST_BASE_URL: "" },
      onOutput: process.env.E2E_VERBOSE ? (l) => process.stdout.write(`[${this.example}] ${l}\n`) : undefined,
    });
  }

  stateText(): string {
    return fs.readFileSync(this.stateFile, "utf8");
  }

  remove(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Throws with the engine's whole output when a run failed, so a failing test shows what happened. */
export function expectOk(result: EngineResult): EngineResult {
  if (!result.ok) throw new Error(`engine run failed: ${result.errors.join("; ")}\n${result.stdout}`);
  return result;
}

const StateResource = z
  .object({
    urn: z.string(),
    type: z.string(),
    name: z.string(),
    id: z.string().optional(),
    outputs: z.record(z.string(), z.unknown()).optional(),
    inputs: z.record(z.string(), z.unknown()).optional(),
  })
  .passthrough();
const StateFileSchema = z.object({ resources: z.array(StateResource) }).passthrough();

/** The resources recorded in a state file. */
export function stateResources(stateText: string): z.infer<typeof StateResource>[] {
  return StateFileSchema.parse(JSON.parse(stateText)).resources;
}

/** The marker Pulumi (and the local engine) put on a secret value: `{"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", ...}`. */
export const SECRET_SIG = "4dabf18193072939515e22adb298388d";
export function isSecretValue(v: unknown): boolean {
  return typeof v === "object" && v !== null && (v as Record<string, unknown>)[SECRET_SIG] === "1b47061264138c4ac30d75fd1eb44270";
}
