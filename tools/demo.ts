/**
 * `make demo`: examples/basic-vm through its whole life against the bundled simulator, with the local engine
 * standing in for the Pulumi CLI (design.md §6):
 *
 *   npm install (the packed tarball, as users install it) -> start the simulator -> pulumi preview -> pulumi up
 *   -> someone resizes and renames the VM in the panel -> pulumi refresh shows the drift -> pulumi up puts it
 *   back -> pulumi destroy -> check that the simulator holds nothing of the stack.
 *
 * Exit code 0 when every step did what it should, 1 otherwise (with the reason). Run it with `make demo`,
 * which installs, builds and packs first; `node dist/tools/demo.js` works once those are done.
 */
import { execFileSync } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startSimulator } from "../simulator";
import { EngineCommand, EngineResult, runEngine } from "./local-engine";

const REPO = path.resolve(__dirname, "..", "..");
const PROJECT = path.join(REPO, "examples", "basic-vm");
const TARBALL = path.join(REPO, ".pack", "pulumi-vmhost.tgz");

/** Bold section headers when stdout is a terminal; plain text in logs. */
const bold = (s: string): string => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);

function say(line = ""): void {
  process.stdout.write(line + "\n");
}

function section(step: string, what: string): void {
  say();
  say(bold(`━━━ ${step}  ${what}`));
}

class DemoFailure extends Error {}

function check(condition: boolean, message: string): void {
  if (!condition) throw new DemoFailure(message);
}

/**
 * Installs the example's dependencies the way a user does (`npm install` in the project, which takes
 * pulumi-vmhost from ../../.pack/pulumi-vmhost.tgz). npm keeps an already installed file: package even when
 * the tarball changed, so the installed pulumi-vmhost and the lock entry pinning it are dropped first.
 */
function installExample(): void {
  if (!fs.existsSync(TARBALL)) throw new DemoFailure(`${TARBALL} is missing: run \`make pack\` (make demo does)`);
  fs.rmSync(path.join(PROJECT, "node_modules", "pulumi-vmhost"), { recursive: true, force: true });
  fs.rmSync(path.join(PROJECT, "package-lock.json"), { force: true });
  execFileSync("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: PROJECT,
    stdio: ["ignore", "inherit", "inherit"],
  });
}

interface SimInstanceView {
  uuid: string;
  hostname: string;
  cpu: number;
  status: string;
  publicIpAddress: string | null;
}

async function admin<T>(adminUrl: string, method: string, route: string, body?: unknown): Promise<T> {
  const res = await fetch(`${adminUrl}${route}`, {
    method,
    headers: body === undefined ? undefined : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new DemoFailure(`${method} /__sim${route}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

async function main(): Promise<void> {
  const started = Date.now();
  section("0/6", "npm install in examples/basic-vm (pulumi-vmhost from .pack/pulumi-vmhost.tgz)");
  installExample();
  say("    installed");

  // Operations take 1 s here (a real host takes minutes): long enough to see the waits, short for a demo.
  const sim = await startSimulator({ opSeconds: 1 });
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-vmhost-demo-"));
  const stateFile = path.join(workDir, "state.json");
  const password = `Demo-${crypto.randomBytes(6).toString("hex")}-Aa1`;
  say(`    simulator listening on ${sim.url} (admin API ${sim.adminUrl})`);

  const run = async (command: EngineCommand): Promise<EngineResult> => {
    say(bold(`$ pulumi ${command}`) + `   # local engine, stack "dev"`);
    const result = await runEngine({
      command,
      projectDir: PROJECT,
      stateFile,
      // What `pulumi config set vmhost:baseUrl ...` and `pulumi config set --secret ...` hold for a real stack.
      config: { "vmhost:baseUrl": sim.url },
      secrets: { "vmhost:apiKey": sim.apiKey, vmPassword: password },
      env: { VMHOST_API_KEY: "", VMHOST_BASE_URL: "" },
      onOutput: (line) => say(`    ${line}`),
    });
    if (!result.ok) throw new DemoFailure(`pulumi ${command} failed: ${result.errors.join("; ")}`);
    return result;
  };

  try {
    section("1/6", "preview: what up would do");
    const preview = await run("preview");
    check(preview.summary.create === 2, "preview should plan to create the stack and the VM");

    section("2/6", "up: create the VM (waits until the host says it is running)");
    const up = await run("up");
    const vmId = String(up.outputs.instanceId);
    const created = (await admin<{ data: SimInstanceView }>(sim.adminUrl, "GET", `/instances/${vmId}`)).data;
    check(created.status === "Running" && created.cpu === 1, `the VM should be running with 1 CPU, got ${created.status} / ${created.cpu}`);
    check(!fs.readFileSync(stateFile, "utf8").includes(sim.apiKey), "the state file must not hold the API key");

    section("3/6", "someone changes the VM in the panel (out of band): 2 CPUs, hostname 'hand-edited'");
    await admin(sim.adminUrl, "PATCH", `/instances/${vmId}`, { cpu: 2, hostname: "hand-edited" });
    say(`    PATCH /__sim/instances/${vmId} {"cpu": 2, "hostname": "hand-edited"}`);

    section("4/6", "refresh: the drift shows");
    const refresh = await run("refresh");
    const drifted = refresh.drift?.find((d) => d.name === "vm")?.properties.map((p) => p.name) ?? [];
    check(drifted.includes("cpu") && drifted.includes("hostname"), `refresh should report cpu and hostname, got ${drifted.join(", ")}`);

    section("5/6", "up: converge the VM back to the program (resize, rename)");
    const converge = await run("up");
    check(converge.summary.update === 1, "up should update the VM");
    const back = (await admin<{ data: SimInstanceView }>(sim.adminUrl, "GET", `/instances/${vmId}`)).data;
    check(back.cpu === 1 && back.hostname === "basic-vm-1", `the VM should be back to 1 CPU / basic-vm-1, got ${back.cpu} / ${back.hostname}`);

    section("6/6", "destroy: delete the VM and release its address");
    await run("destroy");
    const state = await admin<{ instances: unknown[]; publicIps: Array<{ seeded: boolean; instanceUuid: string | null }> }>(sim.adminUrl, "GET", "/state");
    check(state.instances.length === 0, "the simulator should hold no instance");
    check(state.publicIps.every((ip) => ip.seeded && ip.instanceUuid === null), "every address of the stack should be released");

    say();
    say(bold(`Demo passed in ${((Date.now() - started) / 1000).toFixed(0)} s: preview, up, drift shown by refresh, converged by up, destroyed; nothing left on the host.`));
    say("Run it against a real account with the Pulumi CLI: see README.md, \"Examples\".");
  } finally {
    await sim.close();
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

main().then(
  () => {
    process.exitCode = 0;
  },
  (e: unknown) => {
    say();
    say(`demo FAILED: ${e instanceof Error ? (e instanceof DemoFailure ? e.message : (e.stack ?? e.message)) : String(e)}`);
    process.exitCode = 1;
  },
);
