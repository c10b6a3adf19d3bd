/**
 * Wire formats derived from api-spec.md §2 and real-api-facts.md, checked WITHOUT the client's schemas:
 * the envelope, pagination, per-resource timestamp formats (Jakarta time for text forms), text sizes, and
 * the `-` placeholders. The manual clock starts at 2024-11-15T03:00:00Z = 15 November 2024 10:00 in Jakarta.
 */
import { OP_SECONDS, startTestSim, type Json, type TestSim } from "./harness";

// A fresh simulator per test: every test starts at the same simulated instant.
let t: TestSim;
beforeEach(async () => {
  t = await startTestSim();
});
afterEach(() => t.close());

const ISO_MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const DAY_MONTH_YEAR_COMMA = /^\d{2} (January|February|March|April|May|June|July|August|September|October|November|December) \d{4}, \d{2}:\d{2}$/;
const DAY_MONTH_YEAR = /^\d{2} (January|February|March|April|May|June|July|August|September|October|November|December) \d{4} \d{2}:\d{2}$/;
const DASH_DATE_TIME = /^\d{2}-\d{2}-\d{4} \d{2}:\d{2}:\d{2}$/;
const RRD_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/;
const RUPIAH = /^Rp\d{1,3}(\.\d{3})*,\d{2}$/;

function expectEnvelope(body: Json): void {
  expect(Object.keys(body).sort()).toEqual(["data", "message"]);
  expect(typeof body.message).toBe("string");
}

function expectPage(page: Json, expected: { total: number; count: number; per_page: number; current_page: number; total_pages: number }): void {
  expect(page).toEqual(expected);
}

describe("instances", () => {
  it("create answers ISO timestamps with microseconds and integer GB sizes", async () => {
    const res = await t.call("POST", "/instance/create", {
      form: { location_id: 1, tier_id: 1, template_id: 1, hostname: "web-1", cpu: 2, memory: 2, storage: 30, username: "admin", password: "s3cretpass", use_public_ip: 0 },
    });
    expectEnvelope(res.body);
    const d = res.body.data;
    expect(d.created_at).toBe("2024-11-15T03:00:00.000000Z");
    expect(d.updated_at).toMatch(ISO_MICROS);
    expect(d).toMatchObject({ memory: 2, storage: 30, cpu: 2, status: "creating" });
    for (const key of ["node_id", "template_id", "billing_id", "customer_id", "id"]) expect(Number.isInteger(d[key])).toBe(true);
    for (const key of ["active_price_per_min", "inactive_price_per_min"]) expect(typeof d[key]).toBe("number");
  });

  it("list rows: `DD Month YYYY, HH:MM` in Jakarta time, `2 GB` / `30GB`, the spec's os {name, image}, null ip, monthly = hourly x 720", async () => {
    await t.createInstance({ use_public_ip: false });
    t.advance(OP_SECONDS);
    const res = await t.call("GET", "/instance");
    expectEnvelope(res.body);
    expect(Object.keys(res.body.data).sort()).toEqual(["active_operation", "data", "page"]);
    const row = res.body.data.data[0];
    expect(row.created_at).toBe("15 November 2024, 10:00");
    expect(row.created_at).toMatch(DAY_MONTH_YEAR_COMMA);
    expect(row).toMatchObject({ memory: "2 GB", storage: "30GB", cpu: 2, ip_address: null, location: "Jakarta", tier: "Basic", operation_flag: 0 });
    expect(row.os).toEqual({ name: "Ubuntu", image: expect.any(String) });
    expect(row.estimated_monthly_cost).toBe(row.price_per_hour * 720);
  });

  it("detail: `DD-MM-YYYY HH:MM:SS`, `2 CPU`, MB memory, GB storage, `-` for no address / rDNS / network", async () => {
    const uuid = await t.createInstance({ use_public_ip: false });
    t.advance(OP_SECONDS);
    const d = await t.detail(uuid);
    expect(d.created_at).toBe("15-11-2024 10:00:00");
    expect(d.last_started_at).toBe("15-11-2024 10:00:02");
    for (const key of ["created_at", "updated_at", "last_started_at"]) expect(d[key]).toMatch(DASH_DATE_TIME);
    expect(d.last_backup_at).toBeNull();
    expect(d).toMatchObject({
      cpu: "2 CPU", memory: "2048 MB", storage: "30 GB", is_cpu_dedicated: false,
      public_ip: { ip_id: "-", ip_address: "-" }, rdns: "-", private_network: "-",
      location_id: 1, location: "Jakarta", tier_id: 1, tier: "Basic", os_name: "Ubuntu 22.04",
      os: { template_id: 1, os_id: 1, name: "Ubuntu", version: "22.04", min_cpu: 1, min_memory: 1, min_storage: 20 },
    });
    expect(d.estimated_monthly_price).toBe(d.price_per_hour * 720);
  });

  it("detail shows the address, its rDNS and the private network's NAME once set", async () => {
    const state = await t.state();
    const vs = state.vswitches.find((v: Json) => v.name === "jkt-private-2");
    const uuid = await t.createInstance({ vswitch: vs.uuid });
    t.advance(OP_SECONDS);
    const ipId = (await t.detail(uuid)).public_ip.ip_id;
    const longName = `${"a".repeat(60)}.${"b".repeat(60)}.example.com`;
    expect((await t.call("PATCH", `/network/public/${ipId}/rdns`, { form: { rdns: longName } })).body.data).toBe(longName);
    expect((await t.call("PATCH", `/network/public/${ipId}/rdns`, { form: { rdns: "not a name" } })).status).toBe(422);
    await t.call("PATCH", `/network/public/${ipId}/rdns`, { form: { rdns: "web-1.example.com" } });
    const d = await t.detail(uuid);
    expect(d.public_ip.ip_address).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(d.rdns).toBe("web-1.example.com");
    expect(d.private_network).toBe("jkt-private-2");
  });

  it("paginates with limit/page and reports total, count, per_page, current_page, total_pages", async () => {
    for (const name of ["a-1", "b-2", "c-3"]) await t.createInstance({ hostname: name });
    const res = await t.call("GET", "/instance", { query: { limit: 2, page: 2 } });
    expectPage(res.body.data.page, { total: 3, count: 1, per_page: 2, current_page: 2, total_pages: 2 });
    expect(res.body.data.active_operation).toBe(3);
  });

  it("filters by search and statuses and sorts by created_at", async () => {
    const first = await t.createInstance({ hostname: "alpha" });
    t.advance(OP_SECONDS);
    await t.createInstance({ hostname: "beta" });
    const running = await t.call("GET", "/instance", { query: { statuses: "Running" } });
    expect(running.body.data.data.map((r: Json) => r.uuid)).toEqual([first]);
    const search = await t.call("GET", "/instance", { query: { search: "BET" } });
    expect(search.body.data.data.map((r: Json) => r.hostname)).toEqual(["beta"]);
    const asc = await t.call("GET", "/instance", { query: { sort: "created_at" } });
    expect(asc.body.data.data.map((r: Json) => r.hostname)).toEqual(["alpha", "beta"]);
    const desc = await t.call("GET", "/instance", { query: { sort: "-created_at" } });
    expect(desc.body.data.data.map((r: Json) => r.hostname)).toEqual(["beta", "alpha"]);
  });

  it("size templates carry ISO timestamps and integer sizes", async () => {
    const res = await t.call("GET", "/instance/size-template");
    expectEnvelope(res.body);
    for (const st of res.body.data) {
      expect(st.created_at).toMatch(ISO_MICROS);
      expect(st.updated_at).toMatch(ISO_MICROS);
      for (const key of ["id", "total_cpu", "total_ram", "total_disk"]) expect(Number.isInteger(st[key])).toBe(true);
    }
  });
});

describe("monitoring", () => {
  it("hour: one point per minute, `YYYY-MM-DD HH:MM`, size texts next to raw numbers, last bucket in progress", async () => {
    const uuid = await t.runningInstance();
    t.advance(3600);
    const res = await t.call("GET", `/instance/${uuid}/rrd`, { query: { periode: "hour" } });
    expectEnvelope(res.body);
    const { cpu, memory, network, disk } = res.body.data;
    expect(cpu).toHaveLength(60);
    expect(cpu[59].time).toBe("2024-11-15 11:00");
    expect(cpu[58].time).toBe("2024-11-15 10:59");
    for (const series of [cpu, memory, network, disk]) for (const p of series) expect(p.time).toMatch(RRD_TIME);
    expect(cpu[59].cpu).toBe(0);
    expect(cpu[30].cpu).toBeGreaterThan(0);
    expect(memory[30]).toMatchObject({ raw_max_memory: 2, max_memory: "2 GB" });
    expect(memory[30].usage_memory).toBe(`${memory[30].raw_usage_memory} GB`);
    expect(network[59]).toMatchObject({ raw_netin: 0, netin: "0 b" });
    expect(disk[30].diskwrite).toMatch(/^[\d.]+ (B|KB|MB|GB)$/);
  });

  it("rejects an unknown periode with a 422", async () => {
    const uuid = await t.runningInstance();
    const res = await t.call("GET", `/instance/${uuid}/rrd`, { query: { periode: "minute" } });
    expect(res.status).toBe(422);
    expect(res.body.errors.periode).toEqual(["The selected periode is invalid."]);
  });
});

describe("networks, snapshots, backups, storage", () => {
  it("vswitch list: location as a name plus location_flag, gateway object (nulls when none), `DD Month YYYY HH:MM`", async () => {
    const res = await t.call("GET", "/network/vswitches");
    const withGateway = res.body.data.find((v: Json) => v.name === "jkt-private-1");
    const without = res.body.data.find((v: Json) => v.name === "jkt-private-2");
    expect(withGateway).toMatchObject({ tag: 101, location: "Jakarta", network_ip: "10.10.1.0/24", status: "Active", created_at: "25 January 2024 14:37" });
    expect(withGateway.location_flag).toMatch(/^https:\/\//);
    expect(withGateway.gateway).toEqual({ uuid: expect.any(String), hostname: "jkt-gw-1", private_ip: "10.10.1.1" });
    expect(without.gateway).toEqual({ uuid: null, hostname: null, private_ip: null });
  });

  it("vswitch detail: location {id, name}, vid text, last_update_at in the same format", async () => {
    const list = (await t.call("GET", "/network/vswitches")).body.data;
    const res = await t.call("GET", `/network/vswitch/${list[0].uuid}/details`);
    expect(res.body.data).toMatchObject({ location: { id: 1, name: "Jakarta" }, vid: "101", total_active_instance: 0 });
    expect(res.body.data.last_update_at).toMatch(DAY_MONTH_YEAR);
  });

  it("snapshots and backups: `DD Month YYYY HH:MM`; attached storage sizes are numbers", async () => {
    const uuid = await t.runningInstance({ include_backup: true });
    const storage = (await t.call("GET", "/storage/blocks/options", { query: { location_id: 1 } })).body.data[0];
    expect(storage.size).toMatch(/^\d+GB$/);
    await t.call("PATCH", `/storage/blocks/${storage.id}/attach`, { form: { instance_id: uuid } });
    await t.call("POST", `/instance/${uuid}/snapshot/create`, { form: { name: "s1", description: "d" } });
    t.advance(OP_SECONDS);
    const snap = (await t.call("GET", `/instance/${uuid}/snapshot/snapshots`)).body.data[0];
    expect(snap.created_at).toBe("15 November 2024 10:00");
    expect(snap.attached_storage).toEqual([{ id: storage.id, name: storage.name, size: Number(storage.size.replace("GB", "")) }]);
    const backups = await t.call("GET", `/instance/${uuid}/backup/history`);
    expect(backups.body.message).toBe("Instance backup schedules");
    expect(backups.body.data.page).toEqual({ total: 1, count: 1, per_page: 10, current_page: 1, total_pages: 1 });
    expect(backups.body.data.data[0].created_at).toMatch(DAY_MONTH_YEAR);
  });
});

describe("billing", () => {
  it("credit history money is `Rp` text with dot thousands and comma decimals", async () => {
    const res = await t.call("GET", "/billing/credit/history", { query: { limit: 50 } });
    expect(res.body.data.page.total).toBe(12);
    for (const e of res.body.data.data) {
      expect(e.amount).toMatch(RUPIAH);
      expect(e.balance_after).toMatch(RUPIAH);
      expect(["Add", "Deduct"]).toContain(e.type);
    }
    expect(res.body.data.data.find((e: Json) => e.type === "Add" && e.amount === "Rp3.000.000,00")).toBeDefined();
  });

  it("billing report detail uses the key `billing periode` and a uuid id", async () => {
    const res = await t.call("GET", "/billing/report/summary/2024-11-01/details");
    expect(res.body.data["billing periode"]).toBe("October 2024");
    expect(res.body.data).toMatchObject({ billing_date: "2024-11-01", status: "Not Settled", fully_settle: false });
    expect(res.body.data.id).toMatch(/^[0-9a-f-]{36}$/);
    const total = res.body.data.services.reduce((s: number, g: Json) => s + g.total, 0);
    expect(res.body.data.total).toBeCloseTo(total, 2);
  });
});

describe("errors", () => {
  it("422 bodies are `{message, errors: {field: [text]}}`; 404 bodies are `{message}`", async () => {
    const invalid = await t.call("POST", "/instance/create", { form: {} });
    expect(invalid.status).toBe(422);
    expect(Object.keys(invalid.body).sort()).toEqual(["errors", "message"]);
    expect(invalid.body.errors.hostname).toEqual(["The hostname field is required."]);
    expect(invalid.body.message).toMatch(/^The .* field is required\. \(and \d+ more errors\)$/);
    const missing = await t.call("GET", "/instance/00000000-0000-4000-8000-000000000000/detail");
    expect(missing.status).toBe(404);
    expect(Object.keys(missing.body)).toEqual(["message"]);
  });
});
