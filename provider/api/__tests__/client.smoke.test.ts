import { MockAgent } from "undici";
import { createClient } from "../client";

const BASE = "https://api.example.test/v1";
const KEY = "sk-smoke-0123456789";

function setup() {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const client = createClient({ baseUrl: BASE, apiKey: KEY, dispatcher: agent, logger: false });
  return { agent, pool: agent.get("https://api.example.test"), client };
}

describe("client happy path", () => {
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

  it("creates an instance with a form body", async () => {
    const { pool, client } = setup();
    let sent = "";
    pool.intercept({ path: "/v1/instance/create", method: "POST", body: (b) => ((sent = b), true) })
      .reply(200, { message: "Vm berhasil dibuat", data: { uuid: "new-1", hostname: "web", memory: 2, storage: 40, created_at: "2023-01-27T02:42:31.000000Z" } });
    const created = await client.instances.create({
      locationId: 1, tierId: 2, templateId: 3, hostname: "web", cpu: 2, memory: 2, storage: 40, username: "root",
      password: "pw", usePublicIp: true, sshKeys: ["a", "b"], vswitch: null,
    });
    expect(created.uuid).toBe("new-1");
    expect(sent).toContain("use_public_ip=1");
    expect(sent).toContain("ssh_keys%5B%5D=a&ssh_keys%5B%5D=b");
    expect(sent).not.toContain("vswitch");
  });
});
