import { inspect } from "node:util";
import { MockAgent } from "undici";
import { createClient } from "../client";
import { resolveClientOptions } from "../config";
import { limiterFor, limiterKeys } from "../limiter";
import { systemClock } from "../retry";
import { API_KEY, BASE_URL, ORIGIN, mockClient } from "./helpers";

/** Everything a user could see of an error: message, stack, own fields, and the whole cause chain. */
function everythingVisible(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current && depth < 6; depth += 1) {
    parts.push(inspect(current, { depth: 6, showHidden: true }));
    if (current instanceof Error) parts.push(String(current.stack), JSON.stringify(current, Object.getOwnPropertyNames(current)));
    current = (current as { cause?: unknown }).cause;
  }
  return parts.join("\n");
}

describe("the API key never leaks", () => {
  it("is absent from every kind of error, even when the service or the network echo it", async () => {
    const { pool, client } = mockClient({ maxRetries: 1 });
    const detail = "/v1/instance/i-1/detail";
    pool.intercept({ path: detail, method: "GET" }).reply(401, { message: `Invalid key ${API_KEY}` });
    pool.intercept({ path: detail, method: "GET" }).reply(422, { message: "bad", errors: { key: [`${API_KEY} is not valid`] } });
    pool.intercept({ path: detail, method: "GET" }).reply(500, `error for ${API_KEY}`).times(2); // a read is retried once
    pool.intercept({ path: detail, method: "GET" }).replyWithError(Object.assign(new Error(`socket closed (x-apikey: ${API_KEY})`), { code: "ECONNRESET" })).times(2);
    pool.intercept({ path: detail, method: "GET" }).reply(200, { message: "ok", data: { uuid: "i-1", memory: API_KEY } }); // ResponseFormatError quoting the value
    pool.intercept({ path: "/v1/instance/create", method: "POST" }).replyWithError(Object.assign(new Error(`reset ${API_KEY}`), { code: "ECONNRESET" }));

    const errors: unknown[] = [];
    for (let i = 0; i < 5; i += 1) errors.push(await client.instances.get("i-1").catch((e: unknown) => e));
    errors.push(
      await client.instances
        .create({ locationId: 1, tierId: 1, templateId: 1, hostname: "h", cpu: 1, memory: 1, storage: 10, username: "u", password: "p", usePublicIp: false })
        .catch((e: unknown) => e),
    );
    expect(errors.filter((e) => e instanceof Error)).toHaveLength(6);
    expect(errors.map((e) => (e as Error).name)).toEqual([
      "UnauthorizedError", "ValidationError", "ServerError", "NetworkError", "ResponseFormatError", "AmbiguousRequestError",
    ]);
    for (const error of errors) {
      const visible = everythingVisible(error);
      expect(visible).not.toContain(API_KEY);
    }
    // The echoes were redacted, not dropped: the user still sees what the service said.
    expect((errors[0] as Error).message).toContain('"Invalid key [REDACTED]"');
  });

  it("is absent from the VMHOST_LOG=debug lines on stderr", async () => {
    const previous = process.env.VMHOST_LOG;
    process.env.VMHOST_LOG = "debug";
    const lines: string[] = [];
    const spy = jest.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      const agent = new MockAgent();
      agent.disableNetConnect();
      const pool = agent.get(ORIGIN);
      pool.intercept({ path: "/v1/instance?search=web", method: "GET" }).reply(503, {});
      pool.intercept({ path: "/v1/instance?search=web", method: "GET" }).reply(200, {
        message: "ok",
        data: { data: [], active_operation: 0, page: { total: 0, count: 0, per_page: 10, current_page: 1, total_pages: 0 } },
      });
      const client = createClient({ baseUrl: BASE_URL, apiKey: API_KEY, dispatcher: agent, retryDelayScale: 0 });
      await client.instances.list({ search: "web" });
    } finally {
      spy.mockRestore();
      if (previous === undefined) delete process.env.VMHOST_LOG;
      else process.env.VMHOST_LOG = previous;
    }
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^vmhost: GET \/instance\?search=web 503 \d+ms retry=0 op=listInstances\n$/);
    expect(lines[1]).toMatch(/^vmhost: GET \/instance\?search=web 200 \d+ms retry=1 op=listInstances\n$/);
    expect(lines.join("")).not.toContain(API_KEY);
  });

  it("is redacted from a custom logger's line even if it were in the path", async () => {
    const { pool, client, logs } = mockClient();
    pool.intercept({ path: `/v1/instance/${API_KEY}/detail`, method: "GET" }).reply(404, {});
    await client.instances.find(API_KEY);
    expect(logs).toHaveLength(1);
    expect(logs[0]).not.toContain(API_KEY);
  });

  // A key of one to three characters (a test host's): the same rule in the API's echoes, the network's errors and the
  // debug log, replaced where it stands as a word (facts audit: network errors replaced it everywhere, the rest nowhere).
  it.each(["k9", "a.b", "*"])("a short key (%j) is absent as a word from errors, network errors and log lines alike", async (key) => {
    const logs: string[] = [];
    const { pool, client } = mockClient({ apiKey: key, maxRetries: 0, logger: (_e, line) => logs.push(line) });
    const detail = "/v1/instance/i-1/detail";
    pool.intercept({ path: detail, method: "GET" }).reply(401, { message: `Invalid key ${key}.` });
    pool.intercept({ path: detail, method: "GET" }).reply(422, { message: `bad key "${key}"`, errors: { key: [`${key} is not valid`] } });
    pool.intercept({ path: detail, method: "GET" }).replyWithError(Object.assign(new Error(`socket closed (x-apikey: ${key})`), { code: "ECONNRESET" }));
    pool.intercept({ path: `/v1/instance?search=${encodeURIComponent(key)}`, method: "GET" }).reply(503, { message: `key=${key}` });
    const errors: unknown[] = [];
    for (let i = 0; i < 3; i += 1) errors.push(await client.instances.get("i-1").catch((e: unknown) => e));
    errors.push(await client.instances.list({ search: key }).catch((e: unknown) => e));
    const words = new RegExp(`(^|[^A-Za-z0-9])${key.replace(/[.*]/g, "\\$&")}([^A-Za-z0-9]|$)`);
    for (const error of errors) expect((error as Error).message).not.toMatch(words);
    expect(errors.map((e) => (e as Error).message).join("\n")).toContain("[REDACTED]");
    expect(logs.length).toBeGreaterThan(0);
    for (const line of logs) expect(line).not.toMatch(words);
    // ordinary text around it stays readable
    expect((errors[0] as Error).message).toContain('The API said: "Invalid key [REDACTED]."');
  });

  it("is not stored by the limiter registry, nor exposed on the client object", () => {
    limiterFor(BASE_URL, API_KEY, 5, systemClock);
    expect(limiterKeys().join("\n")).not.toContain(API_KEY);
    const client = createClient({ baseUrl: BASE_URL, apiKey: API_KEY, dispatcher: new MockAgent(), logger: false });
    expect(inspect(client, { depth: 4, showHidden: true })).not.toContain(API_KEY);
  });

  it("is absent from configuration errors", () => {
    let message = "";
    try {
      resolveClientOptions({ config: { "vmhost:apiKey": API_KEY, "vmhost:baseUrl": `not a url ${"x"}` }, env: {} });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain("vmhost:baseUrl");
    expect(message).not.toContain(API_KEY);
    expect(() => createClient({ baseUrl: "ftp://nope", apiKey: API_KEY })).toThrow(/baseUrl/);
    try {
      createClient({ baseUrl: "ftp://nope", apiKey: API_KEY });
    } catch (error) {
      expect(everythingVisible(error)).not.toContain(API_KEY);
    }
  });
});
