/**
 * Unit tests of the example programs with Pulumi's mocks (`pulumi.runtime.setMocks`): no engine, no API, no
 * simulator. This is how users test their own programs (see the README, "Testing your programs"): run the
 * program against mocks, then check the resources it declares, how they are wired, and their options.
 *
 * The program runs from a copy of the example under the shared install (the packed package, as users have
 * it), and `@pulumi/pulumi` is taken from there too: mocks must be set on the SAME copy of @pulumi/pulumi
 * that the program and pulumi-vmhost use.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { ExampleName, SECRET_SIG, copyExample, installExamples } from "./helpers";

/** The part of @pulumi/pulumi these tests use (typed loosely on purpose: it is loaded at run time). */
interface PulumiModule {
  runtime: {
    setMocks(mocks: Mocks, project?: string, stack?: string, preview?: boolean): Promise<void>;
    setAllConfig(config: Record<string, string>, secretKeys?: string[]): void;
    /** Waits until every resource registration the program started has completed. */
    disconnect(): Promise<void>;
    getMonitor(): { registerResource(req: RegisterRequest, cb: (err: unknown, res: unknown) => void): void };
  };
  Output: { isInstance(v: unknown): boolean };
}
interface Mocks {
  newResource(args: { type: string; name: string; inputs: Record<string, unknown> }): { id: string; state: Record<string, unknown> };
  call(args: { token: string; inputs: Record<string, unknown> }): Record<string, unknown>;
}
/** The gRPC request the program sends for each resource: it carries the resource options. */
interface RegisterRequest {
  getType(): string;
  getName(): string;
  getObject(): { toJavaScript(): Record<string, unknown> } | undefined;
  getDependenciesList(): string[];
  getProtect(): boolean | undefined;
  getDeletebeforereplace(): boolean;
  getAdditionalsecretoutputsList(): string[];
  getDeletedwith(): string;
}

/** What the program asked for, per resource (the options as the engine would receive them). */
interface Declared {
  /** The class name: Instance, PublicIp, ... (dynamic resources are typed `pulumi-nodejs:dynamic/vmhost:<Class>`). */
  kind: string;
  name: string;
  /** Inputs as the program sent them (secrets still wrapped: see isSecretInput). */
  inputs: Record<string, unknown>;
  /** Names of the resources this one depends on (dependsOn and inputs taken from other resources). */
  dependsOn: string[];
  protect: boolean;
  deleteBeforeReplace: boolean;
  additionalSecretOutputs: string[];
  /** Name of the resource this one is deleted with (`deletedWith`), if any. */
  deletedWith?: string;
}

interface ProgramRun {
  resources: Map<string, Declared>;
  exports: Record<string, unknown>;
  /** Resolves an exported Output (or a plain value) to its value. */
  value(v: unknown): Promise<unknown>;
}

/** Fake computed outputs, per resource class, as the API would fill them. */
function computed(kind: string, name: string, inputs: Record<string, unknown>): Record<string, unknown> {
  switch (kind) {
    case "Instance":
      return { status: "Running", ipAddress: inputs.publicIp ? "192.0.2.10" : null, estimatedMonthlyPrice: 86400 };
    case "PublicIp":
      return { publicIpId: `${name}-uuid`, ipAddress: `198.51.100.${name.length}` };
    case "VswitchAttachment":
      return { vswitchName: "private-1", networkIp: "10.10.1.0/24" };
    case "BlockStorageAttachment":
      return { name: "data-50", sizeGb: 50 };
    case "Snapshot":
      return { status: "Ready", attachedStorage: [] };
    default:
      return {};
  }
}

const dirs = new Map<ExampleName, string>();
async function exampleDir(example: ExampleName): Promise<string> {
  if (!dirs.has(example)) dirs.set(example, await copyExample(example));
  return dirs.get(example)!;
}

const runs = new Map<string, Promise<ProgramRun>>();
/**
 * Runs an example program under mocks with the given stack config and returns what it declared. Runs with
 * the same example and config are shared (the tests only read them): each run loads @pulumi/pulumi afresh.
 */
function runProgram(example: ExampleName, config: Record<string, string>, secrets: Record<string, string> = { vmPassword: "Mock-Passw0rd" }): Promise<ProgramRun> {
  const key = JSON.stringify([example, config, secrets]);
  if (!runs.has(key)) runs.set(key, runProgramOnce(example, config, secrets));
  return runs.get(key)!;
}

async function runProgramOnce(example: ExampleName, config: Record<string, string>, secrets: Record<string, string>): Promise<ProgramRun> {
  const dir = await exampleDir(example);
  let run!: Promise<ProgramRun>;
  // A fresh module registry per run (a user's test file runs its program once and needs none of this):
  // the program, pulumi-vmhost and @pulumi/pulumi are loaded again, so each run sees its own config.
  jest.isolateModules(() => {
    const pulumi = require(require.resolve("@pulumi/pulumi", { paths: [dir] })) as PulumiModule;
    const resources = new Map<string, Declared>();
    const urnNames = new Map<string, string>();
    // Everything up to the program's require runs synchronously, inside this isolated registry.
    const mocksSet = pulumi.runtime.setMocks(
      {
        newResource: ({ type, name, inputs }) => {
          const kind = type.split(":").pop()!;
          return { id: `${name}-id`, state: { ...inputs, ...computed(kind, name, inputs) } };
        },
        call: ({ inputs }) => inputs,
      },
      example,
      "test",
      false,
    );
    // Record the options each resource was registered with: mocks only see the inputs.
    const monitor = pulumi.runtime.getMonitor();
    const register = monitor.registerResource.bind(monitor);
    monitor.registerResource = (req, cb) => {
      const kind = req.getType().split(":").pop()!;
      resources.set(req.getName(), {
        kind,
        name: req.getName(),
        inputs: req.getObject()?.toJavaScript() ?? {},
        dependsOn: req.getDependenciesList(),
        protect: req.getProtect() ?? false,
        deleteBeforeReplace: req.getDeletebeforereplace(),
        additionalSecretOutputs: req.getAdditionalsecretoutputsList(),
        deletedWith: req.getDeletedwith() || undefined,
      });
      register(req, (err, res) => {
        if (!err) urnNames.set((res as { getUrn(): string }).getUrn(), req.getName());
        cb(err, res);
      });
    };
    const prefixed = (o: Record<string, string>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k.includes(":") ? k : `${example}:${k}`, v]));
    pulumi.runtime.setAllConfig({ ...prefixed(config), ...prefixed(secrets) }, Object.keys(prefixed(secrets)));
    let exports: Record<string, unknown>;
    try {
      exports = require(path.join(dir, "index.ts")) as Record<string, unknown>;
    } catch (e) {
      run = Promise.reject(e);
      return;
    }
    const value = (v: unknown): Promise<unknown> =>
      pulumi.Output.isInstance(v)
        ? new Promise((resolve) => (v as { apply(f: (x: unknown) => unknown): unknown }).apply((x) => resolve(x)))
        : Array.isArray(v)
          ? Promise.all(v.map(value))
          : Promise.resolve(v);
    run = (async () => {
      await mocksSet;
      // Every registration the program started (resources wait for their inputs, so some start late).
      await Promise.all(Object.values(exports).map(value));
      await pulumi.runtime.disconnect();
      for (const r of resources.values()) {
        r.dependsOn = r.dependsOn.map((urn) => urnNames.get(urn) ?? urn).sort();
        if (r.deletedWith) r.deletedWith = urnNames.get(r.deletedWith) ?? r.deletedWith;
      }
      return { resources, exports, value };
    })();
  });
  return run;
}

function isSecretInput(v: unknown): boolean {
  return typeof v === "object" && v !== null && SECRET_SIG in v;
}

function ofKind(run: ProgramRun, kind: string): Declared[] {
  return [...run.resources.values()].filter((r) => r.kind === kind);
}

// The first run on a machine installs the packed package (npm install, about 25 s).
beforeAll(() => installExamples(), 180_000);

afterAll(() => {
  for (const dir of dirs.values()) fs.rmSync(dir, { recursive: true, force: true });
});

describe("basic-vm", () => {
  test("declares one running VM with a public address, sized from config, its password a secret", async () => {
    const run = await runProgram("basic-vm", { cpu: "2", hostname: "api-1" });
    expect([...run.resources.values()].map((r) => `${r.kind} ${r.name}`)).toEqual(["Instance vm"]);
    const vm = run.resources.get("vm")!;
    expect(vm.inputs).toMatchObject({ hostname: "api-1", cpu: 2, memory: 1, storage: 20, publicIp: true, powerState: "running" });
    expect(isSecretInput(vm.inputs.password)).toBe(true);
    expect(vm.additionalSecretOutputs).toContain("password");
    expect(vm.protect).toBe(false);
    expect(await run.value(run.exports.ipAddress)).toBe("192.0.2.10");
  });

  test("protect follows config, so a production stack cannot destroy the VM by accident", async () => {
    const run = await runProgram("basic-vm", { protect: "true" });
    expect(run.resources.get("vm")?.protect).toBe(true);
  });

  test("refuses to run without the vmPassword secret", async () => {
    await expect(runProgram("basic-vm", {}, {})).rejects.toThrow(/vmPassword/);
  });
});

describe("web-cluster", () => {
  const config = { vswitchId: "vsw-uuid", webCount: "3", adminCidr: "198.51.100.0/24" };

  test("declares webCount web VMs and a database, every VM on the private network", async () => {
    const run = await runProgram("web-cluster", config);
    expect(ofKind(run, "Instance").map((r) => r.inputs.hostname).sort()).toEqual(["db-1", "web-1", "web-2", "web-3"]);
    const links = ofKind(run, "VswitchAttachment");
    expect(links.map((l) => [l.name, l.inputs.instanceId, l.inputs.vswitchId]).sort()).toEqual([
      ["db-private", "db-id", "vsw-uuid"],
      ["web-1-private", "web-1-id", "vsw-uuid"],
      ["web-2-private", "web-2-id", "vsw-uuid"],
      ["web-3-private", "web-3-id", "vsw-uuid"],
    ]);
    // One owner per address and link: the Instances leave both to the standalone resources.
    for (const vm of ofKind(run, "Instance")) {
      expect(vm.inputs).not.toHaveProperty("publicIp");
      expect(vm.inputs).not.toHaveProperty("vswitchId");
    }
    expect(await run.value(run.exports.webPublicIps)).toHaveLength(3);
  });

  test("only web VMs get a public address, only after their firewall rules (dependsOn), released with the VM (deletedWith)", async () => {
    const run = await runProgram("web-cluster", config);
    const ips = ofKind(run, "PublicIp");
    expect(ips.map((ip) => ip.inputs.instanceId).sort()).toEqual(["web-1-id", "web-2-id", "web-3-id"]);
    for (const i of [1, 2, 3]) {
      expect(run.resources.get(`web-${i}-ip`)?.dependsOn).toEqual([`web-${i}`, `web-${i}-http`, `web-${i}-https`, `web-${i}-ssh`]);
      expect(run.resources.get(`web-${i}-ip`)?.deletedWith).toBe(`web-${i}`);
    }
  });

  test("firewall: HTTP and HTTPS from anywhere, SSH from the admin network, PostgreSQL from the private network only", async () => {
    const run = await runProgram("web-cluster", config);
    const rules = ofKind(run, "FirewallRule").map((r) => `${r.name}: ${String(r.inputs.protocol)}/${String(r.inputs.port)} ${String(r.inputs.action)} from ${String(r.inputs.sourceIp ?? "any")}`);
    expect(rules.sort()).toEqual([
      "web-1-http: tcp/80 accept from any",
      "web-1-https: tcp/443 accept from any",
      "web-1-ssh: tcp/22 accept from 198.51.100.0/24",
      "web-2-http: tcp/80 accept from any",
      "web-2-https: tcp/443 accept from any",
      "web-2-ssh: tcp/22 accept from 198.51.100.0/24",
      "web-3-http: tcp/80 accept from any",
      "web-3-https: tcp/443 accept from any",
      "web-3-ssh: tcp/22 accept from 198.51.100.0/24",
      "db-postgres: tcp/5432 accept from 10.10.1.0/24",
    ].sort());
    // The database rule's source is the network's CIDR as its attachment reports it.
    expect(run.resources.get("db-postgres")?.dependsOn).toContain("db-private");
  });
});

describe("storage-and-snapshots", () => {
  const config = { blockStorageId: "disk-uuid", snapshotName: "before-upgrade" };

  test("attaches the disk to the VM, detaching first when the attachment is replaced", async () => {
    const run = await runProgram("storage-and-snapshots", config);
    const data = run.resources.get("data")!;
    expect(data).toMatchObject({ kind: "BlockStorageAttachment", inputs: { blockStorageId: "disk-uuid", instanceId: "vm-id" }, deleteBeforeReplace: true });
    // The data disk is kept when the VM is deleted.
    expect(run.resources.get("vm")?.inputs.deleteOptions).toEqual({ removeBlockStorage: false });
  });

  test("takes the named snapshot of the VM after the disk is attached", async () => {
    const run = await runProgram("storage-and-snapshots", config);
    const snapshot = run.resources.get("snapshot")!;
    expect(snapshot).toMatchObject({ kind: "Snapshot", inputs: { instanceId: "vm-id", name: "before-upgrade" } });
    expect(snapshot.dependsOn).toEqual(["data", "vm"]);
    expect(await run.value(run.exports.snapshotStatus)).toBe("Ready");
  });
});
