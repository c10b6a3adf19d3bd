/**
 * Snapshot and FirewallRule through the real host, as users run them: the packed package is installed into
 * a throwaway project, a program under Pulumi mocks registers both resources (to get the serialized
 * `__provider` and the inputs Pulumi would send), and `@pulumi/pulumi/cmd/dynamic-provider`, spawned from
 * that project and driven over gRPC with the stack config, creates, reads, diffs, updates (the rule in
 * place) and deletes them in the simulator.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { createClient, type VmHostClient } from "../../provider/api";
import { Deadline, pollUntil } from "../../provider/wait/poll";
import { startSimulator, type RunningSimulator } from "../../simulator";
import type { ProviderHost } from "../../tools/local-engine/providerHost";
import type { PropertyMap } from "../../tools/local-engine/values";
import { installPacked, runUnderMocks, startConfiguredHost } from "./packed";

const urn = (type: string, name: string) => `urn:pulumi:test::host-test::pulumi-nodejs:dynamic/vmhost:${type}::${name}`;

const PROGRAM = `
const fs = require("fs");
const pulumi = require("@pulumi/pulumi");
const registered = {};
pulumi.runtime.setMocks({
  newResource: (args) => {
    registered[args.name] = args.inputs;
    fs.writeFileSync(process.env.OUT_FILE, JSON.stringify(registered));
    return { id: "mock-id", state: args.inputs };
  },
  call: () => ({}),
}, "host-test", "test", false);
const vmhost = require("pulumi-vmhost");
new vmhost.Snapshot("snap", { instanceId: process.env.VM, name: "host-snap", description: "through the host" });
new vmhost.FirewallRule("ssh", { instanceId: process.env.VM, protocol: "tcp", port: 22, sourceIp: "203.0.113.0/24", action: "accept", description: "ssh" });
`;

let sim: RunningSimulator;
let client: VmHostClient;
let dir: string;
let vm: string;
let registered: Record<"snap" | "ssh", PropertyMap>;

beforeAll(async () => {
  sim = await startSimulator({ opSeconds: 0.05 });
  client = createClient({ baseUrl: sim.url, apiKey: sim.apiKey, logger: false });
  const created = await client.instances.create({
    locationId: 1, tierId: 1, templateId: 2, hostname: "host-snap-fw", cpu: 1, memory: 1, storage: 20,
    username: "admin", password: "Blue-Horse-42", usePublicIp: false,
  });
  vm = created.uuid;
  await pollUntil({
    what: "the test instance to run",
    deadline: new Deadline(10_000),
    poll: async () => {
      const d = await client.instances.get(vm);
      return d.operation_flag === 0 ? { done: true, value: d } : { done: false, status: d.status };
    },
  });

  dir = fs.mkdtempSync(path.join(os.tmpdir(), "vmhost-snapfw-host-"));
  installPacked(dir);
  registered = runUnderMocks<typeof registered>(dir, PROGRAM, { VM: vm });
}, 120_000);

afterAll(async () => {
  await sim?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("Snapshot and FirewallRule through @pulumi/pulumi/cmd/dynamic-provider over gRPC", () => {
  let host: ProviderHost;
  beforeAll(async () => {
    // credentials come only from the stack config handed to Configure
    host = await startConfiguredHost(dir, sim);
  }, 60_000);
  afterAll(async () => {
    await host?.stop();
  });

  it("serializes both as the thin stub that requires the installed package, without the key", () => {
    for (const name of ["snap", "ssh"] as const) {
      const provider = registered[name].__provider as string;
      expect(provider).toContain("pulumi-vmhost/provider");
      expect(provider).not.toContain(sim.apiKey);
    }
  });

  it("Snapshot: check refuses a bad name, creates a Ready snapshot, reads and diffs it (a new name replaces), deletes it", async () => {
    const u = urn("Snapshot", "snap");
    const bad = await host.check(u, {}, { ...registered.snap, name: "no/slashes" });
    expect(bad.failures.map((f) => f.property)).toEqual(["name"]);

    const checked = await host.check(u, {}, registered.snap);
    expect(checked.failures).toEqual([]);
    const created = await host.create(u, checked.inputs);
    expect(created.outputs).toMatchObject({ instanceId: vm, name: "host-snap", description: "through the host", status: "Ready" });
    expect((await client.snapshots.list(vm)).map((s) => s.id)).toEqual([created.id]);

    const read = await host.read(u, created.id, created.outputs, checked.inputs);
    expect(read.outputs).toEqual(created.outputs);
    expect(await host.diff(u, created.id, read.outputs, checked.inputs, checked.inputs)).toMatchObject({ changes: false });
    const renamed = await host.check(u, checked.inputs, { ...registered.snap, name: "host-snap-2" });
    expect(await host.diff(u, created.id, read.outputs, renamed.inputs, checked.inputs)).toMatchObject({ changes: true, replaces: ["name"] });

    await host.delete(u, created.id, read.outputs, checked.inputs);
    expect(await client.snapshots.list(vm)).toEqual([]);
    expect((await host.read(u, created.id, read.outputs, checked.inputs)).id).toBe("");
  }, 60_000);

  it("FirewallRule: creates, reads, diffs, updates port and action in place, and deletes", async () => {
    const u = urn("FirewallRule", "ssh");
    const checked = await host.check(u, {}, registered.ssh);
    expect(checked.failures).toEqual([]);
    const created = await host.create(u, checked.inputs);
    expect(created.outputs).toMatchObject({ instanceId: vm, protocol: "tcp", port: "22", sourceIp: "203.0.113.0/24", action: "accept" });

    const read = await host.read(u, created.id, created.outputs, checked.inputs);
    expect(read.outputs).toEqual(created.outputs);
    expect(await host.diff(u, created.id, read.outputs, checked.inputs, checked.inputs)).toMatchObject({ changes: false });

    const changed = await host.check(u, checked.inputs, { ...registered.ssh, port: "2222", action: "drop" });
    expect(await host.diff(u, created.id, read.outputs, changed.inputs, checked.inputs)).toMatchObject({ changes: true, replaces: [] });
    const updated = await host.update(u, created.id, read.outputs, changed.inputs, checked.inputs);
    expect(updated).toMatchObject({ port: "2222", action: "drop" });
    expect((await client.firewall.listAllRules(vm)).find((r) => r.id === created.id)).toMatchObject({ destination_port: "2222", action: "D" });

    await host.delete(u, created.id, updated, changed.inputs);
    expect(await client.firewall.listAllRules(vm)).toEqual([]);
    expect((await host.read(u, created.id, updated, changed.inputs)).id).toBe("");
  }, 60_000);
});
