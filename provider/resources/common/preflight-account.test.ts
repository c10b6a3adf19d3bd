/**
 * The account check at preview (checkAccount) and the catalogue's optional lists, against a mocked API: each
 * configuration mistake names the config key to fix; what says nothing about the configuration only logs.
 */
import { errors } from "undici";
import { captureProgressLines, mockClient } from "../../api/__tests__/helpers";
import { samples } from "../../api/__tests__/samples";
import { catalogueFor, checkAccount, previewFailures } from "./preflight";

const SIZES = "/v1/instance/size-template";
const progress = captureProgressLines();

describe("checkAccount", () => {
  it("a 401 with the host's own words quotes them", async () => {
    const { pool, client } = mockClient({ maxRetries: 0 });
    pool.intercept({ path: SIZES, method: "GET" }).reply(401, { message: "Token expired" });
    await expect(checkAccount(client)).rejects.toThrow(/^vmhost:apiKey: the API at https:\/\/api\.vmhost\.test\/v1 rejected the API key \(HTTP 401 Token expired\): set a valid key/);
  });
  it("a 403 names the scopes the key needs, with the host's words", async () => {
    const { pool, client } = mockClient({ maxRetries: 0 });
    pool.intercept({ path: SIZES, method: "GET" }).reply(403, { message: "no scope" });
    const error = (await checkAccount(client).catch((e: unknown) => e)) as Error;
    expect(error.message).toBe(
      "vmhost:apiKey: the API at https://api.vmhost.test/v1 refused the API key (HTTP 403 no scope): the key may not read instances; " +
        "use a key with the read_instance and write_instance scopes (or super), set with `pulumi config set --secret vmhost:apiKey <key>`",
    );
    expect(error.cause).toBeDefined();
  });
  it("an answer that is not the API's, or another 4xx, blames the base URL (with /v1 present: points at the docs)", async () => {
    const html = mockClient({ maxRetries: 0 });
    html.pool.intercept({ path: SIZES, method: "GET" }).reply(200, "<html>parked domain</html>", { headers: { "content-type": "text/html" } });
    await expect(checkAccount(html.client)).rejects.toThrow(
      "vmhost:baseUrl: the API at https://api.vmhost.test/v1 does not answer as this API (GET /instance/size-template gave an answer that is not the API's): " +
        "check vmhost:baseUrl (VMHOST_BASE_URL) against your host's API documentation (e.g. https://api.dewavps.com/v1)",
    );
    const teapot = mockClient({ maxRetries: 0 });
    teapot.pool.intercept({ path: SIZES, method: "GET" }).reply(418, { message: "no" });
    await expect(checkAccount(teapot.client)).rejects.toThrow(/does not answer as this API \(GET \/instance\/size-template gave HTTP 418\)/);
  });
  it("a host that does not answer in time is named as slow (vmhost:requestTimeout), not as an unreachable URL", async () => {
    const { pool, client } = mockClient({ maxRetries: 0 });
    pool.intercept({ path: SIZES, method: "GET" }).replyWithError(new errors.HeadersTimeoutError());
    const error = (await checkAccount(client).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/^vmhost:requestTimeout: the API at https:\/\/api\.vmhost\.test\/v1 did not answer in time \(.*vmhost:requestTimeout/);
    expect(error.message).not.toMatch(/vmhost:baseUrl/);
  });
  it("a connection that never opens blames the base URL, saying so once", async () => {
    const { pool, client } = mockClient({ maxRetries: 0 });
    pool.intercept({ path: SIZES, method: "GET" }).replyWithError(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }));
    const error = (await checkAccount(client).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/^vmhost:baseUrl: could not reach the API at https:\/\/api\.vmhost\.test\/v1 \(/);
    expect(error.message.match(/Check vmhost:baseUrl/gi)).toHaveLength(1);
  });
  it("a 5xx says nothing about the configuration: it only logs and lets preview go on", async () => {
    const { pool, client } = mockClient({ maxRetries: 0 });
    pool.intercept({ path: SIZES, method: "GET" }).reply(503, { message: "maintenance" });
    await expect(checkAccount(client)).resolves.toBeUndefined();
    expect(progress.lines).toEqual([expect.stringMatching(/^could not check the API key at preview \(.*503.*\); continuing$/)]);
  });
});

describe("catalogueFor", () => {
  it("goes on without a list the host fails to serve, saying which and that up will check", async () => {
    const { pool, client } = mockClient({ maxRetries: 0 });
    pool.intercept({ path: SIZES, method: "GET" }).reply(200, { message: "ok", data: [] });
    pool.intercept({ path: /.*/, method: "GET" }).reply(404, { message: "no such route" }).persist();
    const cat = await catalogueFor(client, true);
    expect(cat).toEqual({ locations: undefined, tiers: undefined, templates: undefined, vswitches: undefined });
    for (const what of ["locations", "tiers", "OS templates", "private networks"])
      expect(progress.lines).toContainEqual(expect.stringMatching(new RegExp(`^could not read the ${what} at preview \\(.+\\); the API will check these values at up$`)));
  });
  it("keeps private networks with lower-case uuids and their location's name", async () => {
    const { pool, client } = mockClient({ maxRetries: 0 });
    pool.intercept({ path: SIZES, method: "GET" }).reply(200, { message: "ok", data: [] });
    pool.intercept({ path: "/v1/network/vswitches", method: "GET" }).reply(200, {
      message: "ok",
      data: [{ uuid: "0A1B2C3D-4E5F-4A6B-8C7D-9E8F7A6B5C4D", name: "backend", tag: 7, location: "Jakarta", status: "active", gateway: null }],
    });
    pool.intercept({ path: /.*/, method: "GET" }).reply(404, { message: "no such route" }).persist();
    expect((await catalogueFor(client, true)).vswitches).toEqual([{ uuid: "0a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d", name: "backend", location: "Jakarta" }]);
  });
  it("reads the private networks only for a resource that names one (a fleet of VMs without one sends a request less)", async () => {
    const { pool, client } = mockClient({ maxRetries: 0 });
    const paths: string[] = [];
    pool.intercept({ path: (p) => (paths.push(p), true), method: "GET" }).reply(200, { message: "ok", data: [] }).persist();
    await catalogueFor(client);
    await previewFailures("Instance", { locationId: 1, tierId: 1, templateId: 1, hostname: "web-1" }, client);
    await previewFailures("Instance", { locationId: 1, tierId: 1, templateId: 1, hostname: "web-2", vswitchId: "" }, client);
    expect(paths.filter((p) => p.includes("vswitches"))).toEqual([]);
    await previewFailures("Instance", { locationId: 1, tierId: 1, templateId: 1, hostname: "web-3", vswitchId: "0a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d" }, client);
    await previewFailures("VswitchAttachment", { instanceId: "9f1c2b7e-3a4d-4c5e-8f90-1a2b3c4d5e6f", vswitchId: "0a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d" }, client);
    expect(paths.filter((p) => p.includes("vswitches"))).toEqual(["/v1/network/vswitches"]); // once, then shared
  });
});

describe("previewFailures of the attachments and of a new Instance's source", () => {
  const VM = "9f1c2b7e-3a4d-4c5e-8f90-1a2b3c4d5e6f"; // the sample instance, in Jakarta (location 1)
  const NET = "0a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d";
  const DISK = "0b6f0e1a-2c3d-4e5f-9a8b-7c6d5e4f3a2b";
  const vswitchIn = (location: string) => ({
    message: "ok", data: [{ uuid: NET.toUpperCase(), name: "backend", tag: 7, location, status: "active", gateway: null }],
  });
  /** A client whose account check passes, with the given answers (every other read: 404). */
  function api(answers: { vswitches?: unknown; disks?: unknown; instance?: unknown }) {
    const { pool, client } = mockClient({ maxRetries: 0 });
    pool.intercept({ path: SIZES, method: "GET" }).reply(200, { message: "ok", data: [] });
    if (answers.vswitches) pool.intercept({ path: "/v1/network/vswitches", method: "GET" }).reply(200, answers.vswitches as object);
    // (the disk list is read page by page: ?page=1&limit=100)
    if (answers.disks) pool.intercept({ path: (p: string) => p.split("?")[0] === "/v1/storage/blocks", method: "GET" }).reply(200, answers.disks as object);
    if (answers.instance) pool.intercept({ path: `/v1/instance/${VM}/detail`, method: "GET" }).reply(200, answers.instance as object).persist();
    pool.intercept({ path: /.*/, method: "GET" }).reply(404, { message: "not found" }).persist();
    return client;
  }
  it("VswitchAttachment: a network of another location than the instance, named with both (uuid and name in any case)", async () => {
    const client = api({ vswitches: vswitchIn("Surabaya"), instance: samples.getInstance[0]!.wire });
    expect(await previewFailures("VswitchAttachment", { instanceId: VM, vswitchId: NET }, client)).toEqual([{
      property: "vswitchId",
      reason: `vswitchId: the private network backend is in Surabaya, but instance ${VM} is in Jakarta; use a network of Jakarta (getVswitchOptions({ locationId: 1 }) lists them)`,
    }]);
    const same = api({ vswitches: vswitchIn("JAKARTA"), instance: samples.getInstance[0]!.wire });
    expect(await previewFailures("VswitchAttachment", { instanceId: VM, vswitchId: NET }, same)).toEqual([]);
    const missing = api({ vswitches: vswitchIn("Jakarta") });
    const noNetwork = { property: "vswitchId", reason: "there is no private network 1a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d in this account (list them with getVswitches)" };
    // (the instance reads 404 here: a new attachment is refused for it too, one already in the state is not)
    expect(await previewFailures("VswitchAttachment", { instanceId: VM, vswitchId: "1a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d" }, missing)).toEqual([
      { property: "instanceId", reason: `there is no instance ${VM} in this account (getInstances lists them)` }, noNetwork,
    ]);
    const existing = api({ vswitches: vswitchIn("Jakarta") });
    expect(await previewFailures("VswitchAttachment", { instanceId: VM, vswitchId: "1a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d" }, existing, { instanceId: VM, vswitchId: NET })).toEqual([noNetwork]);
  });
  it("BlockStorageAttachment: a disk of another location, or none of that id; an unknown instance is not compared", async () => {
    const disks = { message: "ok", data: [{ id: DISK, name: "data-1", size: 50, location: { id: 3, name: "Surabaya" }, instance: null }] };
    const client = api({ disks, instance: samples.getInstance[0]!.wire });
    expect(await previewFailures("BlockStorageAttachment", { instanceId: VM, blockStorageId: DISK.toUpperCase() }, client)).toEqual([{
      property: "blockStorageId",
      reason: `blockStorageId: the block storage data-1 is in Surabaya, but instance ${VM} is in Jakarta; a disk attaches only to an instance of its location (getBlockStorages({ locationId: 1 }) lists those)`,
    }]);
    const none = api({ disks, instance: samples.getInstance[0]!.wire });
    expect(await previewFailures("BlockStorageAttachment", { instanceId: VM, blockStorageId: "1b6f0e1a-2c3d-4e5f-9a8b-7c6d5e4f3a2b" }, none)).toEqual([{
      property: "blockStorageId", reason: "blockStorageId: there is no block storage 1b6f0e1a-2c3d-4e5f-9a8b-7c6d5e4f3a2b in this account (list them with getBlockStorages)",
    }]);
    // an instance that reads 404 is not compared; a new attachment is refused for it, one in the state is not
    const unknownVm = api({ disks });
    expect(await previewFailures("BlockStorageAttachment", { instanceId: VM, blockStorageId: DISK }, unknownVm)).toEqual([
      { property: "instanceId", reason: `there is no instance ${VM} in this account (getInstances lists them)` },
    ]);
    const inState = api({ disks });
    expect(await previewFailures("BlockStorageAttachment", { instanceId: VM, blockStorageId: DISK }, inState, { instanceId: VM, blockStorageId: DISK })).toEqual([]);
  });
  it("a new Instance: the VM to adopt or clone must exist; a failed read only logs", async () => {
    const client = api({});
    expect(await previewFailures("Instance", { adoptId: VM }, client)).toEqual([
      { property: "adoptId", reason: `there is no instance ${VM} in this account to adopt (getInstances lists them)` },
    ]);
    expect(await previewFailures("Instance", { cloneFrom: VM }, api({}))).toEqual([
      { property: "cloneFrom", reason: `there is no instance ${VM} in this account to clone (getInstances lists them)` },
    ]);
    expect(await previewFailures("Instance", { cloneFrom: VM }, api({}), { cloneFrom: VM })).toEqual([]);
    const { pool, client: failing } = mockClient({ maxRetries: 0 });
    pool.intercept({ path: SIZES, method: "GET" }).reply(200, { message: "ok", data: [] });
    pool.intercept({ path: `/v1/instance/${VM}/detail`, method: "GET" }).reply(500, { message: "oops" });
    pool.intercept({ path: /.*/, method: "GET" }).reply(404, { message: "not found" }).persist();
    expect(await previewFailures("Instance", { adoptId: VM }, failing)).toEqual([]);
    expect(progress.lines).toContainEqual(expect.stringMatching(new RegExp(`^could not read instance ${VM} at preview \\(.+\\); the API will check adoptId at up$`)));
  });
});
