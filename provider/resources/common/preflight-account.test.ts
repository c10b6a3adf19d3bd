/**
 * The account check at preview (checkAccount) and the catalogue's optional lists, against a mocked API: each
 * configuration mistake names the config key to fix; what says nothing about the configuration only logs.
 */
import { mockClient } from "../../api/__tests__/helpers";
import { setProgressSink } from "../../context";
import { catalogueFor, checkAccount } from "./preflight";

const SIZES = "/v1/instance/size-template";
let lines: string[];
let previousSink: (line: string) => void;
beforeEach(() => {
  lines = [];
  previousSink = setProgressSink((line) => void lines.push(line));
});
afterEach(() => setProgressSink(previousSink));

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
  it("a 5xx says nothing about the configuration: it only logs and lets preview go on", async () => {
    const { pool, client } = mockClient({ maxRetries: 0 });
    pool.intercept({ path: SIZES, method: "GET" }).reply(503, { message: "maintenance" });
    await expect(checkAccount(client)).resolves.toBeUndefined();
    expect(lines).toEqual([expect.stringMatching(/^could not check the API key at preview \(.*503.*\); continuing$/)]);
  });
});

describe("catalogueFor", () => {
  it("goes on without a list the host fails to serve, saying which and that up will check", async () => {
    const { pool, client } = mockClient({ maxRetries: 0 });
    pool.intercept({ path: SIZES, method: "GET" }).reply(200, { message: "ok", data: [] });
    pool.intercept({ path: /.*/, method: "GET" }).reply(404, { message: "no such route" }).persist();
    const cat = await catalogueFor(client);
    expect(cat).toEqual({ locations: undefined, tiers: undefined, templates: undefined, vswitches: undefined });
    for (const what of ["locations", "tiers", "OS templates", "private networks"])
      expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^could not read the ${what} at preview \\(.+\\); the API will check these values at up$`)));
  });
  it("keeps private networks with lower-case uuids and their location's name", async () => {
    const { pool, client } = mockClient({ maxRetries: 0 });
    pool.intercept({ path: SIZES, method: "GET" }).reply(200, { message: "ok", data: [] });
    pool.intercept({ path: "/v1/network/vswitches", method: "GET" }).reply(200, {
      message: "ok",
      data: [{ uuid: "0A1B2C3D-4E5F-4A6B-8C7D-9E8F7A6B5C4D", name: "backend", tag: 7, location: "Jakarta", status: "active", gateway: null }],
    });
    pool.intercept({ path: /.*/, method: "GET" }).reply(404, { message: "no such route" }).persist();
    expect((await catalogueFor(client)).vswitches).toEqual([{ uuid: "0a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d", name: "backend", location: "Jakarta" }]);
  });
});
