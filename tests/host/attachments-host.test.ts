/**
 * PublicIp, VswitchAttachment and BlockStorageAttachment through the real host, as users run them: the
 * package packed by `make pack` is installed into a throwaway project, a program under Pulumi mocks
 * registers the three resources (to get the serialized `__provider` and the inputs Pulumi would send), and
 * `@pulumi/pulumi/cmd/dynamic-provider`, spawned from that project and driven over gRPC with the stack
 * config, creates, reads, diffs, updates (PublicIp's rdns in place) and deletes them in the simulator.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { createClient } from "../../provider/api";
import { Deadline, pollUntil } from "../../provider/wait/poll";
import { startSimulator, type RunningSimulator } from "../../simulator";
import type { ProviderHost } from "../../tools/local-engine/providerHost";
import { installPacked, runUnderMocks, startConfiguredHost } from "./packed";
import type { PropertyMap } from "../../tools/local-engine/values";

const urn = (type: string, name: string) => `urn:pulumi:test::host-test::pulumi-nodejs:dynamic/vmhost:${type}::${name}`;

/** The program: registers the three resources under Pulumi mocks and writes the inputs the engine would receive. */
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
new vmhost.PublicIp("ip", { instanceId: process.env.VM, rdns: "host-test.example.com" });
new vmhost.VswitchAttachment("net", { instanceId: process.env.VM, vswitchId: process.env.VSWITCH });
new vmhost.BlockStorageAttachment("disk", { instanceId: process.env.VM, blockStorageId: process.env.DISK });
`;

interface SimState {
  instances: { uuid: string; publicIpUuid: string | null; rdns: string | null; vswitchUuid: string | null; blockStorageIds: string[] }[];
  vswitches: { uuid: string; name: string; locationId: number }[];
  blockStorages: { uuid: string; name: string; locationId: number; instanceUuid: string | null }[];
}

let sim: RunningSimulator;
let dir: string;
let vm: string;
let vswitch: SimState["vswitches"][number];
let disk: SimState["blockStorages"][number];
let registered: Record<"ip" | "net" | "disk", PropertyMap>;
const simState = async () => (await (await fetch(`${sim.adminUrl}/state`)).json()) as SimState;
const simVm = async () => (await simState()).instances.find((i) => i.uuid === vm)!;

beforeAll(async () => {
  sim = await startSimulator({ opSeconds: 0.05 });
  const client = createClient({ baseUrl: sim.url, apiKey: sim.apiKey });
  const created = await client.instances.create({
    locationId: 1, tierId: 1, templateId: 2, hostname: "host-attach", cpu: 1, memory: 1, storage: 20,
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
  const state = await simState();
  vswitch = state.vswitches.find((v) => v.locationId === 1)!;
  disk = state.blockStorages.find((b) => b.locationId === 1 && b.instanceUuid === null)!;

  dir = fs.mkdtempSync(path.join(os.tmpdir(), "vmhost-attach-host-"));
  installPacked(dir);
  registered = runUnderMocks<typeof registered>(dir, PROGRAM, { VM: vm, VSWITCH: vswitch.uuid, DISK: disk.uuid });
}, 120_000);

afterAll(async () => {
  await sim?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("through @pulumi/pulumi/cmd/dynamic-provider over gRPC", () => {
  let host: ProviderHost;
  const hostOutput: string[] = [];
  beforeAll(async () => {
    // credentials come only from the stack config handed to Configure
    host = await startConfiguredHost(dir, sim, (_stream, line) => hostOutput.push(line));
  }, 60_000);
  afterAll(async () => {
    await host?.stop();
  });
  /**
   * `pulumi destroy`: a deployment of its own, so a provider process of its own (the CLI starts one per deployment).
   * In the deployment that made an attachment, a delete of the same id is the old half of a replacement and leaves
   * it (provider/resources/common/fixed-ids.ts).
   */
  const inNextDeployment = async <T>(run: (next: ProviderHost) => Promise<T>): Promise<T> => {
    const next = await startConfiguredHost(dir, sim, (_stream, line) => hostOutput.push(line));
    try {
      return await run(next);
    } finally {
      await next.stop();
    }
  };

  it("serializes each resource as the thin stub that requires the installed package", () => {
    for (const name of ["ip", "net", "disk"] as const) {
      const provider = registered[name].__provider as string;
      expect(provider).toContain("pulumi-vmhost/provider");
      expect(provider).not.toContain(sim.apiKey);
    }
  });

  it("PublicIp: creates, reads, diffs, updates rdns in place and deletes", async () => {
    const u = urn("PublicIp", "ip");
    const checked = await host.check(u, {}, registered.ip);
    expect(checked.failures).toEqual([]);
    const created = await host.create(u, checked.inputs);
    expect(created.id).toBe((await simVm()).publicIpUuid);
    expect(created.outputs).toMatchObject({ instanceId: vm, rdns: "host-test.example.com", publicIpId: created.id });

    const read = await host.read(u, created.id, created.outputs, checked.inputs);
    expect(read.outputs).toEqual(created.outputs);
    expect(await host.diff(u, created.id, read.outputs, checked.inputs, checked.inputs)).toMatchObject({ changes: false });

    const changed = await host.check(u, checked.inputs, { ...registered.ip, rdns: "www.host-test.example.com" });
    expect(await host.diff(u, created.id, read.outputs, changed.inputs, checked.inputs)).toMatchObject({ changes: true, replaces: [] });
    const updated = await host.update(u, created.id, read.outputs, changed.inputs, checked.inputs);
    expect(updated).toMatchObject({ rdns: "www.host-test.example.com" });
    expect((await simVm()).rdns).toBe("www.host-test.example.com");

    const bad = await host.check(u, {}, { ...registered.ip, rdns: "not a name" });
    expect(bad.failures.map((f) => f.property)).toEqual(["rdns"]);

    await host.delete(u, created.id, updated, changed.inputs);
    expect((await simVm()).publicIpUuid).toBeNull();
    // (off the VM, the address stays reserved in the account: a read, e.g. a refresh after a delete that failed
    // later, records it detached, through the host as well)
    expect(await host.read(u, created.id, updated, changed.inputs)).toMatchObject({ id: created.id, outputs: { detached: true } });
  }, 60_000);

  it("VswitchAttachment: creates, reads, diffs (a new network replaces, delete first) and deletes", async () => {
    const u = urn("VswitchAttachment", "net");
    const checked = await host.check(u, {}, registered.net);
    expect(checked.failures).toEqual([]);
    const created = await host.create(u, checked.inputs);
    expect(created.id).toBe(`${vm}/${vswitch.uuid}`);
    expect(created.outputs).toMatchObject({ vswitchName: vswitch.name });
    expect((await simVm()).vswitchUuid).toBe(vswitch.uuid);

    const read = await host.read(u, created.id, created.outputs, checked.inputs);
    expect(read.outputs).toEqual(created.outputs);
    expect(await host.diff(u, created.id, read.outputs, checked.inputs, checked.inputs)).toMatchObject({ changes: false });
    const other = await host.check(u, checked.inputs, { ...registered.net, vswitchId: "0a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d" });
    expect(await host.diff(u, created.id, read.outputs, other.inputs, checked.inputs)).toMatchObject({
      changes: true, replaces: ["vswitchId"], deleteBeforeReplace: true,
    });

    await inNextDeployment((next) => next.delete(u, created.id, read.outputs, checked.inputs));
    expect((await simVm()).vswitchUuid).toBeNull();
    expect((await host.read(u, created.id, read.outputs, checked.inputs)).id).toBe("");
  }, 60_000);

  it("BlockStorageAttachment: creates, reads, diffs and deletes (the disk stays)", async () => {
    const u = urn("BlockStorageAttachment", "disk");
    const checked = await host.check(u, {}, registered.disk);
    expect(checked.failures).toEqual([]);
    const created = await host.create(u, checked.inputs);
    expect(created.id).toBe(disk.uuid);
    expect(created.outputs).toMatchObject({ name: disk.name });
    expect((await simVm()).blockStorageIds).toEqual([disk.uuid]);

    const read = await host.read(u, created.id, created.outputs, checked.inputs);
    expect(read.outputs).toEqual(created.outputs);
    expect(await host.diff(u, created.id, read.outputs, checked.inputs, checked.inputs)).toMatchObject({ changes: false });

    await inNextDeployment((next) => next.delete(u, created.id, read.outputs, checked.inputs));
    expect((await simVm()).blockStorageIds).toEqual([]);
    expect((await simState()).blockStorages.map((b) => b.uuid)).toContain(disk.uuid);
  }, 60_000);
});
