/**
 * In-process tests of tools/local-engine/output.ts (the lines people read) and state.ts (the state file, its
 * encryption and its lock). No engine or provider processes are started.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
import {
  Printer,
  diffDetail,
  elapsed,
  emptySummary,
  progressLine,
  renderValue,
  stepLine,
  summaryBlock,
} from "../../../tools/local-engine/output";
import { StateFile, loadState, lockState, saveState, statePassphrase } from "../../../tools/local-engine/state";
import { SECRET_SIG, SPECIAL_SIG_KEY, SecretsCrypter, UNKNOWN_VALUE } from "../../../tools/local-engine/values";

const secret = (value: string): { [k: string]: string } => ({ [SPECIAL_SIG_KEY]: SECRET_SIG, value });

describe("output", () => {
  test("Printer forwards each line as printed, splitting text with newlines, and keeps the whole text", () => {
    const seen: string[] = [];
    const p = new Printer((l) => seen.push(l));
    expect(p.text()).toBe("");
    p.line("a\nb");
    p.line();
    expect(seen).toEqual(["a", "b", ""]);
    expect(p.text()).toBe("a\nb\n\n");
    const quiet = new Printer();
    quiet.line("x");
    expect(quiet.text()).toBe("x\n");
  });

  test("step and progress lines as Pulumi shows them, past tense after an up, verbs in preview", () => {
    expect(progressLine("create", "T", "web")).toBe(" +   T  web  creating...");
    expect(progressLine("update", "T", "web")).toBe(" ~   T  web  updating...");
    expect(progressLine("replace", "T", "web")).toBe(" +-  T  web  replacing...");
    expect(progressLine("delete", "T", "web")).toBe(" -   T  web  deleting...");
    expect(stepLine("create", "T", "web", false)).toBe(" +   T  web  created");
    expect(stepLine("update", "T", "web", false, "[diff: ~a]")).toBe(" ~   T  web  updated [diff: ~a]");
    expect(stepLine("replace", "T", "web", true, "x")).toBe(" +-  T  web  replace x");
    expect(stepLine("delete", "T", "web", false)).toBe(" -   T  web  deleted");
    expect(stepLine("same", "T", "web", false)).toBe("     T  web  unchanged");
    expect(diffDetail(["b", "a"])).toBe("[diff: ~a,b]");
    expect(diffDetail({ adds: ["d", "c"], deletes: ["e"], updates: ["b", "a"] })).toBe("[diff: +c,d-e~a,b]");
    expect(diffDetail({ adds: [], deletes: [], updates: [] })).toBe("");
    expect(diffDetail([])).toBe("");
  });

  test("elapsed rounds to whole seconds", () => {
    expect(elapsed(Date.now() - 2600)).toBe("(3s)");
    expect(elapsed(Date.now())).toBe("(0s)");
  });

  test("renderValue hides secrets, names unknowns and shortens long values to the limit", () => {
    expect(renderValue(undefined)).toBe("<absent>");
    expect(renderValue(secret("pw"))).toBe("[secret]");
    expect(renderValue(UNKNOWN_VALUE)).toBe("output<unknown>");
    expect(renderValue({ a: secret("pw"), b: UNKNOWN_VALUE, c: 1 })).toBe('{"a":"[secret]","b":"output<unknown>","c":1}');
    expect(renderValue("x".repeat(98))).toBe(`"${"x".repeat(98)}"`); // exactly 100 characters: kept
    expect(renderValue("x".repeat(99))).toBe(`"${"x".repeat(96)}...`);
    expect(renderValue("abcdef", 5)).toBe('"a...');
  });

  test("summary block: counts by kind, preview phrasing, no resources", () => {
    const s = { ...emptySummary(), create: 2, update: 1, replace: 3, delete: 4, same: 5 };
    expect(summaryBlock(s, false)).toBe(
      "Resources:\n    + 2 created\n    ~ 1 updated\n    +- 3 replaced\n    - 4 deleted\n    5 unchanged",
    );
    expect(summaryBlock({ ...emptySummary(), create: 1 }, true)).toBe("Resources:\n    + 1 to create");
    expect(summaryBlock(emptySummary(), false)).toBe("Resources:\n    no resources");
    expect(emptySummary()).toEqual({ create: 0, update: 0, replace: 0, delete: 0, same: 0 });
  });
});

/** The module object itself (the namespace import's bindings cannot be spied on; state.ts reads through to it). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const nodeFs = require("node:fs") as typeof fs;

/** The pid of a process that has exited (a stale lock's owner); `deadPid.last` is the last one given. */
const deadPid = Object.assign(
  (): string => (deadPid.last = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).stdout.toString()),
  { last: "" },
);

describe("state file", () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "engine-state-"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const sample = (): StateFile => ({
    version: 1,
    project: "proj",
    stack: "dev",
    secretsSalt: SecretsCrypter.newSalt(),
    resources: [
      {
        urn: "urn:a",
        type: "T",
        name: "a",
        custom: true,
        id: "1",
        parent: "",
        inputs: { pw: secret("hunter2"), size: 1 },
        outputs: { pw: secret("hunter2"), token: secret("tok-9"), size: 1 },
        dependencies: [],
        protect: false,
        additionalSecretOutputs: ["token"],
        deleteBeforeReplace: false,
      },
    ],
  });

  test("a missing file is an empty stack of that project, with a fresh salt", () => {
    const s = loadState(path.join(dir, "none.json"), "proj", "dev", "");
    expect(s).toMatchObject({ version: 1, project: "proj", stack: "dev", resources: [] });
    expect(Buffer.from(s.secretsSalt, "base64")).toHaveLength(16);
  });

  test("saved and loaded back: secrets encrypted on disk, pending operations kept, directories created", () => {
    const file = path.join(dir, "sub", "deeper", "state.json");
    const state: StateFile = {
      ...sample(),
      pending_operations: [{ type: "creating", resource: { urn: "urn:b", type: "T", inputs: { pw: secret("opsecret") } } }],
    };
    saveState(file, state, "pp");
    const text = fs.readFileSync(file, "utf8");
    expect(text).not.toMatch(/hunter2|tok-9|opsecret/);
    expect(text.endsWith("}\n")).toBe(true);
    expect(fs.readdirSync(path.dirname(file))).toEqual(["state.json"]); // no temp file left behind
    expect(loadState(file, "proj", "dev", "pp")).toEqual(state);
    expect(() => loadState(file, "proj", "dev", "wrong")).toThrow(/wrong PULUMI_CONFIG_PASSPHRASE/);
  });

  test("no pending operations: the file has no pending_operations at all", () => {
    const file = path.join(dir, "state.json");
    saveState(file, { ...sample(), pending_operations: [] }, "");
    const raw = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
    expect("pending_operations" in raw).toBe(false);
    const back = loadState(file, "proj", "dev", "");
    expect("pending_operations" in back).toBe(false);
    expect(back.resources[0].outputs.token).toEqual(secret("tok-9"));
  });

  test("a file that is not a state file, or another stack's, is refused with both names", () => {
    const file = path.join(dir, "state.json");
    fs.writeFileSync(file, JSON.stringify({ version: 2, resources: [] }));
    expect(() => loadState(file, "proj", "dev", "")).toThrow(`state file ${file} is not a local-engine state file`);
    saveState(file, sample(), "");
    expect(() => loadState(file, "proj", "prod", "")).toThrow(
      `state file ${file} belongs to project "proj" stack "dev", not "proj" stack "prod"`,
    );
    expect(() => loadState(file, "other", "dev", "")).toThrow(/not "other" stack "dev"/);
  });

  test("the passphrase is PULUMI_CONFIG_PASSPHRASE, empty when unset", () => {
    expect(statePassphrase({ PULUMI_CONFIG_PASSPHRASE: "x" })).toBe("x");
    expect(statePassphrase({})).toBe("");
  });

  test("the lock: one holder at a time, released on demand, a dead holder's or unreadable lock taken over", () => {
    const file = path.join(dir, "nested", "state.json");
    const release = lockState(file);
    expect(fs.readFileSync(`${file}.lock`, "utf8")).toBe(String(process.pid));
    expect(() => lockState(file)).toThrow(
      `state file ${file} is in use by another engine run (pid ${process.pid}); if it is not, remove ${file}.lock`,
    );
    release();
    expect(fs.existsSync(`${file}.lock`)).toBe(false);

    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).stdout.toString();
    fs.writeFileSync(`${file}.lock`, dead);
    lockState(file)();
    fs.writeFileSync(`${file}.lock`, "not a pid");
    const again = lockState(file);
    expect(fs.readFileSync(`${file}.lock`, "utf8")).toBe(String(process.pid));
    again();
  });

  test("a lock that cannot be written for another reason is that error, not a takeover", () => {
    const file = path.join(dir, "state.json");
    fs.writeFileSync(`${file}.lock`, deadPid()); // a takeover would succeed
    const write = jest.spyOn(nodeFs, "writeFileSync").mockImplementationOnce(() => {
      throw Object.assign(new Error("EIO: i/o error, open"), { code: "EIO" });
    });
    try {
      expect(() => lockState(file)).toThrow("EIO: i/o error, open");
    } finally {
      write.mockRestore();
    }
    expect(fs.readFileSync(`${file}.lock`, "utf8")).toBe(deadPid.last);
  });

  test("pid 0 in a lock is no owner (taken over); a live owner of another user (EPERM) holds it", () => {
    const file = path.join(dir, "state.json");
    fs.writeFileSync(`${file}.lock`, "0");
    lockState(file)();
    fs.writeFileSync(`${file}.lock`, "4242");
    const kill = jest.spyOn(process, "kill").mockImplementation(() => {
      throw Object.assign(new Error("kill EPERM"), { code: "EPERM" });
    });
    try {
      expect(() => lockState(file)).toThrow("in use by another engine run (pid 4242)");
    } finally {
      kill.mockRestore();
    }
  });

  test("releasing a lock someone already removed is harmless; a stale lock gone while taken over is no error", () => {
    const file = path.join(dir, "state.json");
    const release = lockState(file);
    fs.rmSync(`${file}.lock`);
    expect(() => release()).not.toThrow();
    // The stale owner's lock disappears between our read and our removal.
    fs.writeFileSync(`${file}.lock`, deadPid());
    const real = fs.readFileSync;
    const read = jest.spyOn(nodeFs, "readFileSync").mockImplementationOnce(((p: fs.PathOrFileDescriptor, o?: unknown) => {
      const text = real(p, o as BufferEncoding);
      fs.unlinkSync(p as string);
      return text;
    }) as typeof fs.readFileSync);
    try {
      lockState(file)();
    } finally {
      read.mockRestore();
    }
  });

  test("a lock that keeps coming back stale is given up after two tries", () => {
    const file = path.join(dir, "state.json");
    fs.writeFileSync(`${file}.lock`, deadPid());
    const real = fs.rmSync;
    let comebacks = 1;
    const rm = jest.spyOn(nodeFs, "rmSync").mockImplementation((p, o) => {
      real(p, o);
      if (comebacks-- > 0) fs.writeFileSync(p as string, deadPid.last);
    });
    try {
      expect(() => lockState(file)).toThrow(`cannot lock state file ${file}`);
    } finally {
      rm.mockRestore();
    }
  });
});
