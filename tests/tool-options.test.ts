/**
 * The make-target tools' command lines (tools/cli-args.ts): a misspelt option stops at once with the usage, instead of
 * starting a run of many minutes (the bench once started its 15-minute report on `--help`). Runs the built tools from
 * dist/ (`make test` builds first).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

const DIST = path.join(__dirname, "..", "dist", "tools");

function run(tool: "soak" | "bench", ...args: string[]) {
  const script = path.join(DIST, tool, "index.js");
  if (!fs.existsSync(script)) throw new Error(`${script} is missing: run make build first`);
  // A tool that ignored the mistake would start its run: the timeout fails the test instead of waiting for it.
  const r = spawnSync(process.execPath, [script, ...args], { encoding: "utf8", timeout: 20_000 });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

test.each([
  ["bench", ["--quik"], /^bench: Unknown option '--quik'/],
  ["bench", ["--cases", "50x"], /^bench: --cases: "50x" is not a fleet case/],
  ["soak", ["--lifecycle", "5"], /^soak: Unknown option '--lifecycle'/],
  ["soak", ["--lifecycles", "many"], /^soak: --lifecycles: "many" is not a whole number of at least 1/],
  ["soak", ["--host", "status-word"], /^soak: --host: unknown host variant status-word/],
  ["soak", ["--faults", "resets,typo"], /^soak: unknown fault class typo/],
] as const)("%s %j stops with exit 2, saying what is wrong, then the usage", (tool, args, message) => {
  const r = run(tool, ...args);
  expect(r.signal).toBeNull();
  expect(r.status).toBe(2);
  expect(r.stderr).toMatch(message);
  expect(r.stderr).toContain(`usage: node dist/tools/${tool}/index.js`);
  expect(r.stdout).toBe("");
});

test.each(["soak", "bench"] as const)("%s --help prints the usage and exits 0 without running", (tool) => {
  const r = run(tool, "--help");
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(new RegExp(`^usage: node dist/tools/${tool}/index.js`));
  expect(r.stderr).toBe("");
});
