/**
 * Installs the package the way users get it (the tarball `make pack` writes) into a throwaway project, for
 * tests that run it through the real dynamic-provider host.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { ProviderHost } from "../../tools/local-engine/providerHost";

/** The project root and the packed tarball. */
export const ROOT = path.join(__dirname, "..", "..");
export const TARBALL = path.join(ROOT, ".pack", "pulumi-vmhost.tgz");

/** Unpacks the packed package into `<dir>/node_modules/pulumi-vmhost` and links its dependencies (as npm would place them). */
export function installPacked(dir: string, projectName = "host-test"): void {
  if (!fs.existsSync(TARBALL)) throw new Error(`${TARBALL} is missing: run \`make pack\` first (make test does)`);
  const modules = path.join(dir, "node_modules");
  const pkgDir = path.join(modules, "pulumi-vmhost");
  fs.mkdirSync(pkgDir, { recursive: true });
  execFileSync("tar", ["-xzf", TARBALL, "-C", pkgDir, "--strip-components=1"]);
  const manifest = JSON.parse(fs.readFileSync(path.join(pkgDir, "package.json"), "utf8")) as { dependencies: Record<string, string> };
  for (const dep of Object.keys(manifest.dependencies)) {
    const target = path.join(modules, dep);
    if (fs.existsSync(target)) continue;
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.symlinkSync(path.join(ROOT, "node_modules", dep), target, "dir");
  }
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: projectName, private: true }));
}

/**
 * Runs `program` (CommonJS source, using Pulumi mocks) in the throwaway project and returns the JSON it
 * writes to `process.env.OUT_FILE`: the inputs Pulumi would send the engine, `__provider` included.
 */
export function runUnderMocks<T>(dir: string, program: string, env: NodeJS.ProcessEnv = {}): T {
  fs.writeFileSync(path.join(dir, "program.js"), program);
  const outFile = path.join(dir, "registered.json");
  execFileSync(process.execPath, ["program.js"], { cwd: dir, env: { ...process.env, ...env, OUT_FILE: outFile }, stdio: "pipe" });
  return JSON.parse(fs.readFileSync(outFile, "utf8")) as T;
}

/**
 * Spawns the project's own `@pulumi/pulumi/cmd/dynamic-provider` (as the Pulumi CLI does) and configures it
 * with the simulator's credentials as stack config only: the environment's VMHOST_* variables are removed,
 * so a test passes only if credentials really flow through `configure`.
 */
export async function startConfiguredHost(
  dir: string,
  sim: { url: string; apiKey: string },
  onOutput: (stream: string, line: string) => void = () => undefined,
  engineAddress?: string,
): Promise<ProviderHost> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PULUMI_NODEJS_PROJECT: "host-test",
    PULUMI_NODEJS_STACK: "test",
    // The tests' simulators run 50 ms operations: the host's waits poll every 20 ms (backing off to 200 ms)
    // instead of the production 0.9 s / 10 s. Polling is not what these tests check.
    VMHOST_POLL_FAST_MS: process.env.VMHOST_POLL_FAST_MS ?? "20",
    VMHOST_POLL_MAX_MS: process.env.VMHOST_POLL_MAX_MS ?? "200",
  };
  delete env.VMHOST_API_KEY;
  delete env.VMHOST_BASE_URL;
  const host = await ProviderHost.start({
    script: path.join(dir, "node_modules", "@pulumi", "pulumi", "cmd", "dynamic-provider", "index.js"),
    // The host's first argument is the engine's address: the provider sends nothing once nothing listens there
    // (provider/engine-liveness.ts), so it must be a live one.
    engineAddress: engineAddress ?? (await sharedEngineStandIn()).address,
    cwd: dir,
    env,
    onOutput,
  });
  await host.configure({ "vmhost:apiKey": sim.apiKey, "vmhost:baseUrl": sim.url });
  return host;
}

/**
 * A TCP listener standing in for the engine's address (the host only needs it to be there); `close` makes it gone, as
 * when the Pulumi CLI is killed.
 */
export async function engineStandIn(): Promise<{ address: string; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  server.unref();
  const port = (server.address() as net.AddressInfo).port;
  return {
    address: `127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

let shared: Promise<{ address: string }> | undefined;
function sharedEngineStandIn(): Promise<{ address: string }> {
  return (shared ??= engineStandIn());
}
