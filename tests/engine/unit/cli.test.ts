/**
 * The command line (tools/local-engine/cli.ts), in process: what each option becomes for runEngine, usage
 * errors (exit 2, as the Pulumi CLI's ExitConfigurationError), and the exit code of the run. runEngine is a
 * fake here; the runs through the real engine are in tests/engine/config-and-cli.test.ts.
 */
import { main } from "../../../tools/local-engine/cli";
import { EngineOptions, EngineResult } from "../../../tools/local-engine";
import { emptySummary } from "../../../tools/local-engine/output";

function fakeRun(exitCode: EngineResult["exitCode"] = 0): { seen: EngineOptions[]; run: (o: EngineOptions) => Promise<EngineResult> } {
  const seen: EngineOptions[] = [];
  return {
    seen,
    run: async (o) => {
      seen.push(o);
      return { ok: exitCode === 0, exitCode, summary: emptySummary(), steps: [], outputs: {}, errors: [], stdout: "", durationMs: 0 };
    },
  };
}

let errors: string[];
let logs: string[];
beforeEach(() => {
  errors = [];
  logs = [];
  jest.spyOn(console, "error").mockImplementation((m: unknown) => void errors.push(String(m)));
  jest.spyOn(console, "log").mockImplementation((m: unknown) => void logs.push(String(m)));
});
afterEach(() => jest.restoreAllMocks());

test("every option reaches the engine", async () => {
  const f = fakeRun();
  const argv = [
    "up", "--cwd", "/p", "--stack", "prod", "--state", "/s.json", "--config", "a=1", "-c", "ns:b=x=y", "--secret", "k=s",
    "--config-file", "/c.json", "--refresh", "--expect-no-changes", "--yes", "--target", "u1", "-t", "u2", "--target-dependents", "--replace", "u3",
    "--parallel", "3", "--clear-pending-creates",
  ];
  expect(await main(argv, f.run)).toBe(0);
  expect(f.seen[0]).toMatchObject({
    command: "up",
    projectDir: "/p",
    stack: "prod",
    stateFile: "/s.json",
    config: { a: "1", "ns:b": "x=y" },
    secrets: { k: "s" },
    configFile: "/c.json",
    refresh: true,
    expectNoChanges: true,
    targets: ["u1", "u2"],
    targetDependents: true,
    replace: ["u3"],
    parallel: 3,
    clearPendingCreates: true,
  });
  expect(f.seen[0].signal?.aborted).toBe(false);
});

test("defaults: the current folder, nothing else set", async () => {
  const f = fakeRun();
  expect(await main(["preview"], f.run)).toBe(0);
  expect(f.seen[0]).toMatchObject({ command: "preview", projectDir: process.cwd(), config: {}, secrets: {}, parallel: undefined });
  expect(f.seen[0].stack).toBeUndefined();
  expect(f.seen[0].refresh).toBeUndefined();
});

test("the run's exit code is the process's; a run that cannot start is 1 with its message", async () => {
  expect(await main(["up"], fakeRun(7).run)).toBe(7);
  expect(await main(["up"], fakeRun(1).run)).toBe(1);
  expect(await main(["up"], async () => { throw new Error("state file is locked"); })).toBe(1);
  expect(errors).toEqual(["error: state file is locked"]);
});

test.each([
  [["bogus"], /^usage: vmhost-local-engine/],
  [[], /^usage:/],
  [["up", "extra"], /^usage:/],
  [["up", "--no-such-flag"], /Unknown option '--no-such-flag'[\s\S]*usage:/],
  [["destroy", "--expect-no-changes"], /^--expect-no-changes is not a destroy option\n\nusage:/],
  [["up", "--parallel", "0"], /^--parallel expects a positive integer, got "0"\n\nusage:/],
  [["up", "--parallel", "1.5"], /^--parallel expects a positive integer, got "1.5"/],
  [["up", "--parallel", "x"], /^--parallel expects a positive integer, got "x"/],
])("bad usage %j exits 2 without a run", async (argv, message) => {
  const f = fakeRun();
  expect(await main(argv, f.run)).toBe(2);
  expect(f.seen).toEqual([]);
  expect(errors.join("\n")).toMatch(message);
});

test("a --config or --secret without key=value is refused as a failure naming the flag", async () => {
  const f = fakeRun();
  expect(await main(["up", "--config", "novalue"], f.run)).toBe(1);
  expect(await main(["up", "--secret", "=v"], f.run)).toBe(1);
  expect(errors).toEqual(['error: --config expects key=value, got "novalue"', 'error: --secret expects key=value, got "=v"']);
  expect(f.seen).toEqual([]);
});

test("--help prints the usage and exits 0", async () => {
  const f = fakeRun();
  expect(await main(["--help"], f.run)).toBe(0);
  expect(logs[0]).toMatch(/^usage: vmhost-local-engine <preview\|up\|refresh\|destroy> \[options\]/);
  expect(f.seen).toEqual([]);
});

test("the first SIGINT cancels the run (steps under way finish); the handlers are removed afterwards", async () => {
  const before = process.listenerCount("SIGINT");
  const beforeTerm = process.listenerCount("SIGTERM");
  let signal: AbortSignal | undefined;
  const code = await main(["up"], async (o) => {
    signal = o.signal;
    expect(process.listenerCount("SIGINT")).toBe(before + 1);
    process.emit("SIGINT");
    return fakeRun(1).run(o);
  });
  expect(code).toBe(1);
  expect(signal?.aborted).toBe(true);
  expect(process.listenerCount("SIGINT")).toBe(before);
  expect(process.listenerCount("SIGTERM")).toBe(beforeTerm);
});

test("a second SIGINT exits at once (1), saying that the operations under way stay pending; the first does not exit", async () => {
  const exit = jest.spyOn(process, "exit").mockImplementation((() => undefined) as never);
  const stderr = jest.spyOn(process.stderr, "write").mockImplementation(() => true);
  await main(["up"], async (o) => {
    process.emit("SIGINT");
    expect(exit).not.toHaveBeenCalled();
    process.emit("SIGINT");
    return fakeRun(1).run(o);
  });
  expect(exit).toHaveBeenCalledWith(1);
  expect(stderr).toHaveBeenCalledWith("terminating immediately: operations under way stay pending in the state\n");
});

test("the run's output lines go to stdout, one a line", async () => {
  const stdout = jest.spyOn(process.stdout, "write").mockImplementation(() => true);
  await main(["preview"], async (o) => {
    o.onOutput?.("Previewing update (dev)");
    return fakeRun(0).run(o);
  });
  expect(stdout).toHaveBeenCalledWith("Previewing update (dev)\n");
});
