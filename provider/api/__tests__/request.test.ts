import { encodeForm, encodeQuery, fillPath, RequestBuildError } from "../request";
import { packageVersion } from "../version";
import { API_KEY, mockClient, refBody } from "./helpers";

const created = { message: "Vm berhasil dibuat", data: { uuid: "new-1" } };

describe("form encoding", () => {
  it("sends booleans as 1/0, arrays as k[]=v, leaves out null/undefined, keeps blank strings", () => {
    const text = encodeForm({ a: true, b: false, keys: ["x", "y z"], n: null, u: undefined, blank: "", num: 3 });
    expect(text).toBe("a=1&b=0&keys%5B%5D=x&keys%5B%5D=y+z&blank=&num=3");
    expect(new URLSearchParams(text).getAll("keys[]")).toEqual(["x", "y z"]);
  });

  it("encodes a query the same way, with a leading ? only when non-empty", () => {
    expect(encodeQuery({ statuses: "Running,Stopped", page: 2, gone: null })).toBe("?statuses=Running%2CStopped&page=2");
    expect(encodeQuery({ gone: undefined })).toBe("");
  });

  it("create sends the spec's form fields on the wire", async () => {
    const { pool, client, calls } = mockClient();
    pool.intercept({ path: "/v1/instance/create", method: "POST" }).reply(200, created);
    await client.instances.create({
      locationId: 1, tierId: 2, templateId: 3, hostname: "web-1", cpu: 2, memory: 4, storage: 40, username: "admin",
      password: "p@ss&word", usePublicIp: true, useDedicatedCpu: false, sshKeys: ["ssh-ed25519 AAA a@b", "ssh-rsa BBB c@d"],
      vswitch: null, includeBackup: undefined,
    });
    const call = calls()[0]!;
    const form = new URLSearchParams(call.body as string);
    expect(Object.fromEntries([...form.keys()].map((k) => [k, form.getAll(k)]))).toEqual({
      location_id: ["1"], tier_id: ["2"], template_id: ["3"], hostname: ["web-1"], cpu: ["2"], memory: ["4"], storage: ["40"],
      username: ["admin"], password: ["p@ss&word"], use_public_ip: ["1"], use_dedicated_cpu: ["0"],
      "ssh_keys[]": ["ssh-ed25519 AAA a@b", "ssh-rsa BBB c@d"],
    });
    expect(call.headers).toMatchObject({ "content-type": "application/x-www-form-urlencoded" });
  });

  it("delete sends remove flags as 1/0 and Laravel's _method=DELETE", async () => {
    const { pool, client, calls } = mockClient();
    pool.intercept({ path: "/v1/instance/i-1", method: "DELETE" }).reply(200, { message: "ok", data: [{ uuid: "i-1", hostname: "web-1" }] });
    await expect(client.instances.delete("i-1", { removeIp: true, removeBlockStorage: false })).resolves.toEqual([{ uuid: "i-1", hostname: "web-1" }]);
    expect(calls()[0]!.body).toBe("remove_ip=1&remove_block_storage=0&_method=DELETE");
  });

  it("removing a public address or a private network sends the field blank (not left out)", async () => {
    const { pool, client, calls } = mockClient();
    pool.intercept({ path: "/v1/instance/i-1/ip/change", method: "PATCH" }).reply(200, { message: "ok", data: { instance: "i-1", public_ip: "-" } });
    pool.intercept({ path: "/v1/instance/i-1/vswitch/update", method: "PATCH" }).reply(200, { message: "ok", data: { vm_uuid: "i-1" } });
    await client.network.changePublicIp("i-1", { publicNetwork: null });
    await client.network.updatePrivateNetwork("i-1", {});
    expect(calls().map((c) => c.body)).toEqual(["public_network=", "vswitch="]);
  });

  it("firewall actions go out as the wire codes A/D", async () => {
    const { pool, client, calls } = mockClient();
    pool.intercept({ path: "/v1/instance/i-1/firewall/create", method: "POST" }).reply(200, { message: "ok", data: { id: 5 } });
    await expect(
      client.firewall.createRule("i-1", { destinationPort: "8000-8100", protocol: "tcp", action: "drop", useIpset: false }),
    ).resolves.toEqual({ id: "5" });
    expect(calls()[0]!.body).toBe("destination_port=8000-8100&protocol=tcp&action=D&use_ipset=0");
  });
});

describe("paths and queries", () => {
  it("URL-encodes path parameters", async () => {
    const { pool, client, calls } = mockClient();
    pool.intercept({ path: "/v1/instance/a%2Fb%20c%3F/detail", method: "GET" }).reply(404, { message: "Not found" });
    await expect(client.instances.find("a/b c?")).resolves.toBeUndefined();
    expect(calls()[0]!.path).toBe("/v1/instance/a%2Fb%20c%3F/detail");
  });

  it("fills several parameters and sends the query (statuses comma-separated)", async () => {
    const { pool, client } = mockClient();
    pool
      .intercept({ path: "/v1/instance?limit=5&search=web&statuses=Running%2CStopped", method: "GET" })
      .reply(200, { message: "ok", data: { data: [], active_operation: 0, page: { total: 0, count: 0, per_page: 5, current_page: 1, total_pages: 0 } } });
    await expect(client.instances.list({ limit: 5, search: "web", statuses: ["Running", "Stopped"] })).resolves.toMatchObject({ data: [] });
    expect(fillPath("deleteSnapshot", "/instance/{instance_uuid}/snapshot/{snapshot_uuid}/delete", { instance_uuid: "i 1", snapshot_uuid: "s/1" })).toBe(
      "/instance/i%201/snapshot/s%2F1/delete",
    );
  });

  it("throws before sending when a path parameter is missing, empty or unknown", async () => {
    const { client, calls } = mockClient();
    await expect(client.instances.get("")).rejects.toThrow(RequestBuildError);
    await expect(client.call("getInstance", {})).rejects.toThrow('getInstance: missing path parameter "instance_uuid"');
    await expect(client.call("listSizeTemplates", { path: { instance_uuid: "x" } })).rejects.toThrow('unknown path parameter(s) "instance_uuid"');
    expect(calls()).toHaveLength(0);
  });
});

describe("headers", () => {
  it("sends x-apikey, Accept: application/json and a User-Agent with the package version", async () => {
    const { pool, client, calls } = mockClient();
    pool.intercept({ path: "/v1/instance/i-1/start", method: "PATCH" }).reply(200, refBody());
    await client.instances.start("i-1");
    expect(packageVersion()).toBe(require("../../../package.json").version);
    expect(calls()[0]!.headers).toMatchObject({
      "x-apikey": API_KEY,
      accept: "application/json",
      "user-agent": `pulumi-vmhost/${packageVersion()}`,
    });
  });

  it("sends no body and no content-type on reads", async () => {
    const { pool, client, calls } = mockClient();
    pool.intercept({ path: "/v1/instance/size-template", method: "GET" }).reply(200, { message: "ok", data: [] });
    await client.catalog.sizeTemplates();
    expect(calls()[0]!.body ?? undefined).toBeUndefined();
    expect(calls()[0]!.headers).not.toHaveProperty("content-type");
  });
});

describe("route overrides", () => {
  it("sends an overridden operation to the overridden method and path", async () => {
    const { pool, client } = mockClient({ routes: { updateRdns: "PUT /network/ip/{ip_uuid}/rdns" } });
    pool.intercept({ path: "/v1/network/ip/ip-1/rdns", method: "PUT", body: "rdns=web.example.com" }).reply(200, { message: "ok", data: "web.example.com" });
    await expect(client.network.updateRdns("ip-1", { rdns: "web.example.com" })).resolves.toBe("web.example.com");
    expect(client.routes.updateRdns).toMatchObject({ method: "PUT", path: "/network/ip/{ip_uuid}/rdns", retry: "idempotent" });
  });
});
