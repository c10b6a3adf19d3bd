import { errors as undiciErrors } from "undici";
import { AmbiguousRequestError, BusyError, NetworkError, RateLimitedError, ServerError, ForbiddenError, PaymentRequiredError, ResponseFormatError } from "../errors";
import { backoffDelayMs, decideRetry, defaultRetrySettings, serverRequestedDelayMs } from "../retry";
import { mockClient, refBody } from "./helpers";

const detailPath = "/v1/instance/i-1/detail";
const templates = { message: "ok", data: [] };
const createBody = {
  locationId: 1, tierId: 2, templateId: 3, hostname: "web-1", cpu: 2, memory: 2, storage: 40, username: "admin", password: "pw", usePublicIp: false,
};
const reset = () => Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
const refused = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:443"), { code: "ECONNREFUSED" });

describe("retries of reads and idempotent writes", () => {
  it("retries a 429 after exactly the Retry-After seconds, then succeeds", async () => {
    const { pool, client, sleeps, calls, logs } = mockClient();
    pool.intercept({ path: "/v1/instance/size-template", method: "GET" }).reply(429, { message: "Too Many Attempts." }, { headers: { "retry-after": "7" } });
    pool.intercept({ path: "/v1/instance/size-template", method: "GET" }).reply(200, templates);
    await expect(client.catalog.sizeTemplates()).resolves.toEqual([]);
    expect(calls()).toHaveLength(2);
    expect(sleeps).toEqual([7000]);
    expect(logs.map((l) => l.replace(/ \d+ms/, ""))).toEqual([
      "GET /instance/size-template 429 retry=0 op=listSizeTemplates",
      "GET /instance/size-template 200 retry=1 op=listSizeTemplates",
    ]);
  });

  it("honours Retry-After given as an HTTP date, and X-RateLimit-Reset", () => {
    const now = Date.UTC(2024, 0, 25, 7, 0, 0);
    expect(serverRequestedDelayMs({ "retry-after": new Date(now + 12_000).toUTCString() }, now)).toBe(12_000);
    expect(serverRequestedDelayMs({ "x-ratelimit-reset": String(now / 1000 + 30) }, now)).toBe(30_000);
    expect(serverRequestedDelayMs({ "x-ratelimit-reset": "5" }, now)).toBe(5_000);
    expect(serverRequestedDelayMs({}, now)).toBeUndefined();
  });

  it("reads the headers as sent by real hosts (spaces, fractions) and ignores what is not a delay", () => {
    const now = Date.UTC(2024, 0, 25, 7, 0, 0);
    expect(serverRequestedDelayMs({ "retry-after": " 5 " }, now)).toBe(5_000);
    expect(serverRequestedDelayMs({ "retry-after": "1.25" }, now)).toBe(1_250);
    expect(serverRequestedDelayMs({ "retry-after": "1.5" }, now)).toBe(1_500);
    // not a number of seconds nor a date: X-RateLimit-Reset decides, or nothing does
    expect(serverRequestedDelayMs({ "retry-after": "5s" }, now)).toBeUndefined();
    expect(serverRequestedDelayMs({ "retry-after": "x5" }, now)).toBeUndefined();
    expect(serverRequestedDelayMs({ "retry-after": "soon", "x-ratelimit-reset": "3" }, now)).toBe(3_000);
    expect(serverRequestedDelayMs({ "x-ratelimit-reset": " 3 " }, now)).toBe(3_000);
    expect(serverRequestedDelayMs({ "x-ratelimit-reset": "3s" }, now)).toBeUndefined();
    expect(serverRequestedDelayMs({ "x-ratelimit-reset": "t3" }, now)).toBeUndefined();
    // a reset time already past asks for no wait
    expect(serverRequestedDelayMs({ "x-ratelimit-reset": String(now / 1000 - 30) }, now)).toBe(0);
  });

  it("scales a server-requested delay by delayScale like every other wait", () => {
    expect(backoffDelayMs(0, { ...defaultRetrySettings, delayScale: 0.5 }, 1_000)).toBe(500);
    expect(backoffDelayMs(3, { ...defaultRetrySettings, delayScale: 2 }, 1_000)).toBe(2_000);
  });

  it("scales server-requested waits with retryDelayScale (tests never wait for real)", async () => {
    const { pool, client, sleeps } = mockClient({ retryDelayScale: 0.001 });
    pool.intercept({ path: "/v1/instance/size-template", method: "GET" }).reply(429, {}, { headers: { "retry-after": "1" } });
    pool.intercept({ path: "/v1/instance/size-template", method: "GET" }).reply(200, templates);
    await client.catalog.sizeTemplates();
    expect(sleeps).toEqual([1]);
  });

  it("retries 503 with exponential backoff and full jitter", async () => {
    const { pool, client, sleeps, calls } = mockClient();
    pool.intercept({ path: detailPath, method: "GET" }).reply(503, { message: "Service Unavailable" }).times(2);
    pool.intercept({ path: detailPath, method: "GET" }).reply(404, { message: "gone" });
    await expect(client.instances.find("i-1")).resolves.toBeUndefined();
    expect(calls()).toHaveLength(3);
    // random() = 0.5 in the harness: half of 500 ms, then half of 1000 ms.
    expect(sleeps).toEqual([250, 500]);
  });

  it("retries idempotent writes after a connection reset", async () => {
    const { pool, client, calls } = mockClient();
    pool.intercept({ path: "/v1/instance/i-1/stop", method: "PATCH" }).replyWithError(reset());
    pool.intercept({ path: "/v1/instance/i-1/stop", method: "PATCH" }).reply(200, refBody());
    await expect(client.instances.stop("i-1")).resolves.toEqual({ uuid: "i-1", hostname: "web-1" });
    expect(calls()).toHaveLength(2);
  });

  it("gives up after maxRetries and throws the last error with the retry count", async () => {
    const { pool, client, calls } = mockClient({ maxRetries: 2 });
    pool.intercept({ path: detailPath, method: "GET" }).reply(502, { message: "Bad Gateway" }).times(3);
    const error = await client.instances.get("i-1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).retries).toBe(2);
    expect((error as Error).message).toContain("(after 2 retries)");
    expect(calls()).toHaveLength(3);
  });

  it("gives up instead of sleeping past maxRetryTimeMs", async () => {
    const { pool, client, calls, sleeps } = mockClient({ maxRetryTimeMs: 10_000 });
    pool.intercept({ path: detailPath, method: "GET" }).reply(429, { message: "Too Many Attempts." }, { headers: { "retry-after": "60" } });
    const error = await client.instances.get("i-1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(60_000);
    expect(calls()).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("does not retry a 500 on a write, 4xx, 402, 403 or a busy 409 (the resource layer waits for busy instances)", async () => {
    const { pool, client, calls } = mockClient();
    pool.intercept({ path: "/v1/instance/i-1/resize", method: "PATCH" }).reply(409, { message: "Instance is busy" });
    await expect(client.instances.resize("i-1", { cpu: 2, memory: 2, storage: 40 })).rejects.toBeInstanceOf(BusyError);
    pool.intercept({ path: "/v1/instance/i-1/stop", method: "PATCH" }).reply(500, { message: "Server Error" });
    pool.intercept({ path: "/v1/instance/size-template", method: "GET" }).reply(403, { message: "Forbidden" });
    pool.intercept({ path: "/v1/instance/i-1/start", method: "PATCH" }).reply(402, { message: "Insufficient credit" });
    await expect(client.instances.stop("i-1")).rejects.toBeInstanceOf(ServerError);
    await expect(client.catalog.sizeTemplates()).rejects.toBeInstanceOf(ForbiddenError);
    await expect(client.instances.start("i-1")).rejects.toBeInstanceOf(PaymentRequiredError);
    expect(calls()).toHaveLength(4);
  });

  it("retries a read answered 500 (a GET changes nothing), then answers", async () => {
    const { pool, client, calls } = mockClient();
    pool.intercept({ path: "/v1/systems", method: "GET" }).reply(500, { message: "Server Error" });
    pool.intercept({ path: "/v1/systems", method: "GET" }).reply(200, { message: "ok", data: [{ id: 1, name: "Debian" }] });
    await expect(client.catalog.systems()).resolves.toEqual([expect.objectContaining({ id: 1, name: "Debian" })]);
    expect(calls()).toHaveLength(2);
  });
});

describe("operations that must never be re-sent blindly (once)", () => {
  it("createInstance after a 500: AmbiguousRequestError, exactly one request", async () => {
    const { pool, client, calls } = mockClient();
    pool.intercept({ path: "/v1/instance/create", method: "POST" }).reply(500, { message: "Server Error" });
    const error = await client.instances.create(createBody).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AmbiguousRequestError);
    expect((error as AmbiguousRequestError).cause).toBeInstanceOf(ServerError);
    expect((error as Error).message).toMatch(/^createInstance \(POST \/instance\/create\) failed: HTTP 500 the request may or may not have taken effect/);
    expect(calls()).toHaveLength(1);
  });

  it("createInstance after a connection reset: AmbiguousRequestError, exactly one request", async () => {
    const { pool, client, calls } = mockClient();
    pool.intercept({ path: "/v1/instance/create", method: "POST" }).replyWithError(reset());
    const error = await client.instances.create(createBody).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AmbiguousRequestError);
    expect((error as AmbiguousRequestError).cause).toBeInstanceOf(NetworkError);
    expect(((error as AmbiguousRequestError).cause as NetworkError).code).toBe("ECONNRESET");
    expect(calls()).toHaveLength(1);
  });

  it("createSnapshot after a headers timeout: AmbiguousRequestError", async () => {
    const { pool, client, calls } = mockClient();
    pool.intercept({ path: "/v1/instance/i-1/snapshot/create", method: "POST" }).replyWithError(new undiciErrors.HeadersTimeoutError());
    await expect(client.snapshots.create("i-1", { name: "s", description: "d" })).rejects.toBeInstanceOf(AmbiguousRequestError);
    expect(calls()).toHaveLength(1);
  });

  it("cloneInstance and createTopup after a 503: AmbiguousRequestError, one request each", async () => {
    const { pool, client, calls } = mockClient();
    pool.intercept({ path: "/v1/instance/i-1/clone", method: "POST" }).reply(503, {});
    pool.intercept({ path: "/v1/billing/v2/topup", method: "POST" }).reply(503, {});
    await expect(client.instances.clone("i-1", { hostname: "copy", locationId: 1, tierId: 2 })).rejects.toBeInstanceOf(AmbiguousRequestError);
    await expect(client.billing.topup({ paymentMethod: "BC", amount: 100000 })).rejects.toBeInstanceOf(AmbiguousRequestError);
    expect(calls()).toHaveLength(2);
  });

  it("createInstance is retried after a 429 (refused before any work)", async () => {
    const { pool, client, calls } = mockClient();
    pool.intercept({ path: "/v1/instance/create", method: "POST" }).reply(429, { message: "Too Many Attempts." }, { headers: { "retry-after": "2" } });
    pool.intercept({ path: "/v1/instance/create", method: "POST" }).reply(200, { message: "Vm berhasil dibuat", data: { uuid: "new-1" } });
    await expect(client.instances.create(createBody)).resolves.toMatchObject({ uuid: "new-1" });
    expect(calls()).toHaveLength(2);
  });

  it("createInstance is retried when the connection never opened (ECONNREFUSED)", async () => {
    const { pool, client, calls } = mockClient();
    pool.intercept({ path: "/v1/instance/create", method: "POST" }).replyWithError(refused());
    pool.intercept({ path: "/v1/instance/create", method: "POST" }).reply(200, { message: "Vm berhasil dibuat", data: { uuid: "new-1" } });
    await expect(client.instances.create(createBody)).resolves.toMatchObject({ uuid: "new-1" });
    expect(calls()).toHaveLength(2);
  });

  it("a create whose 2xx answer cannot be read is ambiguous too (the VM may exist)", async () => {
    const { pool, client } = mockClient();
    pool.intercept({ path: "/v1/instance/create", method: "POST" }).reply(200, "<html>ok</html>");
    const error = await client.instances.create(createBody).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AmbiguousRequestError);
    expect((error as AmbiguousRequestError).cause).toBeInstanceOf(ResponseFormatError);
  });
});

describe("retry policy table", () => {
  it("matches the documented classes", () => {
    expect(decideRetry("read", { kind: "status", status: 503 })).toBe("retry");
    expect(decideRetry("idempotent", { kind: "status", status: 504 })).toBe("retry");
    expect(decideRetry("read", { kind: "status", status: 500 })).toBe("retry");
    expect(decideRetry("idempotent", { kind: "status", status: 500 })).toBe("fail");
    expect(decideRetry("read", { kind: "status", status: 409 })).toBe("fail");
    expect(decideRetry("once", { kind: "status", status: 429 })).toBe("retry");
    expect(decideRetry("once", { kind: "status", status: 502 })).toBe("ambiguous");
    expect(decideRetry("once", { kind: "status", status: 422 })).toBe("fail");
    expect(decideRetry("once", { kind: "network", sent: false })).toBe("retry");
    expect(decideRetry("once", { kind: "timeout", sent: true })).toBe("ambiguous");
    expect(decideRetry("read", { kind: "timeout", sent: true })).toBe("retry");
  });

  it("an idempotent write retried after an attempt that hung and failed returns only as long after (a held first attempt lands first)", async () => {
    // update audit: a detach held past the bound and retried at once landed after the move's attach and detached the disk
    const { pool, client, sleeps, advance } = mockClient();
    const path = "/v1/storage/blocks/d-1/detach";
    pool.intercept({ path, method: "PATCH" }).reply(() => {
      advance(1_500); // the gateway held it 1.5 s, then gave up
      return { statusCode: 504, data: {} };
    });
    pool.intercept({ path, method: "PATCH" }).reply(200, { message: "ok", data: {} });
    await client.storage.detach("d-1");
    expect(sleeps).toEqual([250, 1_500]);
    // one that failed at once (a 503 answered right away): no such wait
    const quick = mockClient();
    quick.pool.intercept({ path, method: "PATCH" }).reply(503, {});
    quick.pool.intercept({ path, method: "PATCH" }).reply(200, { message: "ok", data: {} });
    await quick.client.storage.detach("d-1");
    expect(quick.sleeps).toEqual([250]);
  });

  it("caps the backoff ceiling at maxDelayMs", () => {
    const settings = { ...defaultRetrySettings, random: () => 0.999 };
    expect(backoffDelayMs(20, settings)).toBeLessThan(settings.maxDelayMs);
    expect(backoffDelayMs(20, settings)).toBeGreaterThan(settings.maxDelayMs * 0.99);
  });
});

describe("cancellation", () => {
  it("an aborted signal stops a call while it waits to retry, without another request", async () => {
    const controller = new AbortController();
    const { pool, client, calls } = mockClient({
      clock: {
        now: () => 0,
        sleep: (_ms, signal) =>
          new Promise((_resolve, reject) => {
            signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
            controller.abort(new Error("cancelled by the caller"));
          }),
      },
    });
    pool.intercept({ path: detailPath, method: "GET" }).reply(503, {});
    await expect(client.instances.get("i-1", { signal: controller.signal })).rejects.toThrow("cancelled by the caller");
    expect(calls()).toHaveLength(1);
  });
});
