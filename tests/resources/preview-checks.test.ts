/**
 * Preview-time checks (provider/resources/common/preflight.ts) through the registered providers, against
 * the simulator: each mistake is refused by `check` with a message naming the property (or config key) and
 * the fix, and nothing is written: the simulator's log holds only reads.
 */
import "./instance-env";
import { startSimulator, type RunningSimulator } from "../../simulator";
import { providers } from "../../provider";
import { forgetDeployment } from "../../provider/registry";
import { createClient } from "../../provider/api";
import { resetContext, setProgressSink } from "../../provider/context";
import { validCreate } from "./instance-cases";

type Provider = Required<import("@pulumi/pulumi").dynamic.ResourceProvider>;
const provider = (name: keyof typeof providers): Provider => providers[name] as Provider;

let sim: RunningSimulator;
let vswitches: { uuid: string; name: string; locationId: number }[];
let disks: { uuid: string; name: string; locationId: number }[];

const writes = () => sim.requests().filter((r) => r.method !== "GET");

function configure(env: { key?: string; url?: string }): void {
  process.env.VMHOST_API_KEY = env.key ?? sim.apiKey;
  process.env.VMHOST_BASE_URL = env.url ?? sim.url;
  resetContext();
}

beforeAll(async () => {
  sim = await startSimulator({ opSeconds: 0.05 });
  setProgressSink(() => undefined);
  const state = (await (await fetch(`${sim.adminUrl}/state`)).json()) as {
    vswitches: typeof vswitches;
    blockStorages: typeof disks;
  };
  vswitches = state.vswitches;
  disks = state.blockStorages;
});
afterAll(async () => {
  await sim?.close();
});
beforeEach(() => {
  configure({});
  forgetDeployment(); // each case is a deployment of its own (what a check notes is per deployment)
});

describe("the account, at preview", () => {
  it("a rejected key fails check naming vmhost:apiKey, before any write", async () => {
    configure({ key: "wrong-key" });
    // a check failure without a property (thrown, the host printed it with a stack trace and the message twice)
    expect((await provider("Instance").check({}, validCreate)).failures).toEqual([
      { property: "", reason: expect.stringMatching(/vmhost:apiKey: the API at .* rejected the API key \(HTTP 401.*pulumi config set --secret vmhost:apiKey/) },
    ]);
    expect(writes()).toEqual([]);
  });

  it("a base URL without /v1 fails check with 'did you mean …/v1'", async () => {
    const bare = sim.url.replace(/\/v1$/, "");
    configure({ url: bare });
    const checked = await provider("FirewallRule").check({}, { instanceId: "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab", protocol: "tcp", port: 22, action: "accept" });
    expect(checked.failures?.[0]?.property).toBe("");
    expect(checked.failures?.[0]?.reason).toContain(`vmhost:baseUrl: the API at ${bare} does not answer as this API (GET /instance/size-template gave HTTP 404): did you mean ${bare}/v1?`);
    expect(writes()).toEqual([]);
  });

  it("a missing key fails check naming what to set", async () => {
    delete process.env.VMHOST_API_KEY;
    resetContext();
    expect((await provider("Snapshot").check({}, { instanceId: "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab", name: "s" })).failures).toEqual([
      { property: "", reason: expect.stringMatching(/no API key: run `pulumi config set --secret vmhost:apiKey <key>` or set the VMHOST_API_KEY/) },
    ]);
  });

  it("does not remember a failed account read: the next check asks again", async () => {
    // every attempt of the first check's account read is reset (a read is tried 5 times), none of the next's
    sim.setFaults({ resetNext: { operation: "listSizeTemplates", count: 5 } });
    expect((await provider("Instance").check({}, validCreate)).failures?.[0]?.reason).toMatch(/^vmhost:baseUrl: could not reach the API at/);
    expect((await provider("Instance").check({}, validCreate)).failures).toBeUndefined();
  }, 60_000);

  it("reads the account and catalogue once per process, however many resources are checked", async () => {
    const before = sim.requests().length;
    await Promise.all([1, 2, 3].map((i) => provider("Instance").check({}, { ...validCreate, hostname: `web-${i}` })));
    await provider("Instance").check({}, { ...validCreate, hostname: "web-4" });
    const ops = sim.requests().slice(before).map((r) => r.operation).sort();
    // (the private networks are read only for a resource that names one)
    expect(ops).toEqual(["listLocations", "listSizeTemplates", "listSystems", "listTiers"]);
  });
});

describe("Instance against the catalogue, at preview", () => {
  const failuresOf = async (inputs: Record<string, unknown>) => (await provider("Instance").check({}, inputs)).failures ?? [];

  it.each([
    ["an unknown location", { locationId: 99 }, "locationId", /locationId 99 is not a location of this host; valid: 1 \(Jakarta\), 2 \(Surabaya\), 3 \(Singapore\) \(list them with getLocations/],
    ["an unknown tier", { tierId: 9 }, "tierId", /tierId 9 is not a tier of this host; valid: 1 \(Basic\), 2 \(Standard\), 3 \(Premium\) \(list them with getTiers\)/],
    ["an unknown OS template", { templateId: 42 }, "templateId", /templateId 42 is not an OS template of this host; valid: 1 \(Ubuntu 22\.04\).*getOsTemplates/],
    ["dedicated CPU on a tier without it", { tierId: 2, dedicatedCpu: true }, "dedicatedCpu", /the Standard tier \(2\) has no dedicated CPUs; .*: 3 \(Premium\)/],
  ])("refuses %s, before any write", async (_what, patch, property, message) => {
    const failures = await failuresOf({ ...validCreate, ...patch });
    expect(failures).toEqual([{ property, reason: expect.stringMatching(message) }]);
    expect(writes()).toEqual([]);
  });

  it("reports every template minimum at once", async () => {
    // Windows Server 2022 (template 4) needs 2 CPU, 4 GB memory, 40 GB storage
    const failures = await failuresOf({ ...validCreate, templateId: 4, cpu: 1, memory: 2, storage: 30 });
    expect(failures).toEqual([
      { property: "cpu", reason: expect.stringMatching(/Windows Server 2022 \(template 4\) needs at least 2 CPUs; raise cpu to 2/) },
      { property: "memory", reason: expect.stringMatching(/needs at least 4 GB; raise memory to 4/) },
      { property: "storage", reason: expect.stringMatching(/needs at least 40 GB; raise storage to 40/) },
    ]);
    expect(writes()).toEqual([]);
  });

  it("refuses a private network of another location, naming both and the function that lists the right ones", async () => {
    const sgp = vswitches.find((v) => v.locationId === 3)!;
    const failures = await failuresOf({ ...validCreate, locationId: 1, vswitchId: sgp.uuid.toUpperCase() });
    expect(failures).toEqual([
      { property: "vswitchId", reason: `the private network ${sgp.name} is in Singapore, not in the VM's location Jakarta; use a network of Jakarta (getVswitchOptions({ locationId: 1 }) lists them)` },
    ]);
    expect(writes()).toEqual([]);
  });

  it("an existing VM whose template, tier or location the host has retired, or whose minimums it raised, is not refused; a change to such a value is", async () => {
    // the state's inputs of a VM made when template 42, tier 9 and location 99 existed and template 4 asked less
    const made = { ...validCreate, locationId: 99, tierId: 9, templateId: 42 };
    const check = async (olds: Record<string, unknown>, news: Record<string, unknown>) => (await provider("Instance").check(olds, news)).failures ?? [];
    expect(await check(made, { ...made, hostname: "renamed" })).toEqual([]);
    const small = { ...validCreate, templateId: 4, cpu: 1, memory: 2, storage: 30 };
    expect(await check(small, { ...small, powerState: "stopped" })).toEqual([]);
    // what the program changes is checked as for a new VM
    expect(await check(small, { ...small, cpu: 1, memory: 3 })).toEqual([
      { property: "memory", reason: expect.stringMatching(/needs at least 4 GB; raise memory to 4/) },
    ]);
    expect(await check({ ...validCreate }, { ...validCreate, tierId: 9 })).toEqual([{ property: "tierId", reason: expect.stringMatching(/tierId 9 is not a tier of this host/) }]);
    expect(writes()).toEqual([]);
  });

  it("accepts a valid program, and skips ids still unknown at preview", async () => {
    const jkt = vswitches.find((v) => v.locationId === 1)!;
    expect(await failuresOf({ ...validCreate, vswitchId: jkt.uuid, tierId: 3, dedicatedCpu: true })).toEqual([]);
    const unknown = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
    expect(await failuresOf({ ...validCreate, locationId: unknown, vswitchId: unknown })).toEqual([]);
  });
});

describe("Instance adoptId / cloneFrom, at preview", () => {
  const missing = "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab";
  it.each([
    ["adoptId", { adoptId: missing }, /^there is no instance 6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab in this account to adopt \(getInstances lists them\)/],
    ["cloneFrom", { cloneFrom: missing, hostname: "c-1", locationId: 1, tierId: 2 }, /^there is no instance .* to clone/],
  ])("refuses %s naming no existing instance, for a new resource", async (property, inputs, message) => {
    const r = await provider("Instance").check({}, inputs);
    expect(r.failures).toEqual([{ property, reason: expect.stringMatching(message) }]);
  });
  it("refuses at preview to adopt a VM whose location, template or user differ from the declared ones (create would refuse)", async () => {
    const res = await fetch(`${sim.adminUrl}/instances`, {
      method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ hostname: "panel-vm", locationId: 1, tierId: 2, templateId: 2, cpu: 2, memory: 4, storage: 40, username: "admin", password: "Blue-Horse-42" }),
    });
    const vm = ((await res.json()) as { data: { uuid: string } }).data.uuid;
    const before = writes().length;
    const r = await provider("Instance").check({}, { adoptId: vm, locationId: 1, templateId: 1, username: "deploy" });
    expect(r.failures).toEqual([{
      property: "adoptId",
      reason: expect.stringMatching(new RegExp(`^instance ${vm} cannot be adopted as declared \\(templateId: the VM runs template 2; username: the VM's user is "admin"\\)`)),
    }]);
    expect((await provider("Instance").check({}, { adoptId: vm, locationId: 1, templateId: 2, username: "admin" })).failures).toBeUndefined();
    expect(writes().length).toBe(before);
  });

  it("refuses at preview a clone declaring a smaller disk than its source's (create would refuse, disks only grow)", async () => {
    const source = await provider("Instance").create((await provider("Instance").check({}, { ...validCreate, hostname: "clone-src", storage: 40 })).inputs);
    const before = writes().length;
    const clone = { cloneFrom: source.id, hostname: "clone-small", locationId: 1, tierId: 2 };
    expect((await provider("Instance").check({}, { ...clone, storage: 30 })).failures).toEqual([
      { property: "storage", reason: "a clone starts with its source's 40 GB disk and disks only grow; set storage to 40 or more" },
    ]);
    forgetDeployment(); // another preview of the program, changed
    expect((await provider("Instance").check({}, { ...clone, storage: 40 })).failures).toBeUndefined();
    expect(writes().length).toBe(before);
  });

  it("refuses at preview a clone or an adoption declaring sizes below its OS template's minimums (audit: the clone was made, its resize refused)", async () => {
    const source = await provider("Instance").create((await provider("Instance").check({}, { ...validCreate, hostname: "rocky-src", templateId: 3, memory: 2 })).inputs);
    const before = writes().length;
    const clone = { cloneFrom: source.id, hostname: "rocky-clone", locationId: 1, tierId: 2 };
    expect((await provider("Instance").check({}, { ...clone, memory: 1 })).failures).toEqual([
      { property: "memory", reason: `instance ${source.id}'s OS (Rocky Linux 9) needs at least 2 GB, and a clone keeps its OS; raise memory to 2 or more` },
    ]);
    forgetDeployment(); // another preview of the program, changed
    expect((await provider("Instance").check({}, { adoptId: source.id, memory: 1 })).failures).toEqual([
      { property: "memory", reason: expect.stringMatching(/needs at least 2 GB, and an adopted VM keeps its OS; raise memory to 2 or more$/) },
    ]);
    forgetDeployment();
    expect((await provider("Instance").check({}, { ...clone, memory: 2 })).failures).toBeUndefined();
    expect(writes().length).toBe(before);
  });

  it("does not check them again once the resource exists (a clone's source may be gone since)", async () => {
    const inputs = { cloneFrom: missing, hostname: "c-1", locationId: 1, tierId: 2 };
    const r = await provider("Instance").check({ ...inputs, status: "Running" }, inputs);
    expect(r.failures).toBeUndefined();
  });
});

describe("a new resource of an instance whose literal instanceId names none, at preview", () => {
  const missing = "00000000-0000-4000-8000-000000000000";
  const reason = `there is no instance ${missing} in this account (getInstances lists them)`; // the engine prefixes "instanceId: "
  const cases: [keyof typeof providers, Record<string, unknown>][] = [
    ["Snapshot", { instanceId: missing, name: "before-upgrade" }],
    ["FirewallRule", { instanceId: missing, protocol: "tcp", port: 22, action: "accept" }],
    ["PublicIp", { instanceId: missing }],
    ["VswitchAttachment", { instanceId: missing, vswitchId: "" }],
    ["BlockStorageAttachment", { instanceId: missing }],
  ];
  it.each(cases)("%s: refused naming instanceId and the function that lists instances, before any write", async (name, inputs) => {
    const extra = name === "VswitchAttachment" ? { vswitchId: vswitches.find((v) => v.locationId === 1)!.uuid }
      : name === "BlockStorageAttachment" ? { blockStorageId: disks.find((d) => d.locationId === 1)!.uuid } : {};
    const before = writes().length;
    const r = await provider(name).check({}, { ...inputs, ...extra });
    expect(r.failures).toEqual([{ property: "instanceId", reason }]);
    expect(writes().length).toBe(before);
  });

  it("an instance made in the same up (id unknown at preview) is not read, and an existing one passes", async () => {
    const before = sim.requests().length;
    const unknown = (await provider("Snapshot").check({}, { instanceId: "04da6b54-80e4-46f7-96ec-b56ff0331ba9", name: "s" })).failures;
    expect(unknown).toBeUndefined(); // the runtime's unknown value (check.ts UNKNOWN_VALUE)
    expect(sim.requests().slice(before).filter((r) => r.operation === "getInstance")).toEqual([]);
    const vm = await provider("Instance").create((await provider("Instance").check({}, { ...validCreate, hostname: "snap-host" })).inputs);
    const atUp = sim.requests().length;
    expect((await provider("Snapshot").check({}, { instanceId: vm.id, name: "s" })).failures).toBeUndefined();
    // made by this deployment: it exists, and the up's check of its new resources reads nothing for that
    expect(sim.requests().slice(atUp).filter((r) => r.operation === "getInstance")).toEqual([]);
  });

  it("a resource already in the state whose VM went away out of band is not refused (refresh and delete handle it)", async () => {
    const olds = { instanceId: missing, name: "before-upgrade", status: "Ready" };
    expect((await provider("Snapshot").check(olds, { instanceId: missing, name: "before-upgrade" })).failures).toBeUndefined();
    const rule = { instanceId: missing, protocol: "tcp", port: 22, action: "accept" };
    expect((await provider("FirewallRule").check({ ...rule, port: "22" }, rule)).failures).toBeUndefined();
  });
});

describe("attachments against their instance, at preview", () => {
  it("refuses a block storage of another location than the instance", async () => {
    const vm = await provider("Instance").create((await provider("Instance").check({}, { ...validCreate, hostname: "disk-host" })).inputs);
    const sgpDisk = disks.find((d) => d.locationId === 3)!;
    const before = writes().length;
    const r = await provider("BlockStorageAttachment").check({}, { blockStorageId: sgpDisk.uuid, instanceId: vm.id });
    expect(r.failures).toEqual([{ property: "blockStorageId", reason: expect.stringMatching(new RegExp(`^the block storage ${sgpDisk.name} is in Singapore, but instance ${vm.id} is in Jakarta`)) }]);
    const sgpNet = vswitches.find((v) => v.locationId === 3)!;
    const n = await provider("VswitchAttachment").check({}, { vswitchId: sgpNet.uuid, instanceId: vm.id });
    // the engine prints the property before the reason: the reason does not repeat it ("vswitchId: vswitchId: …")
    expect(n.failures).toEqual([{ property: "vswitchId", reason: expect.stringMatching(/^the private network .* is in Singapore, but instance .* is in Jakarta/) }]);
    const unknownDisk = await provider("BlockStorageAttachment").check({}, { blockStorageId: "1b6f0e1a-2c3d-4e5f-9a8b-7c6d5e4f3a2b", instanceId: vm.id });
    expect(unknownDisk.failures).toEqual([{ property: "blockStorageId", reason: expect.stringMatching(/^there is no block storage 1b6f0e1a-/) }]);
    expect(writes().length).toBe(before);
  });
});

describe("what a new resource adopts (adoptId), at preview: what its create would refuse", () => {
  const MISSING = "0e0e0e0e-0000-4000-8000-00000000abcd";
  const admin = async <T>(method: string, path: string, body?: unknown): Promise<T> =>
    (await fetch(`${sim.adminUrl}${path}`, { method, headers: { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) })).json() as Promise<T>;

  it("an object not there (or not as declared) is refused naming adoptId; one that is there passes; only an adopting resource reads it", async () => {
    const vm = (await admin<{ data: { uuid: string } }>("POST", "/instances", { hostname: "adopt-targets", username: "deploy" })).data.uuid;
    const disk = disks.find((d) => d.locationId === 1)!.uuid;
    const net = vswitches.find((v) => v.locationId === 1)!.uuid;
    const before = writes().length;
    const refused = async (name: keyof typeof providers, inputs: Record<string, unknown>, reason: RegExp) =>
      expect((await provider(name).check({}, inputs)).failures).toEqual([{ property: "adoptId", reason: expect.stringMatching(reason) }]);
    await refused("Snapshot", { instanceId: vm, name: "base", adoptId: MISSING }, /^cannot adopt snapshot .*: instance .* has no such snapshot \(see getSnapshots\(\{ instanceId: ".*" \}\)\): set adoptId to one of its snapshots, or remove adoptId/);
    await refused("FirewallRule", { instanceId: vm, protocol: "tcp", port: 22, action: "accept", adoptId: MISSING }, /^cannot adopt firewall rule .*: instance .* has no such rule \(see getFirewallRules/);
    await refused("PublicIp", { instanceId: vm, adoptId: MISSING }, /^cannot adopt address .*: instance .* holds no public address; adoptId must be the uuid of the address the instance has now/);
    await refused("BlockStorageAttachment", { instanceId: vm, blockStorageId: disk, adoptId: disk }, /^cannot adopt .*: it is not attached to instance .*; remove adoptId to attach it/);
    await refused("VswitchAttachment", { instanceId: vm, vswitchId: net, adoptId: `${vm}/${net}` }, /^cannot adopt .*: instance .* is on no private network, not on .*; remove adoptId to attach it/);
    // there, but not as declared: what adopting it would need
    const client = createClient({ baseUrl: sim.url, apiKey: sim.apiKey, logger: false });
    const idle = async () => {
      for (;;) {
        const row = (await admin<{ data: { operationFlag: number } }>("GET", `/instances/${vm}`)).data;
        if (row.operationFlag === 0) return;
        await new Promise((r) => setImmediate(r)); // (polls the simulator until its operation ended)
      }
    };
    const snap = (await client.snapshots.create(vm, { name: "panel-made", description: "by hand" })).snap_uuid;
    await idle();
    await refused("Snapshot", { instanceId: vm, name: "base", adoptId: snap }, /^cannot adopt snapshot .* as declared: its name is "panel-made" and its description is "by hand"/);
    const rule = (await client.firewall.createRule(vm, { destinationPort: "22", protocol: "tcp", action: "accept", description: "ssh" })).id!;
    await idle();
    await refused("FirewallRule", { instanceId: vm, protocol: "tcp", port: 22, action: "accept", adoptId: rule }, /^cannot adopt firewall rule .* as declared: it has the description "ssh"/);
    const written = writes().length - before;
    // what is there and as declared passes
    await admin("PATCH", `/instances/${vm}`, { publicIp: true, vswitchId: net });
    await admin("PATCH", `/block-storages/${disk}`, { instanceId: vm });
    const ip = (await admin<{ data: { publicIpUuid: string } }>("GET", `/instances/${vm}`)).data;
    for (const [name, inputs] of [
      ["FirewallRule", { instanceId: vm, protocol: "tcp", port: 22, action: "accept", description: "ssh", adoptId: rule }],
      ["PublicIp", { instanceId: vm, adoptId: ip.publicIpUuid }],
      ["BlockStorageAttachment", { instanceId: vm, blockStorageId: disk, adoptId: disk }],
      ["VswitchAttachment", { instanceId: vm, vswitchId: net, adoptId: `${vm}/${net}` }],
    ] as const) expect([name, (await provider(name).check({}, inputs)).failures]).toEqual([name, undefined]);
    // the checks wrote nothing (the two writes are this test's own: the snapshot and the rule it adopts)
    expect(written).toBe(2);
    // no adoptId: no read of snapshots or rules
    const quiet = sim.requests().length;
    await provider("Snapshot").check({}, { instanceId: vm, name: "other" });
    await provider("FirewallRule").check({}, { instanceId: vm, protocol: "tcp", port: 80, action: "accept" });
    expect(sim.requests().slice(quiet).map((r) => r.operation).filter((o) => o === "listSnapshots" || o === "listFirewallRules")).toEqual([]);
  });

  it("adopting a dedicated-CPU VM onto a tier without dedicated CPUs (dedicatedCpu unset) is refused naming tierId; with dedicatedCpu: false it passes", async () => {
    const vm = (await admin<{ data: { uuid: string } }>("POST", "/instances", { hostname: "adopt-ded", username: "deploy", tierId: 3, dedicatedCpu: true })).data.uuid;
    const program = { ...validCreate, hostname: "adopt-ded", username: "deploy", adoptId: vm, tierId: 1 };
    expect((await provider("Instance").check({}, program)).failures).toEqual([
      { property: "tierId", reason: `the Basic tier (1) has no dedicated CPUs, and instance ${vm} has them: set dedicatedCpu: false on this Instance (the VM is then resized to shared CPUs before the tier change), or choose a tier that offers them (getTiers: dedicatedCpuAvailable). Nothing was changed.` },
    ]);
    forgetDeployment(); // another preview of the program, changed (each is a deployment of its own)
    expect((await provider("Instance").check({}, { ...program, dedicatedCpu: false })).failures).toBeUndefined();
    forgetDeployment();
    expect((await provider("Instance").check({}, { ...program, tierId: 3 })).failures).toBeUndefined();
  });
});
