/**
 * runEngine (tools/local-engine/index.ts) end to end, but with fakes where it spawns the real Pulumi pieces: a
 * throwaway project whose node_modules/@pulumi/pulumi holds only `cmd/run/index.js` (fake-program.js: registers
 * scripted resources through the engine's ResourceMonitor, as the language runtime does for a program) and
 * `cmd/dynamic-provider/index.js` (fake-host.js: the provider host's protocol, scripted answers). Each loads only
 * gRPC (about 0.1 s) instead of @pulumi/pulumi (about a second each), so a run takes a fraction of a second.
 * What is checked is what runEngine's user sees: how the program and the host are started (arguments,
 * environment, config), the command's phases and their output, the result (ok, exit code, summary, outputs,
 * errors), the state file, and that the processes are stopped or killed.
 * The step rules themselves are deployment.ts's, tested in deployment-*.test.ts; the real runtime and host in
 * tests/engine/*.test.ts.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { EngineCommand, EngineOptions, EngineResult, killChildren, runEngine } from "../../../tools/local-engine";

const FAKE_PROGRAM = path.join(__dirname, "fake-program.js");
const FAKE_HOST = path.join(__dirname, "fake-host.js");
const TYPE = "pulumi-nodejs:dynamic:Resource";
const urnOf = (name: string): string => `urn:pulumi:dev::proj::${TYPE}::${name}`;
const STACK_URN = "urn:pulumi:dev::proj::pulumi:pulumi:Stack::proj-dev";

/** The fake program's script (see fake-program.js). */
interface ProgramScript {
  resources?: Array<{ name: string; type?: string; object?: Record<string, unknown>; custom?: boolean }>;
  outputs?: Record<string, unknown>;
  logs?: Array<{ severity: "info" | "warning" | "error"; message: string }>;
  stdout?: string[];
  stderr?: string[];
  exitCode?: number;
  hang?: boolean;
}

/** The fake host's script (see fake-host.js; answers by method). */
interface HostScript {
  beforePort?: { stdout?: string[]; stderr?: string[]; exitCode?: number };
  afterPort?: { stdout?: string[]; stderr?: string[] };
  answers?: Record<string, Array<Record<string, unknown>>>;
}

type Event = Record<string, unknown> & { event: string };

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A throwaway project whose @pulumi/pulumi is the two fakes. */
function project(opts: { typescript?: boolean; main?: string; pulumi?: boolean } = {}): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "run-engine-"));
  dirs.push(dir);
  const yaml = [`name: proj`, `runtime:`, `  name: nodejs`, `  options:`, `    typescript: ${opts.typescript ?? false}`];
  if (opts.main) yaml.push(`main: ${opts.main}`);
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), yaml.join("\n") + "\n");
  if (opts.pulumi !== false) {
    const pulumi = path.join(dir, "node_modules", "@pulumi", "pulumi");
    for (const [cmd, target] of [
      ["run", FAKE_PROGRAM],
      ["dynamic-provider", FAKE_HOST],
    ]) {
      fs.mkdirSync(path.join(pulumi, "cmd", cmd), { recursive: true });
      fs.writeFileSync(path.join(pulumi, "cmd", cmd, "index.js"), `require(${JSON.stringify(target)});\n`);
    }
    fs.writeFileSync(path.join(pulumi, "package.json"), JSON.stringify({ name: "@pulumi/pulumi", version: "3.248.0" }));
  }
  return dir;
}

/** The events a fake logged (empty when it never started). */
function events(file: string): Event[] {
  return fs.existsSync(file)
    ? fs
        .readFileSync(file, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Event)
    : [];
}

interface Ran {
  result: EngineResult;
  program: Event[];
  host: Event[];
  lines: string[];
  stateFile: string;
}

/** One runEngine over `dir` with the fakes' scripts; the fakes' logs are fresh for each run. */
async function run(
  dir: string,
  command: EngineCommand,
  scripts: { program?: ProgramScript; host?: HostScript } = {},
  extra: Partial<EngineOptions> = {},
): Promise<Ran> {
  const programLog = path.join(dir, `program-${command}.jsonl`);
  const hostLog = path.join(dir, `host-${command}.jsonl`);
  fs.rmSync(programLog, { force: true });
  fs.rmSync(hostLog, { force: true });
  const lines: string[] = [];
  const result = await runEngine({
    command,
    projectDir: dir,
    parallel: 3,
    onOutput: (l) => lines.push(l),
    ...extra,
    env: {
      FAKE_PROGRAM_SCRIPT: JSON.stringify(scripts.program ?? {}),
      FAKE_PROGRAM_LOG: programLog,
      FAKE_HOST_SCRIPT: JSON.stringify(scripts.host ?? {}),
      FAKE_HOST_LOG: hostLog,
      PULUMI_CONFIG_PASSPHRASE: "test-pass",
      ...extra.env,
    },
  });
  return { result, program: events(programLog), host: events(hostLog), lines, stateFile: path.join(dir, ".vmhost-state.json") };
}

const calls = (host: Event[], method?: string): Event[] => host.filter((e) => e.event === "call" && (!method || e.method === method));
const resourcesIn = (stateFile: string): string[] =>
  (JSON.parse(fs.readFileSync(stateFile, "utf8")) as { resources: Array<{ urn: string }> }).resources.map((r) => r.urn);

const TWO = { resources: [{ name: "a", object: { size: 1 } }, { name: "b", object: { size: 2 } }], outputs: { ip: "10.0.0.1" } };

describe("runEngine up", () => {
  it("runs the program with the CLI's arguments and environment, starts the host with the stack config, and records what it created", async () => {
    const dir = project();
    const { result, program, host, lines, stateFile } = await run(dir, "up", { program: TWO }, {
      config: { size: "2", "vmhost:zone": "fsn1" },
      secrets: { "vmhost:apiKey": "sk-1" },
      env: { FAKE_MARKER: "from opts.env", FAKE_HOST_MARKER: "host env" },
    });
    expect(result).toMatchObject({ ok: true, exitCode: 0, errors: [], summary: { create: 3, update: 0, replace: 0, delete: 0, same: 0 } });
    expect(result.steps.map((s) => [s.op, s.urn])).toEqual([
      ["create", STACK_URN],
      ["create", urnOf("a")],
      ["create", urnOf("b")],
    ]);
    expect(result.outputs).toEqual({ ip: "10.0.0.1" });

    const start = program.find((e) => e.event === "start")!;
    const monitor = (start.argv as string[])[0].replace("--monitor=", "");
    expect(start.argv).toEqual([
      `--monitor=${monitor}`,
      `--engine=${monitor}`,
      "--project=proj",
      "--stack=dev",
      "--organization=organization",
      `--root-directory=${dir}`,
      `--pwd=${dir}`,
      "--parallel=3",
      ".",
    ]);
    expect(start.cwd).toBe(fs.realpathSync(dir));
    expect(start.env).toMatchObject({
      PULUMI_NODEJS_PROJECT: "proj",
      PULUMI_NODEJS_STACK: "dev",
      PULUMI_NODEJS_ORGANIZATION: "organization",
      PULUMI_NODEJS_TYPESCRIPT: "false",
      PULUMI_CONFIG_SECRET_KEYS: JSON.stringify(["vmhost:apiKey"]),
      FAKE_MARKER: "from opts.env",
    });
    expect(JSON.parse((start.env as Record<string, string>).PULUMI_CONFIG)).toEqual({
      "proj:config:size": "2",
      "vmhost:config:apiKey": "sk-1",
      "vmhost:config:zone": "fsn1",
    });

    // The host: the monitor's address as the engine address, the project folder, the same environment, and the
    // config (secrets decrypted) before any resource call.
    const hostStart = host.find((e) => e.event === "start")!;
    expect(hostStart).toMatchObject({
      argv: [monitor],
      cwd: fs.realpathSync(dir),
      marker: "host env",
      // The host reads the project name from it (config.get without a namespace).
      env: { PULUMI_NODEJS_PROJECT: "proj", PULUMI_NODEJS_STACK: "dev" },
    });
    expect(calls(host)[0]).toMatchObject({
      method: "configure",
      request: { variables: { "proj:size": "2", "vmhost:apiKey": "sk-1", "vmhost:zone": "fsn1" } },
    });
    expect(calls(host, "create").map((c) => (c.request as { urn: string }).urn)).toEqual([urnOf("a"), urnOf("b")]);
    // Stopped at the end of the run, not left behind.
    expect(host.filter((e) => e.event === "signal")).toEqual([{ event: "signal", signal: "SIGTERM" }]);

    expect(resourcesIn(stateFile)).toEqual([STACK_URN, urnOf("a"), urnOf("b")]);
    expect(fs.existsSync(`${stateFile}.lock`)).toBe(false);
    expect(lines[0]).toBe(`Updating (dev) of project proj, state ${stateFile}`);
    expect(lines).toEqual(expect.arrayContaining(["Outputs:", '    ip: "10.0.0.1"', "Resources:", "    + 3 created"]));
    expect(lines[lines.length - 1]).toMatch(/^Duration: \d+\.\ds$/);
    expect(result.stdout).toBe(lines.join("\n") + "\n");
  });

  it("prints the stack outputs sorted, long values cut at 200 characters, and hides secrets from the caller and the output", async () => {
    const dir = project();
    const secret = { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value: "s3cret" };
    const long = "x".repeat(300);
    const before = Date.now();
    const { result, lines } = await run(dir, "up", { program: { outputs: { zeta: 1, alpha: "a", password: secret, long } } });
    const took = Date.now() - before;
    expect(result.outputs).toEqual({ zeta: 1, alpha: "a", password: "[secret]", long });
    const at = lines.indexOf("Outputs:");
    expect(lines.slice(at, at + 5)).toEqual(["Outputs:", '    alpha: "a"', `    long: "${"x".repeat(196)}...`, "    password: [secret]", "    zeta: 1"]);
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(result.durationMs).toBeLessThanOrEqual(took);
  });

  it("passes the project's main and TypeScript setting to the program, and uses the stack and state file given", async () => {
    const dir = project({ typescript: true, main: "src/index.ts" });
    const stateFile = path.join(dir, "states", "prod.json");
    const { result, program } = await run(dir, "up", { program: { resources: [{ name: "a" }] } }, { stack: "prod", stateFile });
    expect(result.ok).toBe(true);
    const start = program.find((e) => e.event === "start")!;
    expect((start.argv as string[]).slice(2)).toEqual([
      "--project=proj",
      "--stack=prod",
      "--organization=organization",
      `--root-directory=${dir}`,
      `--pwd=${dir}`,
      "--parallel=3",
      "src/index.ts",
    ]);
    expect((start.env as Record<string, string>).PULUMI_NODEJS_TYPESCRIPT).toBe("true");
    expect((start.env as Record<string, string>).PULUMI_NODEJS_STACK).toBe("prod");
    expect(resourcesIn(stateFile)).toEqual([`urn:pulumi:prod::proj::pulumi:pulumi:Stack::proj-prod`, `urn:pulumi:prod::proj::${TYPE}::a`]);
    expect(fs.existsSync(path.join(dir, ".vmhost-state.json"))).toBe(false);
  });

  it("prints the program's and the provider's output, indented and marked", async () => {
    const dir = project();
    const { lines } = await run(dir, "up", {
      program: { resources: [{ name: "a" }], stdout: ["hello from the program"], stderr: ["a warning on stderr"] },
      host: { afterPort: { stdout: ["provider says hi"], stderr: ["provider warns"] } },
    });
    expect(lines).toEqual(
      expect.arrayContaining(["    hello from the program", "    a warning on stderr", "    [provider] provider says hi", "    [provider] provider warns"]),
    );
  });

  it("a program that fails without saying why fails the run with one error, and what was created is kept", async () => {
    const dir = project();
    const { result, lines, stateFile } = await run(dir, "up", { program: { resources: [{ name: "a" }], exitCode: 2 } });
    expect(result).toMatchObject({ ok: false, exitCode: 1, errors: ["the program failed (see its output above)"] });
    expect(resourcesIn(stateFile)).toContain(urnOf("a"));
    expect(lines).toContain("up failed: 1 error(s)");
  });

  it("a program that logged its error fails the run with that error only", async () => {
    const dir = project();
    const { result } = await run(dir, "up", { program: { logs: [{ severity: "error", message: "TypeError: x is undefined" }], exitCode: 1 } });
    expect(result).toMatchObject({ ok: false, exitCode: 1, errors: ["TypeError: x is undefined"] });
  });

  it("a provider host that dies before its port fails the run with its exit code", async () => {
    const dir = project();
    const { result, lines } = await run(dir, "up", {
      program: { resources: [{ name: "a" }] },
      host: { beforePort: { stderr: ["Cannot find module 'pulumi-vmhost'"], exitCode: 4 } },
    });
    expect(result.ok).toBe(false);
    expect(result.exitCode).toBe(1);
    expect(result.errors.join("\n")).toContain("dynamic-provider host exited with code 4 before printing its port");
    expect(lines).toContain("    [provider] Cannot find module 'pulumi-vmhost'");
  });

  it("--expect-no-changes: up applies its changes, then fails with exit code 7; without changes it succeeds", async () => {
    const dir = project();
    const first = await run(dir, "up", { program: TWO }, { expectNoChanges: true });
    expect(first.result).toMatchObject({ ok: false, exitCode: 7, errors: ["no changes were expected for update but changes were proposed"] });
    expect(first.lines).toContain("error: no changes were expected for update but changes were proposed");
    expect(resourcesIn(first.stateFile)).toContain(urnOf("b"));
    const again = await run(dir, "up", { program: TWO }, { expectNoChanges: true });
    expect(again.result).toMatchObject({ ok: true, exitCode: 0, errors: [], summary: { same: 3 } });
  });

  it("a failure wins over unexpected changes (exit code 1, not 7)", async () => {
    const dir = project();
    const { result } = await run(dir, "up", { program: { ...TWO, exitCode: 1 } }, { expectNoChanges: true });
    expect(result.exitCode).toBe(1);
    expect(result.errors).toEqual(["the program failed (see its output above)"]);
  });

  it("honours --target, --replace and PULUMI_PARALLEL", async () => {
    const dir = project();
    const targeted = await run(dir, "up", { program: TWO }, { targets: [urnOf("a")] });
    expect(calls(targeted.host, "create").map((c) => (c.request as { urn: string }).urn)).toEqual([urnOf("a")]);
    const replaced = await run(dir, "up", { program: TWO }, { replace: [urnOf("a")], parallel: undefined, env: { PULUMI_PARALLEL: "5" } });
    expect(replaced.result.steps.filter((s) => s.op === "replace").map((s) => s.urn)).toEqual([urnOf("a")]);
    expect(replaced.program.find((e) => e.event === "start")!.argv).toContain("--parallel=5");
  });

  it("a host that fails while no resource needs it does not fail the run, nor leave an unhandled rejection", async () => {
    const unhandled: unknown[] = [];
    const listener = (reason: unknown): void => void unhandled.push(reason);
    process.on("unhandledRejection", listener);
    try {
      const dir = project();
      const { result } = await run(dir, "up", { program: { outputs: { n: 1 } }, host: { beforePort: { exitCode: 4 } } });
      expect(result).toMatchObject({ ok: true, errors: [], outputs: { n: 1 } });
      // Let a rejection nobody handled surface (Node reports it after the microtask queue drains).
      await new Promise((r) => setImmediate(r));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", listener);
    }
  });

  it("names the state file relative to the current folder when it is inside it", async () => {
    const dir = project();
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const { lines } = await run(dir, "up", { program: { resources: [{ name: "a" }] } });
      expect(lines[0]).toBe("Updating (dev) of project proj, state .vmhost-state.json");
    } finally {
      process.chdir(cwd);
    }
  });
});

describe("runEngine preview", () => {
  it("runs the program as a dry run, writes no state and takes no lock", async () => {
    const dir = project();
    const stateFile = path.join(dir, ".vmhost-state.json");
    // A lock held by a live process: preview still runs (it only reads the state).
    fs.writeFileSync(`${stateFile}.lock`, String(process.pid));
    const { result, program, lines } = await run(dir, "preview", { program: TWO }, { expectNoChanges: true });
    expect((program.find((e) => e.event === "start")!.argv as string[]).slice(-2)).toEqual(["--dry-run", "."]);
    expect(fs.existsSync(stateFile)).toBe(false);
    expect(lines[0]).toMatch(/^Previewing update \(dev\) of project proj/);
    expect(lines).toContain("    + 3 to create");
    expect(result).toMatchObject({ ok: false, exitCode: 7, errors: ["no changes were expected for preview but changes were proposed"] });
    expect(lines).toContain("preview failed: 1 error(s)");
  });

  it("an up refuses to start while another run holds the state", async () => {
    const dir = project();
    fs.writeFileSync(path.join(dir, ".vmhost-state.json.lock"), String(process.pid));
    await expect(run(dir, "up", { program: TWO })).rejects.toThrow(/is in use by another engine run/);
  });

  it("refuses a project without @pulumi/pulumi installed, saying what to do", async () => {
    const dir = project({ pulumi: false });
    await expect(run(dir, "preview", { program: TWO })).rejects.toThrow(`${dir} has no node_modules/@pulumi/pulumi: run npm install in the project first`);
  });
});

describe("runEngine refresh and destroy", () => {
  it("refresh reads every resource and reports drift, without running the program", async () => {
    const dir = project();
    await run(dir, "up", { program: TWO });
    const { result, program, host, lines } = await run(dir, "refresh", {
      host: { answers: { "read a": [{ response: { id: "a-id", properties: { __provider: "serialized", size: 5 } } }], "read b": [{ response: {} }], "diff a": [{ response: { changes: "DIFF_SOME" } }] } },
    });
    expect(program).toEqual([]);
    expect(calls(host, "read")).toHaveLength(2);
    expect(result.drift?.map((d) => d.urn).sort()).toEqual([urnOf("a"), urnOf("b")]);
    expect(result.summary).toMatchObject({ update: 1, delete: 1 });
    expect(lines[0]).toMatch(/^Refreshing \(dev\)/);
    expect(lines).not.toContain("Outputs:");
    expect(lines).not.toContain("Refreshing the state first:");
  });

  it("preview --refresh refreshes first, says so, then previews against the refreshed state", async () => {
    const dir = project();
    await run(dir, "up", { program: TWO });
    const { result, lines, host } = await run(dir, "preview", { program: TWO }, { refresh: true });
    expect(result).toMatchObject({ ok: true, drift: [], summary: { create: 0, same: 3 } });
    // The refresh's host serves the program's resources too: one host, stopped once.
    expect(host.filter((e) => e.event === "start")).toHaveLength(1);
    expect(host.filter((e) => e.event === "signal")).toHaveLength(1);
    const at = (l: string): number => lines.indexOf(l);
    expect(at("Refreshing the state first:")).toBeGreaterThan(0);
    expect(at("    no drift")).toBeGreaterThan(at("Refreshing the state first:"));
    expect(at("Then, against the refreshed state:")).toBeGreaterThan(at("    no drift"));
  });

  it("a failed refresh stops the run before the program runs", async () => {
    const dir = project();
    await run(dir, "up", { program: TWO });
    const { result, program } = await run(dir, "up", { program: TWO, host: { answers: { "read a": [{ error: { message: "401 unauthorized" } }] } } }, { refresh: true });
    expect(result.ok).toBe(false);
    expect(result.errors).toEqual([`${TYPE} "a": refresh failed: 401 unauthorized`]);
    expect(program).toEqual([]);
  });

  it("a --replace target not in the stack stops the run before the refresh reads anything", async () => {
    const dir = project();
    await run(dir, "up", { program: TWO });
    const { result, host, program } = await run(dir, "up", { program: TWO }, { refresh: true, replace: [urnOf("nope")] });
    expect(result.errors).toEqual([`${urnOf("nope")}: a --replace target could not be found in the stack`]);
    expect(calls(host, "read")).toEqual([]);
    expect(program).toEqual([]);
  });

  it("destroy deletes everything without running the program, and destroy --refresh says 'Then:'", async () => {
    const dir = project();
    await run(dir, "up", { program: TWO });
    const { result, program, host, lines, stateFile } = await run(dir, "destroy", {}, { refresh: true });
    expect(program).toEqual([]);
    expect(calls(host, "delete").map((c) => (c.request as { urn: string }).urn).sort()).toEqual([urnOf("a"), urnOf("b")]);
    expect(result).toMatchObject({ ok: true, summary: { delete: 3 } });
    expect(lines).toContain("Then:");
    expect(lines[0]).toMatch(/^Destroying \(dev\)/);
    expect(lines).not.toContain("Outputs:");
    expect(resourcesIn(stateFile)).toEqual([]);
  });
});

describe("runEngine cancellation", () => {
  it("a run aborted before it starts changes nothing and fails", async () => {
    const dir = project();
    const aborted = new AbortController();
    aborted.abort();
    const { result, lines, host } = await run(dir, "up", { program: TWO }, { signal: aborted.signal });
    expect(lines).toContain("cancelling: steps under way will finish, nothing new starts");
    expect(result.ok).toBe(false);
    expect(calls(host, "create")).toEqual([]);
  });

  it("an abort after the run ended prints nothing more", async () => {
    const dir = project();
    const controller = new AbortController();
    const { lines, result } = await run(dir, "up", { program: TWO }, { signal: controller.signal });
    expect(result.ok).toBe(true);
    const printed = lines.length;
    controller.abort();
    expect(lines.length).toBe(printed);
  });

  it("killChildren kills the program and the provider host of a run under way, and the run ends", async () => {
    const dir = project();
    const programLog = path.join(dir, "program-up.jsonl");
    const running = run(dir, "up", { program: { resources: [{ name: "a" }], hang: true } });
    const deadline = Date.now() + 20_000;
    // The program has registered `a` (so the host is up) and now hangs.
    while (!events(programLog).some((e) => e.event === "registered")) {
      if (Date.now() > deadline) throw new Error("the fake program never registered its resource");
      await new Promise((r) => setTimeout(r, 20));
    }
    killChildren();
    const { result, host } = await running;
    expect(result.ok).toBe(false);
    expect(result.errors).toEqual(["the program failed (see its output above)"]);
    // SIGKILL: the host never saw a SIGTERM (no chance to clean up, as a second Ctrl-C wants).
    expect(host.filter((e) => e.event === "signal")).toEqual([]);
  });
});
