/**
 * The client of the dynamic-provider host (tools/local-engine/providerHost.ts), against a fake host process
 * (fake-host.js: the real host's protocol and error format, answers scripted by each test, about 0.1 s to
 * start instead of the real host's second of loading @pulumi/pulumi). What is checked is what the engine's
 * user sees through ProviderHost: what the provider is asked (the request fields), what the engine gets back
 * (values, check failures, diff decisions), the provider's error messages as the provider wrote them, a
 * half-created resource's id and outputs (InitFailedError), the host's console output, and a host that dies.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ProviderHost } from "../../../tools/local-engine/providerHost";
import { InitFailedError } from "../../../tools/local-engine/providerTypes";
import { PropertyMap } from "../../../tools/local-engine/values";

const FAKE_HOST = path.join(__dirname, "fake-host.js");
const URN = "urn:pulumi:dev::proj::pulumi-nodejs:dynamic:Resource::web";

/** An answer of the fake host to one call (see fake-host.js). */
interface Answer {
  response?: Record<string, unknown>;
  error?: { message: string; initFailed?: { id: string; properties?: PropertyMap; reasons?: string[] }; otherDetail?: boolean };
  stdout?: string[];
  stderr?: string[];
  exitCode?: number;
}

/** The fake host's script (see fake-host.js). */
interface FakeScript {
  beforePort?: { stdout?: string[]; stderr?: string[]; exitCode?: number };
  portLine?: string;
  afterPort?: { stdout?: string[]; stderr?: string[] };
  answers?: Record<string, Answer[]>;
}

type LogEvent =
  | { event: "start"; pid: number; argv: string[]; cwd: string; marker?: string }
  | { event: "call"; method: string; request: Record<string, unknown> }
  | { event: "signal"; signal: string };

interface Fake {
  dir: string;
  logFile: string;
  output: Array<[string, string]>;
  /** What ProviderHost is given as onOutput: records the line and wakes outputLines. */
  onOutput(stream: string, line: string): void;
  /** The fake's events so far. */
  events(): LogEvent[];
  /** The requests of `method` the fake received, in order. */
  requests(method: string): Array<Record<string, unknown>>;
  /** Resolves once the host printed `n` output lines; fails after a deadline. */
  outputLines(n: number): Promise<Array<[string, string]>>;
}

const pids: number[] = [];
const dirs: string[] = [];

afterEach(() => {
  // Whatever a test left running (it failed before stopping its host) dies here, not at the end of the run.
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A fake host's files and output, before it starts. */
function fake(): Fake {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "fake-host-"));
  dirs.push(dir);
  const logFile = path.join(dir, "log.jsonl");
  const output: Array<[string, string]> = [];
  const waiters: Array<() => void> = [];
  const events = (): LogEvent[] =>
    fs.existsSync(logFile)
      ? fs
          .readFileSync(logFile, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as LogEvent)
      : [];
  return {
    dir,
    logFile,
    output,
    onOutput: (stream, line) => {
      output.push([stream, line]);
      for (const w of waiters.splice(0)) w();
    },
    events,
    requests: (method) => events().flatMap((e) => (e.event === "call" && e.method === method ? [e.request] : [])),
    outputLines: (n) =>
      new Promise((resolve, reject) => {
        const deadline = setTimeout(() => reject(new Error(`the host printed ${output.length} lines, not ${n}: ${JSON.stringify(output)}`)), 10_000);
        const check = (): void => {
          if (output.length >= n) {
            clearTimeout(deadline);
            resolve([...output]);
          } else waiters.push(check);
        };
        check();
      }),
  };
}

/** Starts ProviderHost on the fake host with `script`. */
async function startFake(script: FakeScript, f: Fake = fake(), extraEnv: NodeJS.ProcessEnv = {}): Promise<{ host: ProviderHost; f: Fake; pid: number }> {
  const host = await ProviderHost.start({
    script: FAKE_HOST,
    engineAddress: "127.0.0.1:9",
    cwd: f.dir,
    env: { ...process.env, FAKE_HOST_SCRIPT: JSON.stringify(script), FAKE_HOST_LOG: f.logFile, ...extraEnv },
    onOutput: (stream, line) => f.onOutput(stream, line),
  });
  const start = f.events().find((e) => e.event === "start");
  if (start?.event !== "start") throw new Error("the fake host logged no start");
  pids.push(start.pid);
  return { host, f, pid: start.pid };
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Resolves once process `pid` is gone (reaped: this process has seen its exit, so its ChildProcess knows the
 * exit code); fails after a deadline.
 */
async function gone(pid: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (alive(pid)) {
    if (Date.now() > deadline) throw new Error(`process ${pid} still alive after 10 s`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Property values of every kind a Struct carries (nested objects, arrays, null, numbers, booleans). */
const OLDS: PropertyMap = { name: "web", cores: 2, tags: ["a", "b"], nested: { on: true, off: false, none: null, ratio: 0.5 } };
const NEWS: PropertyMap = { name: "web", cores: 4, tags: [], nested: { on: false } };

describe("ProviderHost.start", () => {
  it("runs the host script with the engine address as its argument, in the project folder, with the run's environment", async () => {
    const f = fake();
    const { host } = await startFake({}, f, { FAKE_HOST_MARKER: "project env" });
    const start = f.events()[0];
    expect(start).toMatchObject({ event: "start", argv: ["127.0.0.1:9"], cwd: fs.realpathSync(f.dir), marker: "project env" });
    await host.stop();
  });

  it("routes the host's output lines to onOutput by stream, before and after its port, and never takes a later number for the port", async () => {
    const { host, f } = await startFake({
      // Lines with numbers before the port are not the port: only a line that is a number is.
      beforePort: { stdout: ["loading provider", "3 deprecation warnings", "warned 3"], stderr: ["warning: old node"] },
      // Whitespace around the port (a host writing "\r\n" or padding) still reads as the port.
      portLine: "  {port} ",
      afterPort: { stdout: ["42"], stderr: ["ready"] },
      answers: { check: [{ stdout: ["checking web"], stderr: ["deprecated field"], response: {} }] },
    });
    await host.check(URN, {}, {});
    const lines = await f.outputLines(8);
    const by = (stream: string): string[] => lines.filter(([s]) => s === stream).map(([, l]) => l);
    // A provider's console.log(42) after the port is output, not a second port.
    expect(by("stdout")).toEqual(["loading provider", "3 deprecation warnings", "warned 3", "42", "checking web"]);
    expect(by("stderr")).toEqual(["warning: old node", "ready", "deprecated field"]);
    await host.stop();
  });

  it("fails with the host's exit code when it exits before printing its port, and its last words reach onOutput", async () => {
    const f = fake();
    await expect(startFake({ beforePort: { stderr: ["Error: Cannot find module 'pulumi-vmhost'"], exitCode: 3 } }, f)).rejects.toThrow(
      "dynamic-provider host exited with code 3 before printing its port",
    );
    expect(await f.outputLines(1)).toEqual([["stderr", "Error: Cannot find module 'pulumi-vmhost'"]]);
  });

  it("fails, not hangs, when the host neither prints its port nor exits: it is killed and the error names the wait", async () => {
    const f = fake();
    const stuck = path.join(f.dir, "stuck-host.js");
    const pidFile = path.join(f.dir, "stuck-host.pid");
    fs.writeFileSync(stuck, `require("fs").writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); process.stdout.write('loading\\n'); setInterval(() => undefined, 1000);\n`);
    const lines: string[] = [];
    // (3 s, not less: on a loaded machine a node process may take a second to print its first line)
    await expect(
      ProviderHost.start({ script: stuck, engineAddress: "127.0.0.1:9", cwd: f.dir, env: process.env, onOutput: (_s, l) => lines.push(l), startTimeoutMs: 3_000 }),
    ).rejects.toThrow("dynamic-provider host printed no port within 3 s");
    expect(lines).toEqual(["loading"]);
    // and the stuck process is gone (killed), not left running: signal 0 only asks whether it exists
    const pid = Number(fs.readFileSync(pidFile, "utf8"));
    const alive = () => { try { process.kill(pid, 0); return true; } catch { return false; } };
    for (const until = Date.now() + 5_000; alive() && Date.now() < until; ) await new Promise((r) => setTimeout(r, 20));
    expect(alive()).toBe(false);
  });

  it("fails, not hangs, when the host cannot be started at all", async () => {
    const f = fake();
    const missing = path.join(f.dir, "no-such-folder");
    await expect(
      ProviderHost.start({ script: FAKE_HOST, engineAddress: "127.0.0.1:9", cwd: missing, env: process.env, onOutput: () => undefined }),
    ).rejects.toThrow(/ENOENT/);
  });
});

describe("ProviderHost calls", () => {
  it("configure hands the stack config to the provider as args and variables, asking for plain values (no secrets, no resources)", async () => {
    const { host, f } = await startFake({});
    await host.configure({ "vmhost:apiKey": "k-123", "proj:size": "2" });
    expect(f.requests("configure")).toEqual([
      {
        args: { "vmhost:apiKey": "k-123", "proj:size": "2" },
        variables: { "vmhost:apiKey": "k-123", "proj:size": "2" },
        acceptSecrets: false,
        acceptResources: false,
      },
    ]);
    await host.stop();
  });

  it("check sends the URN, old and new inputs, and returns the checked inputs and the failures by property", async () => {
    const checked = { ...NEWS, __provider: "serialized" };
    const { host, f } = await startFake({
      answers: {
        check: [
          { response: { inputs: checked, failures: [{ property: "cores", reason: "must be at most 2" }, { property: "name", reason: "taken" }] } },
          // A provider that returns no inputs: the engine sees none, not a crash.
          { response: {} },
        ],
      },
    });
    expect(await host.check(URN, OLDS, NEWS)).toEqual({
      inputs: checked,
      failures: [
        { property: "cores", reason: "must be at most 2" },
        { property: "name", reason: "taken" },
      ],
    });
    expect(await host.check(URN, {}, NEWS)).toEqual({ inputs: {}, failures: [] });
    expect(f.requests("check")[0]).toEqual({ urn: URN, olds: OLDS, news: NEWS });
    await host.stop();
  });

  it("diff sends the URN, id, old outputs, new inputs and old inputs, and reads changes, replaces and delete-before-replace", async () => {
    const { host, f } = await startFake({
      answers: {
        diff: [
          { response: { changes: "DIFF_SOME", replaces: ["zone", "image"], deleteBeforeReplace: true } },
          { response: { changes: "DIFF_NONE" } },
          { response: { changes: "DIFF_UNKNOWN" } },
        ],
      },
    });
    const oldInputs = { name: "web", cores: 2 };
    expect(await host.diff(URN, "vm-1", OLDS, NEWS, oldInputs)).toEqual({ changes: true, replaces: ["zone", "image"], deleteBeforeReplace: true });
    expect(await host.diff(URN, "vm-1", OLDS, NEWS, oldInputs)).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
    // No decision from the provider: the engine compares the inputs itself.
    expect(await host.diff(URN, "vm-1", OLDS, NEWS, oldInputs)).toEqual({ changes: undefined, replaces: [], deleteBeforeReplace: false });
    expect(f.requests("diff")[0]).toEqual({ urn: URN, id: "vm-1", olds: OLDS, news: NEWS, oldInputs });
    await host.stop();
  });

  it("create sends the URN and inputs and returns the new id and outputs (none: empty)", async () => {
    const outputs = { ...OLDS, ip: "10.0.0.5", __provider: "serialized" };
    const { host, f } = await startFake({ answers: { create: [{ response: { id: "vm-7", properties: outputs } }, { response: { id: "vm-8" } }] } });
    expect(await host.create(URN, NEWS)).toEqual({ id: "vm-7", outputs });
    expect(await host.create(URN, NEWS)).toEqual({ id: "vm-8", outputs: {} });
    expect(f.requests("create")[0]).toEqual({ urn: URN, properties: NEWS });
    await host.stop();
  });

  it("read sends the URN, id, state and inputs, and returns the live id, outputs and inputs only when the provider gave them", async () => {
    const live = { ...OLDS, cores: 8 };
    const { host, f } = await startFake({
      answers: {
        read: [
          { response: { id: "vm-1", properties: live, inputs: { name: "web", cores: 8 } } },
          { response: { id: "vm-2", properties: live } },
          // Gone: an empty id (the engine drops the resource from the state).
          { response: {} },
        ],
      },
    });
    const inputs = { name: "web", cores: 2 };
    expect(await host.read(URN, "vm-1", OLDS, inputs)).toEqual({ id: "vm-1", outputs: live, inputs: { name: "web", cores: 8 } });
    const withoutInputs = await host.read(URN, "vm-1", OLDS, inputs);
    expect(withoutInputs).toEqual({ id: "vm-2", outputs: live, inputs: undefined });
    expect(await host.read(URN, "vm-1", OLDS, inputs)).toEqual({ id: "", outputs: {}, inputs: undefined });
    expect(f.requests("read")[0]).toEqual({ urn: URN, id: "vm-1", properties: OLDS, inputs });
    await host.stop();
  });

  it("update sends the URN, id, old outputs, new inputs and old inputs, and returns the new outputs", async () => {
    const outputs = { ...NEWS, ip: "10.0.0.5" };
    const { host, f } = await startFake({ answers: { update: [{ response: { properties: outputs } }, { response: {} }] } });
    const oldInputs = { name: "web", cores: 2 };
    expect(await host.update(URN, "vm-1", OLDS, NEWS, oldInputs)).toEqual(outputs);
    expect(await host.update(URN, "vm-1", OLDS, NEWS, oldInputs)).toEqual({});
    expect(f.requests("update")[0]).toEqual({ urn: URN, id: "vm-1", olds: OLDS, news: NEWS, oldInputs });
    await host.stop();
  });

  it("delete sends the URN, id, outputs and old inputs", async () => {
    const { host, f } = await startFake({});
    const oldInputs = { name: "web", cores: 2 };
    await expect(host.delete(URN, "vm-1", OLDS, oldInputs)).resolves.toBeUndefined();
    expect(f.requests("delete")).toEqual([{ urn: URN, id: "vm-1", properties: OLDS, oldInputs }]);
    await host.stop();
  });
});

describe("ProviderHost errors", () => {
  it("a failed call rejects with the provider's own message, without gRPC's status prefix", async () => {
    const { host } = await startFake({
      answers: {
        check: [{ error: { message: "apiKey is not set" } }],
        diff: [{ error: { message: "diff broke" } }],
        create: [{ error: { message: "quota exceeded: 10 instances" } }],
        read: [{ error: { message: "401 unauthorized" } }],
        update: [{ error: { message: "instance is locked" } }],
        delete: [{ error: { message: "instance is busy" } }],
        configure: [{ error: { message: "bad config" } }],
      },
    });
    const plain = async (p: Promise<unknown>, message: string): Promise<void> => {
      const err = await p.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(Error);
      expect(err).not.toBeInstanceOf(InitFailedError);
      expect((err as Error).message).toBe(message);
    };
    await plain(host.check(URN, {}, NEWS), "apiKey is not set");
    await plain(host.diff(URN, "vm-1", OLDS, NEWS, {}), "diff broke");
    await plain(host.create(URN, NEWS), "quota exceeded: 10 instances");
    await plain(host.read(URN, "vm-1", OLDS, {}), "401 unauthorized");
    await plain(host.update(URN, "vm-1", OLDS, NEWS, {}), "instance is locked");
    await plain(host.delete(URN, "vm-1", OLDS, {}), "instance is busy");
    await plain(host.configure({}), "bad config");
    await host.stop();
  });

  it("a create that failed after the resource was made rejects with InitFailedError carrying its id, outputs and reasons", async () => {
    const properties = { ...NEWS, status: "error", ip: null };
    const { host } = await startFake({
      answers: { create: [{ error: { message: "instance vm-9 failed to boot", initFailed: { id: "vm-9", properties, reasons: ["boot timeout", "status error"] } } }] },
    });
    const err = await host.create(URN, NEWS).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InitFailedError);
    const failed = err as InitFailedError;
    expect({ message: failed.message, id: failed.id, properties: failed.properties, reasons: failed.reasons }).toEqual({
      message: "instance vm-9 failed to boot",
      id: "vm-9",
      properties,
      reasons: ["boot timeout", "status error"],
    });
    await host.stop();
  });

  it("an update's init failure is found after another detail in the status, and a status with no init failure is a plain error", async () => {
    const { host } = await startFake({
      answers: {
        update: [
          { error: { message: "resize half done", otherDetail: true, initFailed: { id: "vm-1", properties: { cores: 4 } } } },
          { error: { message: "unrelated detail only", otherDetail: true } },
        ],
      },
    });
    const first = await host.update(URN, "vm-1", OLDS, NEWS, {}).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(InitFailedError);
    expect({ ...(first as InitFailedError), message: (first as Error).message }).toEqual({
      message: "resize half done",
      id: "vm-1",
      properties: { cores: 4 },
      reasons: [],
      name: "InitFailedError",
    });
    const second = await host.update(URN, "vm-1", OLDS, NEWS, {}).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(Error);
    expect(second).not.toBeInstanceOf(InitFailedError);
    expect((second as Error).message).toBe("unrelated detail only");
    await host.stop();
  });
});

describe("ProviderHost stop and kill", () => {
  it("stop asks the host to exit (SIGTERM) and returns once it has", async () => {
    const { host, f, pid } = await startFake({});
    await host.stop();
    expect(alive(pid)).toBe(false);
    expect(f.events().filter((e) => e.event === "signal")).toEqual([{ event: "signal", signal: "SIGTERM" }]);
  });

  it("stop returns when the host had already exited on its own", async () => {
    const { host, f, pid } = await startFake({ answers: { delete: [{ exitCode: 0 }] } });
    // The host dies mid-call: the call fails (no answer), and stopping it afterwards must not wait forever.
    await expect(host.delete(URN, "vm-1", {}, {})).rejects.toThrow();
    await gone(pid);
    await host.stop();
    expect(alive(pid)).toBe(false);
    expect(f.events().filter((e) => e.event === "signal")).toEqual([]);
  });

  it("kill ends the host at once, without asking it to exit, and a stop afterwards returns", async () => {
    const { host, f, pid } = await startFake({});
    host.kill();
    await gone(pid);
    // SIGKILL: the host had no chance to run its exit handler (a cancelled run must not wait for a provider).
    expect(f.events().filter((e) => e.event === "signal")).toEqual([]);
    // The run that owned the host still stops it on its way out (runEngine's finally after killChildren).
    await host.stop();
  });
});
