/**
 * Contract with the client: every operation of the client's routes table, called the way the client
 * calls it (its method and path template), is answered by the simulator, and the answer parses with the
 * client's zod schema for that operation (`operations[id].response`). A failure here means the simulator
 * and the client disagree on a route or a shape; fix whichever contradicts api-spec.md.
 */
import { operations, type OperationId } from "../../provider/api/operations";
import { routes } from "../../provider/api/routes";
import { OP_SECONDS, startTestSim, type CallOptions, type Json, type TestSim } from "./harness";

let t: TestSim;
beforeAll(async () => {
  t = await startTestSim();
});
afterAll(() => t.close());

/** Ids a request needs, from a freshly built scenario. */
interface Scenario {
  instance: string; // Running, Jakarta, public IP, vswitch, block storage, firewall rule, snapshot, backup
  bare: string; // Running, Jakarta, no public IP
  ipUuid: string; // the instance's public address
  freeIpUuid: string; // a reserved Jakarta address nobody uses
  vswitch: Json;
  otherVswitch: string;
  attachedStorage: string;
  freeStorage: string;
  rule: string;
  snapshot: string;
  backup: string;
  invoice: string;
}

async function scenario(): Promise<Scenario> {
  await t.admin("POST", "/reset");
  const seeded = await t.state();
  const vswitch = seeded.vswitches.find((v: Json) => v.name === "jkt-private-1");
  const instance = await t.createInstance({ include_backup: true, vswitch: vswitch.uuid });
  const bare = await t.createInstance({ hostname: "bare-1", use_public_ip: false });
  t.advance(OP_SECONDS);
  const storages = seeded.blockStorages.filter((b: Json) => b.locationId === 1);
  const ok = async (method: string, path: string, opts: CallOptions = {}): Promise<Json> => {
    const res = await t.call(method, path, opts);
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  };
  await ok("PATCH", `/storage/blocks/${storages[0].uuid}/attach`, { form: { instance_id: instance } });
  const rule = (await ok("POST", `/instance/${instance}/firewall/create`, { form: { destination_port: "22", protocol: "tcp", action: "A", source_ip: "10.0.0.0/8", description: "ssh" } })).id;
  const snapshot = (await ok("POST", `/instance/${instance}/snapshot/create`, { form: { name: "snap-1", description: "first" } })).snap_uuid;
  t.advance(OP_SECONDS);
  const invoice = (await ok("POST", "/billing/v2/topup", { form: { payment_method: "BCAVA", amount: 100000 } })).invoice_id;
  const state = await t.state();
  const inst = state.instances.find((i: Json) => i.uuid === instance);
  return {
    instance, bare, ipUuid: inst.publicIpUuid,
    freeIpUuid: state.publicIps.find((p: Json) => p.locationId === 1 && p.instanceUuid === null).uuid,
    vswitch, otherVswitch: seeded.vswitches.find((v: Json) => v.name === "jkt-private-2").uuid,
    attachedStorage: storages[0].uuid, freeStorage: storages[1].uuid, rule, snapshot,
    backup: state.backups.find((b: Json) => b.instanceUuid === instance).uuid, invoice,
  };
}

type Request = { params?: Record<string, string>; query?: CallOptions["query"]; form?: CallOptions["form"] };

/** How to call each operation against the scenario (valid input: every answer must be 200). */
const requests: Record<OperationId, (s: Scenario) => Request> = {
  listInstances: () => ({ query: { limit: 5, page: 1, sort: "created_at", statuses: "Running" } }),
  createInstance: () => ({
    form: { location_id: 2, tier_id: 3, template_id: 3, hostname: "db-1", cpu: 2, memory: 4, storage: 40, username: "ops", password: "s3cretpass", use_public_ip: true, use_dedicated_cpu: true, ssh_keys: ["ssh-ed25519 AAAA"], include_backup: false },
  }),
  getInstance: (s) => ({ params: { instance_uuid: s.instance } }),
  getInstanceMetrics: (s) => ({ params: { instance_uuid: s.instance }, query: { periode: "day" } }),
  listSizeTemplates: () => ({}),
  changeTier: (s) => ({ params: { instance_uuid: s.instance }, form: { tier_id: 2 } }),
  setPassword: (s) => ({ params: { instance_uuid: s.instance }, form: { password: "n3wpassword", password_confirmation: "n3wpassword" } }),
  changePublicIp: (s) => ({ params: { instance_uuid: s.instance }, form: { public_network: s.freeIpUuid } }),
  updateFirewallRule: (s) => ({ params: { instance_uuid: s.instance, firewall_id: s.rule }, form: { action: "D", protocol: "udp", description: "dns" } }),
  attachBlockStorage: (s) => ({ params: { block_storage_id: s.freeStorage }, form: { instance_id: s.instance } }),
  listBlockStorageOptions: () => ({ query: { location_id: 1 } }),
  listSnapshots: (s) => ({ params: { instance_uuid: s.instance } }),
  getSnapshotPrice: (s) => ({ params: { instance_uuid: s.instance }, query: { tier_id: 2 } }),
  getBackupPrice: (s) => ({ params: { instance_uuid: s.instance }, query: { tier_id: 2 } }),
  listVswitches: () => ({}),
  listVswitchOptions: () => ({ query: { location_id: 1 } }),
  getVswitch: (s) => ({ params: { vswitch_uuid: s.vswitch.uuid } }),
  getVswitchGraph: (s) => ({ params: { vswitch_id: String(s.vswitch.tag) } }),
  listPaymentMethods: () => ({ query: { amount: 250000 } }),
  createTopup: () => ({ form: { payment_method: "QRIS", amount: 50000 } }),
  listCreditHistory: () => ({ query: { page: 1, limit: 5, start: "2024-05-01", end: "2024-12-31", type: "A" } }),
  getBillingReport: () => ({ params: { summary_date: "2024-11-01" } }),
  cloneInstance: (s) => ({ params: { instance_uuid: s.instance }, form: { hostname: "web-clone", location_id: 1, tier_id: 1 } }),
  getConsole: (s) => ({ params: { instance_uuid: s.instance } }),
  reinstallInstance: (s) => ({ params: { instance_uuid: s.instance }, form: { template_id: 2 } }),
  deleteInstance: (s) => ({ params: { instance_uuid: s.instance }, form: { remove_ip: true, remove_block_storage: false, _method: "DELETE" } }),
  startInstance: (s) => ({ params: { instance_uuid: s.instance } }),
  stopInstance: (s) => ({ params: { instance_uuid: s.instance } }),
  restartInstance: (s) => ({ params: { instance_uuid: s.instance } }),
  listInstancesWithoutPublicIp: () => ({ query: { location_id: 1 } }),
  updateRdns: (s) => ({ params: { ip_uuid: s.ipUuid }, form: { rdns: "web-1.example.com" } }),
  updatePrivateNetwork: (s) => ({ params: { instance_uuid: s.instance }, form: { vswitch: s.otherVswitch } }),
  addPublicIp: (s) => ({ params: { instance_uuid: s.bare } }),
  resizeInstance: (s) => ({ params: { instance_uuid: s.instance }, form: { cpu: 4, memory: 4, storage: 40 } }),
  updateHostname: (s) => ({ params: { instance_uuid: s.instance }, form: { hostname: "web-renamed" } }),
  getChangeTierCost: (s) => ({ params: { instance_uuid: s.instance }, query: { tier_id: 3 } }),
  createSnapshot: (s) => ({ params: { instance_uuid: s.instance }, form: { name: "snap-2", description: "second" } }),
  rollbackSnapshot: (s) => ({ params: { instance_uuid: s.instance, snapshot_uuid: s.snapshot } }),
  deleteSnapshot: (s) => ({ params: { instance_uuid: s.instance, snapshot_uuid: s.snapshot } }),
  listBackups: (s) => ({ params: { instance_uuid: s.instance }, query: { limit: 10, page: 1 } }),
  deleteBackup: (s) => ({ params: { instance_uuid: s.instance, snapshot_uuid: s.backup } }),
  listFirewallRules: (s) => ({ params: { instance_uuid: s.instance }, query: { page: 1, limit: 10 } }),
  createFirewallRule: (s) => ({ params: { instance_uuid: s.instance }, form: { destination_port: "8000:8100", protocol: "tcp", action: "A", description: "app", use_ipset: false } }),
  deleteFirewallRule: (s) => ({ params: { instance_uuid: s.instance, firewall_id: s.rule } }),
  getFirewallDefault: (s) => ({ params: { instance_uuid: s.instance } }),
  updateFirewallDefault: (s) => ({ params: { instance_uuid: s.instance }, form: { action: "D" } }),
  listBlockStorages: () => ({}),
  detachBlockStorage: (s) => ({ params: { block_storage_id: s.attachedStorage } }),
  listLocations: () => ({}),
  listTiers: () => ({}),
  listSystems: () => ({}),
  getBillingSummary: () => ({}),
  getTopupStatus: (s) => ({ params: { invoice_id: s.invoice } }),
};

describe("every client operation against the simulator", () => {
  it("covers the whole routes table", () => {
    expect(Object.keys(requests).sort()).toEqual(Object.keys(routes).sort());
  });

  it.each(Object.keys(routes) as OperationId[])("%s answers 200 and parses with the client's schema", async (id) => {
    const s = await scenario();
    const req = requests[id](s);
    const route = routes[id];
    const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = req.params?.[name];
      if (value === undefined) throw new Error(`no value for {${name}} of ${id}`);
      return encodeURIComponent(value);
    });
    const res = await t.call(route.method, path, { ...(req.query ? { query: req.query } : {}), ...(req.form ? { form: req.form } : {}) });
    expect({ id, status: res.status, body: res.status === 200 ? "ok" : res.body }).toEqual({ id, status: 200, body: "ok" });
    const parsed = operations[id].response.safeParse(res.body);
    expect(parsed.success ? "parses" : parsed.error.issues).toBe("parses");
  });
});

describe("the client's normalized view of the simulator's answers", () => {
  it("agrees across representations: one instant in every timestamp format, one size in every unit", async () => {
    await t.admin("POST", "/reset");
    t.clock!.advance(37_000); // seconds that the list's minute precision drops
    const created = operations.createInstance.response.parse((await t.call("POST", "/instance/create", {
      form: { location_id: 1, tier_id: 1, template_id: 1, hostname: "norm-1", cpu: 2, memory: 4, storage: 60, username: "admin", password: "s3cretpass", use_public_ip: 0 },
    })).body).data;
    const list = operations.listInstances.response.parse((await t.call("GET", "/instance")).body).data;
    const detail = operations.getInstance.response.parse((await t.call("GET", `/instance/${created.uuid}/detail`)).body).data;
    // ISO (create), "DD Month YYYY, HH:MM" Jakarta (list, minute precision) and "DD-MM-YYYY HH:MM:SS" Jakarta (detail).
    expect(detail.created_at).toBe(created.created_at);
    const toTheMinute = new Date(Math.floor(Date.parse(String(created.created_at)) / 60000) * 60000).toISOString();
    expect(list.data[0]!.created_at).toBe(toTheMinute);
    expect([list.data[0]!.memory, list.data[0]!.storage, detail.memory, detail.storage, detail.cpu]).toEqual([4, 60, 4, 60, 2]);
    expect(detail.public_ip).toBeNull();
  });
});
