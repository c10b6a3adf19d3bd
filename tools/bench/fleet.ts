/**
 * Fleet part of `make bench`: N Instances (optionally with a PublicIp each) through the local engine (the real
 * language runtime and dynamic-provider host), against the simulator rate-limited to 10 requests/s with 20 s
 * operations, default provider configuration. For `up`, `refresh` and `destroy` it records the time, the
 * requests (all, status reads, 429s), failures, and the peak memory (VmHWM) of the engine, the language runtime
 * and the provider host, sampled from /proc (Linux).
 */
import { spawn, execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { RequestLogEntry } from "../../simulator";

/** Where the fleet's Pulumi project is installed (kept between runs: npm then has little to do). */
export const FLEET_DIR = path.join(os.tmpdir(), "vmhost-bench-fleet");

const PROGRAM = `// Written by tools/bench/fleet.ts: N VMs (config bench:count), each with a PublicIp if bench:publicIp,
// or with the Instance's own publicIp input if bench:inlineIp.
const pulumi = require("@pulumi/pulumi");
const vmhost = require("pulumi-vmhost");
const config = new pulumi.Config();
const count = config.requireNumber("count");
const withIp = config.getBoolean("publicIp") ?? false;
const inlineIp = config.getBoolean("inlineIp") ?? false;
for (let i = 0; i < count; i++) {
  const vm = new vmhost.Instance("vm-" + i, {
    locationId: 1, tierId: 1, templateId: 2, hostname: "fleet-" + i, cpu: 1, memory: 1, storage: 20,
    username: "ops", password: "Bench-passw0rd", ...(inlineIp ? { publicIp: true } : {}),
  });
  if (withIp) new vmhost.PublicIp("ip-" + i, { instanceId: vm.id });
}
`;

/** Writes the project and installs pulumi-vmhost from the packed tarball, as a user would. */
export function installFleetProject(repo: string): void {
  const tarball = path.join(repo, ".pack", "pulumi-vmhost.tgz");
  if (!fs.existsSync(tarball)) throw new Error(`${tarball} is missing: run \`make pack\` (make bench does)`);
  fs.mkdirSync(FLEET_DIR, { recursive: true });
  fs.writeFileSync(path.join(FLEET_DIR, "Pulumi.yaml"), "name: bench\nruntime: nodejs\ndescription: make bench fleet\n");
  fs.writeFileSync(path.join(FLEET_DIR, "index.js"), PROGRAM);
  const pulumiVersion = (JSON.parse(fs.readFileSync(path.join(repo, "node_modules", "@pulumi", "pulumi", "package.json"), "utf8")) as { version: string }).version;
  fs.writeFileSync(
    path.join(FLEET_DIR, "package.json"),
    JSON.stringify({ name: "vmhost-bench-fleet", private: true, main: "index.js", dependencies: { "@pulumi/pulumi": pulumiVersion, "pulumi-vmhost": `file:${tarball}` } }, null, 2),
  );
  // npm keeps an installed file: package even when the tarball changed: drop it and its lock entry first.
  fs.rmSync(path.join(FLEET_DIR, "node_modules", "pulumi-vmhost"), { recursive: true, force: true });
  fs.rmSync(path.join(FLEET_DIR, "package-lock.json"), { force: true });
  execFileSync("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: FLEET_DIR, stdio: ["ignore", "ignore", "inherit"] });
}

/** Peak resident memory in MB per process kind. */
export interface MemoryPeaks {
  engine: number;
  runtime: number;
  providerHost: number;
}

function readProc(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

/** Samples VmHWM (peak RSS) of `root` and its descendants every 250 ms until stopped. */
function memorySampler(root: number): { stop(): MemoryPeaks } {
  const peaks: MemoryPeaks = { engine: 0, runtime: 0, providerHost: 0 };
  const sample = () => {
    const parents = new Map<number, number>();
    for (const entry of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      const stat = readProc(`/proc/${entry}/stat`);
      const ppid = stat ? Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) : NaN;
      if (Number.isFinite(ppid)) parents.set(Number(entry), ppid);
    }
    const isDescendant = (pid: number) => {
      for (let p = pid, depth = 0; p > 1 && depth < 20; p = parents.get(p) ?? 0, depth++) if (p === root) return true;
      return false;
    };
    for (const pid of parents.keys()) {
      if (!isDescendant(pid)) continue;
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readProc(`/proc/${pid}/status`) ?? "");
      if (!hwm) continue;
      const mb = Number(hwm[1]) / 1024;
      const cmd = (readProc(`/proc/${pid}/cmdline`) ?? "").replace(/\0/g, " ");
      const kind: keyof MemoryPeaks | undefined =
        pid === root ? "engine" : cmd.includes("dynamic-provider") ? "providerHost" : cmd.includes("cmd/run") || cmd.includes("index.js") ? "runtime" : undefined;
      if (kind) peaks[kind] = Math.max(peaks[kind], mb);
    }
  };
  const timer = setInterval(sample, 250);
  return {
    stop() {
      clearInterval(timer);
      return peaks;
    },
  };
}

/** One engine command's result. */
export interface EngineRun {
  exitCode: number;
  seconds: number;
  memory: MemoryPeaks;
  output: string;
}

/** Runs the local engine CLI on the fleet project (a separate process, so its memory is its own). */
export function runEngineCli(repo: string, command: string, args: string[], env: NodeJS.ProcessEnv): Promise<EngineRun> {
  const cli = path.join(repo, "dist", "tools", "local-engine", "cli.js");
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, command, "--cwd", FLEET_DIR, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    const sampler = memorySampler(child.pid!);
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ exitCode: code ?? 1, seconds: (performance.now() - started) / 1000, memory: sampler.stop(), output }));
  });
}

/** Request counts of a slice of the simulator's log. */
export function countRequests(
  log: RequestLogEntry[],
): { all: number; status: number; ticks: number; details: number; throttled: number; byOperation: Record<string, number> } {
  const byOperation: Record<string, number> = {};
  for (const r of log) {
    const name = `${r.operation ?? r.path}${r.operation === "listInstances" && r.query.includes("search=") ? "(search)" : ""}`;
    byOperation[name] = (byOperation[name] ?? 0) + 1;
  }
  return {
    byOperation,
    all: log.length,
    status: log.filter((r) => r.operation === "getInstance" || (r.operation === "listInstances" && !r.query.includes("search="))).length,
    // The shared poller's list requests (and the shared pre-create listing: the same request, before the creates).
    ticks: log.filter((r) => r.operation === "listInstances" && !r.query.includes("search=")).length,
    details: log.filter((r) => r.operation === "getInstance").length,
    throttled: log.filter((r) => r.status === 429).length,
  };
}
