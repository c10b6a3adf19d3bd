/**
 * State that hangs together: addresses, private networks, block storages, firewall rules, deletion
 * options, billing, validation rules, out-of-band admin changes and determinism.
 */
import { startSimulator } from "../index";
import { OP_SECONDS, startTestSim, type Json, type TestSim } from "./harness";

let t: TestSim;
let seeded: Json;
beforeAll(async () => {
  t = await startTestSim();
  seeded = await t.state();
});
afterAll(() => t.close());
beforeEach(() => t.admin("POST", "/reset"));

const vswitchNamed = (name: string): Json => seeded.vswitches.find((v: Json) => v.name === name);
const storageNamed = (name: string): Json => seeded.blockStorages.find((b: Json) => b.name === name);
const reservedIp = (address: string): Json => seeded.publicIps.find((p: Json) => p.address === address);

describe("public addresses", () => {
  it("change to a reserved address, remove it (it stays reserved), add a new one, refuse a second", async () => {
    const uuid = await t.runningInstance({ use_public_ip: false });
    const reserved = reservedIp("103.150.10.11");
    const changed = await t.call("PATCH", `/instance/${uuid}/ip/change`, { form: { public_network: reserved.uuid } });
    expect(changed.body.data).toEqual({ instance: uuid, public_ip: "103.150.10.11" });
    expect((await t.detail(uuid)).public_ip).toEqual({ ip_id: reserved.uuid, ip_address: "103.150.10.11" });
    const options = await t.call("GET", "/network/options/instances", { query: { location_id: 1 } });
    expect(options.body.data).toEqual([]);

    await t.call("PATCH", `/instance/${uuid}/ip/change`, { form: { public_network: "" } });
    expect((await t.detail(uuid)).public_ip).toEqual({ ip_id: "-", ip_address: "-" });
    expect((await t.state()).publicIps.find((p: Json) => p.uuid === reserved.uuid).instanceUuid).toBeNull();
    expect((await t.call("GET", "/network/options/instances", { query: { location_id: 1 } })).body.data).toEqual([{ id: uuid, hostname: "web-1" }]);

    const added = await t.call("PATCH", `/instance/${uuid}/ip/add`);
    expect(added.body.data.vm_uuid).toBe(uuid);
    expect((await t.detail(uuid)).public_ip.ip_address).toBe(added.body.data.ip_address);
    expect((await t.call("PATCH", `/instance/${uuid}/ip/add`)).status).toBe(422);
  });

  it("refuses an address of another location or one already in use", async () => {
    const a = await t.runningInstance({ public_network: reservedIp("103.150.10.12").uuid });
    const b = await t.runningInstance({ hostname: "web-2", use_public_ip: false });
    const inUse = await t.call("PATCH", `/instance/${b}/ip/change`, { form: { public_network: reservedIp("103.150.10.12").uuid } });
    expect(inUse.status).toBe(422);
    const elsewhere = await t.call("PATCH", `/instance/${b}/ip/change`, { form: { public_network: reservedIp("139.99.30.11").uuid } });
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.errors.public_network).toBeDefined();
    expect((await t.detail(a)).public_ip.ip_address).toBe("103.150.10.12");
  });

  it("delete with remove_ip=0 keeps the address reserved; remove_ip=1 releases it from the account", async () => {
    const keep = await t.runningInstance({ public_network: reservedIp("103.150.10.11").uuid });
    const release = await t.runningInstance({ hostname: "web-2", public_network: reservedIp("103.150.10.12").uuid });
    await t.call("DELETE", `/instance/${keep}`, { form: { _method: "DELETE", remove_ip: 0, remove_block_storage: 0 } });
    await t.call("DELETE", `/instance/${release}`, { form: { _method: "DELETE", remove_ip: 1, remove_block_storage: 0 } });
    t.advance(OP_SECONDS);
    const ips = (await t.state()).publicIps;
    expect(ips.find((p: Json) => p.address === "103.150.10.11")).toMatchObject({ instanceUuid: null });
    expect(ips.find((p: Json) => p.address === "103.150.10.12")).toBeUndefined();
  });
});

describe("private networks", () => {
  it("membership shows in the detail, the vswitch's total_active_instance and its graph (by uuid or tag)", async () => {
    const vs = vswitchNamed("jkt-private-1");
    const uuid = await t.runningInstance();
    await t.call("PATCH", `/instance/${uuid}/vswitch/update`, { form: { vswitch: vs.uuid } });
    expect((await t.detail(uuid)).private_network).toBe("jkt-private-1");
    expect((await t.call("GET", `/network/vswitch/${vs.uuid}/details`)).body.data.total_active_instance).toBe(1);
    for (const id of [vs.uuid, String(vs.tag)]) {
      const graph = (await t.call("GET", `/network/vswitch/${id}/graph`)).body.data;
      expect(graph.nodes.map((n: Json) => n.id)).toEqual(expect.arrayContaining([vs.uuid, vs.gateway.uuid, uuid]));
      expect(graph.edges).toContainEqual(expect.objectContaining({ source: vs.uuid, target: uuid, label: "10.10.1.10" }));
    }
    await t.call("PATCH", `/instance/${uuid}/vswitch/update`, { form: { vswitch: "" } });
    expect((await t.detail(uuid)).private_network).toBe("-");
    expect((await t.call("GET", `/network/vswitch/${vs.uuid}/details`)).body.data.total_active_instance).toBe(0);
  });

  it("refuses a vswitch of another location; options list only the location's vswitches", async () => {
    const uuid = await t.runningInstance();
    const res = await t.call("PATCH", `/instance/${uuid}/vswitch/update`, { form: { vswitch: vswitchNamed("sgp-private-1").uuid } });
    expect(res.status).toBe(422);
    const options = await t.call("GET", "/network/options/vswitches", { query: { location_id: 2 } });
    expect(options.body.data.map((v: Json) => v.name)).toEqual(["sby-private-1"]);
    expect((await t.call("GET", "/network/options/vswitches")).status).toBe(422);
  });
});

describe("block storage", () => {
  it("attach removes it from the options and marks it attached; detach puts it back", async () => {
    const disk = storageNamed("jkt-data-50");
    const uuid = await t.runningInstance();
    const attached = await t.call("PATCH", `/storage/blocks/${disk.uuid}/attach`, { form: { instance_id: uuid } });
    expect(attached.body.data).toEqual({ storage_id: disk.uuid });
    const options = (await t.call("GET", "/storage/blocks/options", { query: { location_id: 1 } })).body.data;
    expect(options.map((o: Json) => o.id)).not.toContain(disk.uuid);
    const all = (await t.call("GET", "/storage/blocks")).body.data;
    expect(all.find((b: Json) => b.id === disk.uuid)).toMatchObject({ instance_id: uuid, status: "Attached" });
    await t.call("PATCH", `/storage/blocks/${disk.uuid}/detach`);
    const again = (await t.call("GET", "/storage/blocks/options", { query: { location_id: 1 } })).body.data;
    expect(again.map((o: Json) => o.id)).toContain(disk.uuid);
  });

  it("refuses another location's instance and a storage attached elsewhere", async () => {
    const jkt = await t.runningInstance();
    const sby = await t.runningInstance({ hostname: "sby-1", location_id: 2 });
    expect((await t.call("PATCH", `/storage/blocks/${storageNamed("jkt-data-50").uuid}/attach`, { form: { instance_id: sby } })).status).toBe(422);
    const other = await t.runningInstance({ hostname: "web-2" });
    await t.call("PATCH", `/storage/blocks/${storageNamed("jkt-data-50").uuid}/attach`, { form: { instance_id: jkt } });
    expect((await t.call("PATCH", `/storage/blocks/${storageNamed("jkt-data-50").uuid}/attach`, { form: { instance_id: other } })).status).toBe(422);
  });

  it("delete with remove_block_storage=1 deletes attached storages, with 0 detaches and keeps them", async () => {
    const a = await t.runningInstance();
    const b = await t.runningInstance({ hostname: "web-2" });
    await t.call("PATCH", `/storage/blocks/${storageNamed("jkt-data-50").uuid}/attach`, { form: { instance_id: a } });
    await t.call("PATCH", `/storage/blocks/${storageNamed("jkt-data-100").uuid}/attach`, { form: { instance_id: b } });
    await t.call("DELETE", `/instance/${a}`, { form: { _method: "DELETE", remove_ip: 1, remove_block_storage: 1 } });
    await t.call("DELETE", `/instance/${b}`, { form: { _method: "DELETE", remove_ip: 1, remove_block_storage: 0 } });
    t.advance(OP_SECONDS);
    const storages = (await t.state()).blockStorages;
    expect(storages.find((s: Json) => s.name === "jkt-data-50")).toBeUndefined();
    expect(storages.find((s: Json) => s.name === "jkt-data-100")).toMatchObject({ instanceUuid: null });
    // The dump records each removal with what the delete asked and the storages attached when it went.
    const deleted = (await t.state()).deletedInstances as Json[];
    expect(deleted.map((d) => [d.uuid, d.by, d.removeBlockStorage, d.blockStorages])).toEqual([
      [a, "api", true, [storageNamed("jkt-data-50").uuid]],
      [b, "api", false, [storageNamed("jkt-data-100").uuid]],
    ]);
    expect(deleted[0].deletedAt - deleted[0].requestedAt).toBe(OP_SECONDS * 1000);
  });
});

describe("firewall", () => {
  it("create, list, update, delete a rule; default policy", async () => {
    const uuid = await t.runningInstance();
    const created = await t.call("POST", `/instance/${uuid}/firewall/create`, {
      form: { destination_port: "22", protocol: "tcp", action: "A", source_ip: "10.0.0.0/8", description: "ssh", use_ipset: false },
    });
    const id = created.body.data.id;
    let rules = (await t.call("GET", `/instance/${uuid}/firewall/rules`)).body.data;
    expect(rules.data).toEqual([expect.objectContaining({ id, destination_port: "22", protocol: "tcp", action: "A", source_ip: "10.0.0.0/8", description: "ssh", use_ipset: false })]);
    await t.call("PATCH", `/instance/${uuid}/firewall/${id}/update`, { form: { action: "D", protocol: "udp", description: "closed" } });
    rules = (await t.call("GET", `/instance/${uuid}/firewall/rules`)).body.data;
    expect(rules.data[0]).toMatchObject({ action: "D", protocol: "udp", description: "closed", destination_port: "22" });
    await t.call("DELETE", `/instance/${uuid}/firewall/${id}/delete`);
    expect((await t.call("GET", `/instance/${uuid}/firewall/rules`)).body.data.data).toEqual([]);
    expect((await t.call("PATCH", `/instance/${uuid}/firewall/${id}/update`, { form: { action: "A" } })).status).toBe(404);

    expect((await t.call("GET", `/instance/${uuid}/firewall/default`)).body.data).toEqual({ action: "A", policy: "Accept" });
    await t.call("PATCH", `/instance/${uuid}/firewall/default/update`, { form: { action: "Drop" } });
    expect((await t.call("GET", `/instance/${uuid}/firewall/default`)).body.data).toEqual({ action: "D", policy: "Drop" });
  });

  it("validates protocol, action, port and source", async () => {
    const uuid = await t.runningInstance();
    const res = await t.call("POST", `/instance/${uuid}/firewall/create`, { form: { destination_port: "70000", protocol: "icmp", action: "accept", source_ip: "10.0.0.300" } });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(["action", "destination_port", "protocol", "source_ip"]);
  });
});

describe("billing", () => {
  it("fees depend on the amount for percentage methods, not for flat ones", async () => {
    const small = (await t.call("GET", "/billing/v2/payment-methods", { query: { amount: 100000 } })).body.data;
    const big = (await t.call("GET", "/billing/v2/payment-methods", { query: { amount: 1000000 } })).body.data;
    expect(Object.keys(small).sort()).toEqual(["bank", "card", "ewallet", "qris", "ritel"]);
    expect(big.qris[0].fee).toBeGreaterThan(small.qris[0].fee);
    expect(big.bank[0].fee).toBe(small.bank[0].fee);
    expect(small.qris[0].vat).toBe(Math.ceil(small.qris[0].fee * 0.11));
  });

  it("a top-up creates a pending invoice that is paid after one operation duration, adding a credit entry", async () => {
    const before = (await t.state()).balance;
    const res = await t.call("POST", "/billing/v2/topup", { form: { payment_method: "BCAVA", amount: 250000 } });
    expect(res.body.message).toBe("Invoice created");
    expect(res.body.data).toMatchObject({ amount: 250000, details: { amount: 250000, payment_fee: 4000, vat: 440 } });
    expect(res.body.data.va_number).not.toBe("");
    const id = res.body.data.invoice_id;
    expect((await t.call("GET", `/billing/v2/topup/${id}/status`)).body.data.status).toBe("Pending");
    t.advance(OP_SECONDS);
    expect((await t.call("GET", `/billing/v2/topup/${id}/status`)).body.data.status).toBe("Paid");
    const history = (await t.call("GET", "/billing/credit/history", { query: { type: "A", limit: 1 } })).body.data.data;
    expect(history[0]).toMatchObject({ type: "Add", amount: "Rp250.000,00", description: "Top up via BCA Virtual Account" });
    expect((await t.state()).balance).toBe(before + 250000);
  });

  it("credit history filters by type and by an inclusive date range", async () => {
    const deductions = (await t.call("GET", "/billing/credit/history", { query: { type: "D", limit: 100 } })).body.data.data;
    expect(deductions).toHaveLength(6);
    expect(deductions.every((e: Json) => e.type === "Deduct")).toBe(true);
    const june = (await t.call("GET", "/billing/credit/history", { query: { start: "2024-06-01", end: "2024-06-30" } })).body.data.data;
    expect(june.map((e: Json) => e.created_at).sort()).toEqual(["01/06/2024", "03/06/2024"]);
    expect((await t.call("GET", "/billing/credit/history", { query: { type: "X" } })).status).toBe(422);
    expect((await t.call("GET", "/billing/credit/history", { query: { start: "2024-13-01" } })).status).toBe(422);
  });

  it("billing reports: 404 for a date without one, 422 for a malformed date", async () => {
    expect((await t.call("GET", "/billing/report/summary/2024-10-01/details")).status).toBe(200);
    expect((await t.call("GET", "/billing/report/summary/2023-01-01/details")).status).toBe(404);
    expect((await t.call("GET", "/billing/report/summary/October/details")).status).toBe(422);
  });
});

describe("validation", () => {
  it("accepts Laravel booleans 1/0 and JSON true/false but not the string \"true\"", async () => {
    const base = { location_id: 1, tier_id: 1, template_id: 2, hostname: "h", cpu: 1, memory: 1, storage: 10, username: "u", password: "p4ssword" };
    const text = await t.call("POST", "/instance/create", { form: { ...base, use_public_ip: "true" } });
    expect(text.status).toBe(422);
    expect(text.body.errors.use_public_ip).toEqual(["The use public ip field must be true or false."]);
    expect((await t.call("POST", "/instance/create", { form: { ...base, use_public_ip: "0" } })).status).toBe(200);
    expect((await t.call("POST", "/instance/create", { json: { ...base, use_public_ip: true } })).status).toBe(200);
  });

  it("accepts multipart/form-data bodies like Laravel does", async () => {
    const uuid = await t.runningInstance();
    const form = new FormData();
    form.append("hostname", "multi-part");
    const res = await fetch(`${t.sim.url}/instance/${uuid}/update-hostname`, { method: "PATCH", headers: { "x-apikey": t.sim.apiKey }, body: form });
    expect(res.status).toBe(200);
    expect((await t.detail(uuid)).hostname).toBe("multi-part");
  });

  it("checks the OS template minimums, hostname rules, and that ids exist", async () => {
    const res = await t.call("POST", "/instance/create", {
      form: { location_id: 9, tier_id: 1, template_id: 4, hostname: "bad_host!", cpu: 1, memory: 2, storage: 20, username: "u", password: "short", use_public_ip: 1 },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toMatchObject({
      location_id: ["The selected location id is invalid."],
      hostname: ["The hostname field format is invalid."],
      cpu: ["The cpu field must be at least 2."],
      memory: ["The memory field must be at least 4."],
      storage: ["The storage field must be at least 40."],
      password: ["The password field must be at least 8 characters."],
    });
  });

  it("set-password needs a matching confirmation and stores the password", async () => {
    const uuid = await t.runningInstance();
    expect((await t.call("PATCH", `/instance/${uuid}/set-password`, { form: { password: "n3wpassword", password_confirmation: "other" } })).status).toBe(422);
    const res = await t.call("PATCH", `/instance/${uuid}/set-password`, { form: { password: "n3wpassword", password_confirmation: "n3wpassword" } });
    expect(res.body.data).toEqual({});
    expect((await t.state()).instances[0].password).toBe("n3wpassword");
  });
});

describe("admin", () => {
  it("PATCH /__sim/instances changes an instance out of band (drift) and deleted:true makes it vanish", async () => {
    const uuid = await t.runningInstance();
    const patched = await t.admin("PATCH", `/instances/${uuid}`, { hostname: "renamed", cpu: 8, powerState: "stopped", publicIp: false, vswitchId: vswitchNamed("jkt-private-2").uuid });
    expect(patched.status).toBe(200);
    expect(await t.detail(uuid)).toMatchObject({ hostname: "renamed", cpu: "8 CPU", status: "Stopped", public_ip: { ip_id: "-" }, private_network: "jkt-private-2" });
    await t.admin("PATCH", `/instances/${uuid}`, { deleted: true });
    expect((await t.call("GET", `/instance/${uuid}/detail`)).status).toBe(404);
    expect((await t.admin("PATCH", `/instances/${uuid}`, { hostname: "x" })).status).toBe(404);
    expect((await t.admin("PATCH", "/instances/whatever", { bogus: 1 })).status).toBe(400);
  });

  it("PATCH /__sim/firewall-rules, /snapshots and /block-storages change or delete them as the panel would", async () => {
    const uuid = await t.runningInstance();
    const rule = (await t.call("POST", `/instance/${uuid}/firewall/create`, { form: { destination_port: "22", protocol: "tcp", action: "A" } })).body.data.id;
    expect((await t.admin("PATCH", `/firewall-rules/${rule}`, { destinationPort: "2222", action: "D" })).status).toBe(200);
    expect((await t.call("GET", `/instance/${uuid}/firewall/rules`)).body.data.data).toEqual([expect.objectContaining({ id: rule, destination_port: "2222", action: "D" })]);
    await t.admin("PATCH", `/firewall-rules/${rule}`, { deleted: true });
    expect((await t.call("GET", `/instance/${uuid}/firewall/rules`)).body.data.data).toEqual([]);
    expect((await t.admin("PATCH", `/firewall-rules/${rule}`, { action: "A" })).status).toBe(404);

    const snap = (await t.call("POST", `/instance/${uuid}/snapshot/create`, { form: { name: "s1", description: "panel test" } })).body.data.snap_uuid;
    expect((await t.admin("PATCH", `/snapshots/${snap}`, { deleted: true })).status).toBe(409);
    t.advance(OP_SECONDS);
    await t.admin("PATCH", `/snapshots/${snap}`, { name: "renamed", status: "Error" });
    expect((await t.call("GET", `/instance/${uuid}/snapshot/snapshots`)).body.data).toEqual([expect.objectContaining({ id: snap, name: "renamed", status: "Error" })]);
    await t.admin("PATCH", `/snapshots/${snap}`, { deleted: true });
    expect((await t.call("GET", `/instance/${uuid}/snapshot/snapshots`)).body.data).toEqual([]);

    const disk = storageNamed("jkt-data-50");
    await t.admin("PATCH", `/block-storages/${disk.uuid}`, { instanceId: uuid });
    expect((await t.state()).blockStorages.find((b: Json) => b.uuid === disk.uuid).instanceUuid).toBe(uuid);
    await t.admin("PATCH", `/block-storages/${disk.uuid}`, { instanceId: null });
    expect((await t.state()).blockStorages.find((b: Json) => b.uuid === disk.uuid).instanceUuid).toBeNull();
    expect((await t.admin("PATCH", `/block-storages/${disk.uuid}`, { instanceId: "nope" })).status).toBe(400);
  });

  it("logs requests in order with method, path, operation and status; ?since= returns the later ones", async () => {
    await t.call("GET", "/tiers");
    await t.call("GET", "/locations", { apiKey: null });
    const log = (await t.admin("GET", "/requests")).body.requests;
    expect(log.map((e: Json) => [e.method, e.path, e.operation, e.status])).toEqual([
      ["GET", "/v1/tiers", "listTiers", 200],
      ["GET", "/v1/locations", "listLocations", 401],
    ]);
    const later = (await t.admin("GET", `/requests?since=${log[0].seq}`)).body.requests;
    expect(later).toHaveLength(1);
    await t.admin("DELETE", "/requests");
    expect((await t.admin("GET", "/requests")).body.requests).toEqual([]);
  });

  it("POST /__sim/instances adds an existing instance, idle, with the address and network asked for", async () => {
    const vs = vswitchNamed("jkt-private-2");
    const res = await t.admin("POST", "/instances", { hostname: "legacy-1", cpu: 2, memory: 4, storage: 40, status: "Stopped", publicIp: reservedIp("103.150.10.13").uuid, vswitchId: vs.uuid });
    expect(res.status).toBe(200);
    const d = await t.detail(res.body.data.uuid);
    expect(d).toMatchObject({ hostname: "legacy-1", status: "Stopped", operation_flag: 0, cpu: "2 CPU", memory: "4096 MB", public_ip: { ip_address: "103.150.10.13" }, private_network: "jkt-private-2" });
    expect((await t.admin("POST", "/instances", { hostname: "x", locationId: 2, vswitchId: vs.uuid })).status).toBe(400);
  });

  it("cancelOperation drops a stuck operation: the instance is idle with its status from before", async () => {
    const uuid = await t.runningInstance();
    await t.admin("POST", "/faults", { stickNext: { kind: "stop" } });
    await t.call("PATCH", `/instance/${uuid}/stop`);
    t.advance(3600);
    expect((await t.detail(uuid)).status).toBe("stopping");
    await t.admin("PATCH", `/instances/${uuid}`, { cancelOperation: true });
    expect(await t.detail(uuid)).toMatchObject({ status: "Running", operation_flag: 0 });
  });

  it("POST /__sim/clock skips time ahead so operations finish", async () => {
    const uuid = await t.createInstance();
    await t.admin("POST", "/clock", { advanceSeconds: OP_SECONDS });
    expect((await t.detail(uuid)).status).toBe("Running");
  });
});

describe("determinism", () => {
  it("the same seed gives the same catalogue ids and the same ids for the same requests; another seed differs", async () => {
    const run = async (seed: string): Promise<{ vswitch: string; instance: string }> => {
      const sim = await startSimulator({ seed, opSeconds: 0 });
      try {
        const state: Json = await (await fetch(`${sim.adminUrl}/state`)).json();
        const res = await fetch(`${sim.url}/instance/create`, {
          method: "POST",
          headers: { "x-apikey": sim.apiKey, "content-type": "application/x-www-form-urlencoded" },
          body: "location_id=1&tier_id=1&template_id=2&hostname=a&cpu=1&memory=1&storage=10&username=u&password=p4ssword&use_public_ip=0",
        });
        return { vswitch: state.vswitches[0].uuid, instance: ((await res.json()) as Json).data.uuid };
      } finally {
        await sim.close();
      }
    };
    const a = await run("one");
    expect(await run("one")).toEqual(a);
    const b = await run("two");
    expect(b.vswitch).not.toBe(a.vswitch);
    expect(b.instance).not.toBe(a.instance);
  });
});
