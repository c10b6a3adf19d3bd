import { MockAgent } from "undici";
import { createClient } from "../client";
import { mockClient } from "./helpers";

const BASE = "https://api.example.test/v1";
const KEY = "sk-smoke-0123456789";

function setup() {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const client = createClient({ baseUrl: BASE, apiKey: KEY, dispatcher: agent, logger: false });
  return { agent, pool: agent.get("https://api.example.test"), client };
}

describe("client: a typed call returns normalized data", () => {
  it("gets an instance detail and normalizes it", async () => {
    const { pool, client } = setup();
    pool.intercept({ path: "/v1/instance/abc/detail", method: "GET" }).reply(200, {
      message: "ok",
      data: {
        uuid: "abc", hostname: "web", username: "root", cpu: "2 CPU", is_cpu_dedicated: false, memory: "2048 MB",
        storage: "60 GB", status: "Running", os_name: "Ubuntu", public_ip: { ip_id: "-", ip_address: "-" }, rdns: "-",
        private_network: "-", location_id: 1, location: "Jakarta", tier_id: 2, tier: "Standard",
        os: { template_id: 3, version: "22.04", os_id: 4, name: "Ubuntu", min_cpu: 1, min_memory: 1, min_storage: 10 },
        price_per_hour: 100, estimated_monthly_price: 72000, cost: null, operation_flag: 0,
        created_at: "26-08-2024 10:00:00", updated_at: "26-08-2024 10:00:00", last_started_at: "26-08-2024 10:00:00", last_backup_at: null,
      },
    });
    const detail = await client.instances.get("abc");
    expect(detail).toMatchObject({ cpu: 2, memory: 2, storage: 60, public_ip: null, rdns: null, created_at: "2024-08-26T03:00:00.000Z" });
  });
});

describe("catalogue cache", () => {
  it("reads the catalogue once per client, and reads again after a failed read", async () => {
    const { pool, client, calls } = mockClient({ maxRetries: 0 });
    pool.intercept({ path: "/v1/systems", method: "GET" }).reply(403, { message: "no scope" });
    pool.intercept({ path: "/v1/systems", method: "GET" }).reply(200, { message: "ok", data: [{ id: 1, name: "Debian" }] });
    await expect(client.catalog.systems()).rejects.toThrow("HTTP 403");
    const [a, b] = await Promise.all([client.catalog.systems(), client.catalog.systems()]);
    expect(await client.catalog.systems()).toEqual(a);
    expect(b).toEqual(a);
    expect(calls()).toHaveLength(2);
  });
});
