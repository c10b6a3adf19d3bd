import { errors as undiciErrors } from "undici";
import {
  AmbiguousRequestError,
  ApiError,
  BusyError,
  ForbiddenError,
  NetworkError,
  NotFoundError,
  PaymentRequiredError,
  RateLimitedError,
  ResponseFormatError,
  RouteNotFoundError,
  ServerError,
  TimeoutError,
  UnauthorizedError,
  UnexpectedStatusError,
  ValidationError,
  MethodNotAllowedError,
  readsAsBusy,
} from "../errors";
import { sentFieldNames } from "../pipeline";
import { mockClient } from "./helpers";

const DETAIL = "/v1/instance/i-1/detail";
/** The error a call failed with; a call that succeeds fails the test. */
async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  return promise.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (error: unknown) => error as ApiError,
  );
}

const PREFIX = "getInstance (GET /instance/{instance_uuid}/detail) failed:";

async function failure(status: number, body: unknown, headers: Record<string, string> = {}) {
  const { pool, client } = mockClient({ maxRetries: 0 });
  pool.intercept({ path: DETAIL, method: "GET" }).reply(status, body as object, { headers });
  return rejection(client.instances.get("i-1"));
}

describe("error classes and messages", () => {
  it("401: UnauthorizedError says which config key or variable to set", async () => {
    const error = await failure(401, { message: "Unauthenticated." });
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.message).toBe(
      `${PREFIX} HTTP 401 the API key was rejected. The API said: "Unauthenticated.". Set a valid key with \`pulumi config set --secret vmhost:apiKey <key>\` or the VMHOST_API_KEY environment variable; keys expire, so an old key may need renewing.`,
    );
    expect(error).toMatchObject({ operation: "getInstance", method: "GET", path: "/instance/{instance_uuid}/detail", status: 401, apiMessage: "Unauthenticated." });
  });

  it("403: ForbiddenError names the scopes and says retrying will not help", async () => {
    const error = await failure(403, { message: "This action is unauthorized." });
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(error.message).toContain("HTTP 403 the API key is not allowed to do this");
    expect(error.message).toContain("read_instance, write_instance, read_network, write_network or billing");
    expect(error.message).toContain("Retrying will not help");
  });

  it("402: PaymentRequiredError says it is a billing or quota refusal", async () => {
    const error = await failure(402, { message: "Insufficient balance" });
    expect(error).toBeInstanceOf(PaymentRequiredError);
    expect(error.message).toContain('HTTP 402 refused by billing or quota. The API said: "Insufficient balance".');
  });

  it("each class's own message, built from the details alone (the words users read in a failed up)", () => {
    const d = { operation: "resizeInstance", method: "PATCH" as const, path: "/instance/{instance_uuid}/resize" };
    const head = "resizeInstance (PATCH /instance/{instance_uuid}/resize) failed:";
    expect(new PaymentRequiredError({ ...d, status: 402 }).message).toBe(
      `${head} HTTP 402 refused by billing or quota. Top up the account's credit or raise its quota; retrying will not help.`,
    );
    expect(new BusyError({ ...d, status: 409, retries: 1 }).message).toBe(
      `${head} HTTP 409 another operation is running on this object. (after 1 retry) Wait until it finishes, then retry.`,
    );
    expect(new RateLimitedError({ ...d, status: 429, retries: 3 }).message).toBe(
      `${head} HTTP 429 rate limited by the service. (after 3 retries) Lower vmhost:maxRequestsPerSecond or retry later.`,
    );
    expect(new NetworkError({ ...d }).message).toBe(`${head} network error. Check vmhost:baseUrl / VMHOST_BASE_URL and the network.`);
    expect(new TimeoutError({ ...d, phase: "connect", url: "https://api.test/v1/instance/i-1/resize", limitMs: 1_500 }).message).toBe(
      `${head} no connection in time. PATCH https://api.test/v1/instance/i-1/resize got no connection within 1500ms. Check vmhost:baseUrl / VMHOST_BASE_URL and the network.`,
    );
    expect(new TimeoutError({ ...d, phase: "connect" }).message).toBe(`${head} no connection in time. Check vmhost:baseUrl / VMHOST_BASE_URL and the network.`);
    expect(new TimeoutError({ ...d, phase: "body", url: "https://api.test/v1/x" }).message).toBe(
      `${head} no complete answer in time. PATCH https://api.test/v1/x got no complete answer. The bound of one request is vmhost:requestTimeout (VMHOST_REQUEST_TIMEOUT), e.g. "2m" for a slow host.`,
    );
    expect(new ResponseFormatError({ ...d, status: 200, issues: ["data.cpu: expected number"] }).message).toBe(
      `${head} HTTP 200 unexpected response format: data.cpu: expected number. Please report this with the API's host; a route or schema may need updating.`,
    );
  });

  it.each([404, 410])("%i: NotFoundError", async (status) => {
    const error = await failure(status, { message: "Instance not found" });
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.message).toBe(`${PREFIX} HTTP ${status} not found. The API said: "Instance not found".`);
  });

  it.each<[string, unknown]>([
    ["Laravel's route message", { message: "The route v2/instance/i-1/detail could not be found." }],
    ["an HTML page (a proxy)", "<html><body>404 Not Found</body></html>"],
    ["an empty body", ""],
  ])("404 for the route, not an object (%s): RouteNotFoundError, never read as gone", async (_what, body) => {
    const error = await failure(404, body);
    expect(error).toBeInstanceOf(RouteNotFoundError);
    expect(error).not.toBeInstanceOf(NotFoundError);
    expect(error.message).toContain("the API has no such route. ");
    expect(error.message).toContain("Check vmhost:baseUrl");
  });

  it.each([409, 423])("%i: BusyError (another operation is running)", async (status) => {
    const error = await failure(status, { message: "Instance has an active operation" });
    expect(error).toBeInstanceOf(BusyError);
    expect(error.message).toContain(`HTTP ${status} another operation is running on this object`);
  });

  // A busy answer as another host may give it (real-api-facts.md: Laravel shapes, Indonesian hosts): a 400 or 422
  // worded as "an operation is running", with no field error about a field the request sent (facts audit).
  it.each<[number, Record<string, unknown>]>([
    [400, { message: "Another operation is in progress on this instance." }],
    [422, { message: "VM is still in progress.", errors: { vm: ["VM is still in progress."] } }],
    [422, { message: "Instance is on cloning progress" }],
    [400, { message: "The instance is still being created." }],
    [422, { message: "An operation is still running on this VM, try again later." }],
    [400, { message: "Instance sedang diproses, silakan coba lagi nanti." }],
    [422, { message: "VM masih dalam proses.", errors: { status: ["VM masih dalam proses."] } }],
    [400, { message: "Masih ada proses lain yang berjalan." }],
    [422, { message: "Instance is still creating." }],
    [400, { message: "The VM is currently resizing, please wait." }],
    [422, { message: "The previous job is not finished yet." }],
    [400, { message: "Proses sedang berjalan, silakan tunggu." }],
    [422, { message: "Operasi lain masih berjalan." }],
  ])("%i worded as busy: BusyError, saying it is the host's wording (%j)", async (status, body) => {
    const { pool, client } = mockClient({ maxRetries: 0 });
    pool.intercept({ path: "/v1/instance/i-1/update-hostname", method: "PATCH" }).reply(status, body);
    const error = await rejection(client.instances.updateHostname("i-1", { hostname: "web-2" }));
    expect(error).toBeInstanceOf(BusyError);
    expect(error.status).toBe(status);
    expect(error.message).toContain(`HTTP ${status} another operation is running on this object (the host's wording of its refusal). The API said: "${body.message as string}"`);
  });

  it.each<[string, number, Record<string, unknown>, typeof ApiError]>([
    ["a field error about a field the request sent, whatever its words", 422, { message: "The hostname is in progress.", errors: { hostname: ["The hostname is in progress."] } }, ValidationError],
    ["'running' about the power state", 422, { message: "The instance must be running to be restarted.", errors: { status: ["The instance must be running to be restarted."] } }, ValidationError],
    ["a busy field error beside one that is not", 422, { message: "VM is still in progress. (and 1 more error)", errors: { vm: ["VM is still in progress."], plan: ["The plan field is required."] } }, ValidationError],
    ["'running' about the power state, after 'action'", 422, { message: "This action requires the instance to be running." }, ValidationError],
    ["'not running' after 'action'", 400, { message: "The action cannot be performed: the instance is not running." }, UnexpectedStatusError],
    ["'operation' then the VM's power state", 422, { message: "This operation requires a running instance." }, ValidationError],
    ["Indonesian: the VM is running (its power state)", 422, { message: "VM sedang berjalan, matikan terlebih dahulu." }, ValidationError],
    ["Indonesian: the VM is still running", 400, { message: "VM masih berjalan." }, UnexpectedStatusError],
    ["'try again' alone", 400, { message: "Something went wrong, please try again." }, UnexpectedStatusError],
    ["a plain 400", 400, { message: "Bad Request" }, UnexpectedStatusError],
    ["a 403 worded as busy (a refusal of the key, not of the moment)", 403, { message: "Another operation is in progress." }, ForbiddenError],
  ])("not busy: %s", async (_what, status, body, kind) => {
    const { pool, client } = mockClient({ maxRetries: 0 });
    pool.intercept({ path: "/v1/instance/i-1/update-hostname", method: "PATCH" }).reply(status, body);
    const error = await rejection(client.instances.updateHostname("i-1", { hostname: "web-2" }));
    expect(error).toBeInstanceOf(kind);
    expect(error).not.toBeInstanceOf(BusyError);
  });

  it.each<[string, Record<string, unknown>]>([
    ["a field error about a sent field", { message: "The hostname has already been taken.", errors: { hostname: ["The hostname has already been taken."] } }],
    ["words of a duplicate", { message: "Hostname already exists." }],
    ["Indonesian words of a duplicate", { message: "Hostname sudah digunakan." }],
  ])("a 409 that is a conflict with the request, not a busy instance (%s): ValidationError, reported at once", async (_what, body) => {
    const { pool, client } = mockClient({ maxRetries: 0 });
    pool.intercept({ path: "/v1/instance/i-1/update-hostname", method: "PATCH" }).reply(409, body);
    const error = await rejection(client.instances.updateHostname("i-1", { hostname: "web-2" }));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.status).toBe(409);
  });

  it("a 409 worded as busy that also says 'already' stays busy", async () => {
    const { pool, client } = mockClient({ maxRetries: 0 });
    pool.intercept({ path: "/v1/instance/i-1/update-hostname", method: "PATCH" }).reply(409, { message: "An operation is already in progress." });
    expect(await rejection(client.instances.updateHostname("i-1", { hostname: "web-2" }))).toBeInstanceOf(BusyError);
  });

  it("the sent fields are the body's and the query's names (arrays without their brackets), never _method", () => {
    expect(sentFieldNames({ url: "https://h/v1/instance?limit=100&page=1", body: "hostname=a&ssh_keys%5B%5D=k1&ssh_keys%5B%5D=k2&_method=DELETE" }).sort()).toEqual(
      ["hostname", "limit", "page", "ssh_keys"],
    );
    expect(readsAsBusy(422, "VM is still in progress.", { ssh_keys: ["VM is still in progress."] }, ["ssh_keys"])).toBe(false);
    expect(readsAsBusy(422, "VM is still in progress.", { "ssh_keys.0": ["VM is still in progress."] }, ["ssh_keys"])).toBe(false);
    expect(readsAsBusy(422, "VM is still in progress.", undefined, ["hostname"])).toBe(true);
    expect(readsAsBusy(409, "anything", undefined)).toBe(false); // 409 is busy by its status (errorForStatus)
  });

  it("422: ValidationError lists every field error", async () => {
    const error = await failure(422, {
      message: "The given data was invalid.",
      errors: { hostname: ["The hostname has already been taken."], memory: ["The memory must be at least 1.", "The memory must be an integer."] },
    });
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.fieldErrors).toEqual({
      hostname: ["The hostname has already been taken."],
      memory: ["The memory must be at least 1.", "The memory must be an integer."],
    });
    expect(error.message).toBe(
      `${PREFIX} HTTP 422 the request was rejected as invalid. The API said: "The given data was invalid.". Field errors: hostname: The hostname has already been taken. memory: The memory must be at least 1. The memory must be an integer.`,
    );
  });

  it("422: a field error names the input the field came from, keeps the API's field and text, ends with one full stop", async () => {
    const { pool, client } = mockClient({ maxRetries: 0 });
    pool.intercept({ path: "/v1/instance/create", method: "POST" }).reply(422, {
      message: "The given data was invalid.",
      errors: { public_network: ["The selected public network is invalid."], use_dedicated_cpu: ["must be a boolean"], trace_id: ["x1"] },
    });
    const error = await rejection(client.instances.create({ locationId: 1, tierId: 2, templateId: 3, hostname: "web-1", cpu: 1, memory: 1, storage: 10, username: "deploy", password: "Choose-A-Passw0rd", usePublicIp: true, publicNetwork: "x" }));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.fieldErrors).toHaveProperty("public_network"); // the API's own names stay on the error object
    expect(error.message).toContain(
      "Field errors: publicNetworkId (API field public_network): The selected public network is invalid. " +
        "dedicatedCpu (API field use_dedicated_cpu): must be a boolean. trace_id: x1.",
    );
    expect(error.message).not.toMatch(/\.\.|\.;/);
  });

  it("422 on an update: the same wire field maps to the input of that call (changePublicIp -> publicNetworkId)", async () => {
    const { pool, client } = mockClient({ maxRetries: 0 });
    pool.intercept({ path: "/v1/instance/i-1/ip/change", method: "PATCH" }).reply(422, {
      message: "The given data was invalid.", errors: { public_network: ["The selected public network is invalid."] },
    });
    const error = await rejection(client.network.changePublicIp("i-1", { publicNetwork: "x" }));
    expect(error.message).toMatch(/Field errors: publicNetworkId \(API field public_network\): The selected public network is invalid\.$/);
  });

  it("429 (the wait would pass the call's time budget): RateLimitedError with the requested delay", async () => {
    // A 429 is "wait", not a failure: it only surfaces when the pause would end after the budget (60 s here).
    const error = await failure(429, { message: "Too Many Attempts." }, { "retry-after": "90" });
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error.retryAfterMs).toBe(90_000);
    expect(error.message).toContain("HTTP 429 rate limited by the service");
  });

  it("5xx: ServerError; an HTML error page adds no noise to the message", async () => {
    const error = await failure(502, "<html><body>Bad Gateway</body></html>");
    expect(error).toBeInstanceOf(ServerError);
    expect(error.message).toBe(`${PREFIX} HTTP 502 the service had an internal error.`);
  });

  it("other statuses: UnexpectedStatusError with the plain-text body", async () => {
    const error = await failure(418, "I'm a teapot");
    expect(error).toBeInstanceOf(UnexpectedStatusError);
    expect(error.message).toContain(`HTTP 418 unexpected HTTP status. The API said: "I'm a teapot".`);
  });

  // real-api-facts.md: routes the spec hides are guesses (code, assumed), one override away from right (facts audit).
  it("405 on a route no host documents: MethodNotAllowedError naming the vmhost:routes override with the method the host allows", async () => {
    const { pool, client } = mockClient({ maxRetries: 0 });
    pool.intercept({ path: "/v1/network/public/ip-1/rdns", method: "PATCH" }).reply(405, {
      message: "The PATCH method is not supported for route api/v1/network/public/ip-1/rdns. Supported methods: POST.",
    });
    const error = await rejection(client.network.updateRdns("ip-1", { rdns: "h.example.com" }));
    expect(error).toBeInstanceOf(MethodNotAllowedError);
    expect(error.message).toBe(
      'updateRdns (PATCH /network/public/{ip_uuid}/rdns) failed: HTTP 405 the host does not serve this route with PATCH. The API said: ' +
        '"The PATCH method is not supported for route api/v1/network/public/ip-1/rdns. Supported methods: POST.". Nothing was done. ' +
        'The route of updateRdns is assumed (no host documents it): if your host serves it otherwise, set vmhost:routes to ' +
        '{"updateRdns": "POST /network/public/{ip_uuid}/rdns"}.',
    );
    // a route of the spec: no guess to override, the general advice
    const plain = await failure(405, "Method Not Allowed");
    expect(plain.message).toContain("Nothing was done. Set vmhost:routes to the method and path your host serves this operation at.");
  });

  it("404 for the route of an assumed operation: the vmhost:routes override is named with the operation; a spec route's is not", async () => {
    const { pool, client } = mockClient({ maxRetries: 0 });
    pool.intercept({ path: "/v1/network/public/ip-1/rdns", method: "PATCH" }).reply(404, { message: "The route v1/network/public/ip-1/rdns could not be found." });
    const error = await rejection(client.network.updateRdns("ip-1", { rdns: "h.example.com" }));
    expect(error).toBeInstanceOf(RouteNotFoundError);
    expect(error.message).toContain('if your host serves it otherwise, set vmhost:routes to {"updateRdns": "PATCH <path>"}.');
    expect((await failure(404, { message: "The route v1/instance/i-1/detail could not be found." })).message).not.toContain("if your host serves it otherwise");
  });

  it("403 on a create: billing or quota as well as the key's scopes (real-api-facts.md), never retried", async () => {
    const { pool, client, calls } = mockClient();
    pool.intercept({ path: "/v1/instance/create", method: "POST" }).reply(403, { message: "Kuota instance Anda sudah habis." });
    const error = await rejection(
      client.instances.create({ locationId: 1, tierId: 2, templateId: 3, hostname: "web-1", cpu: 1, memory: 1, storage: 10, username: "deploy", password: "Choose-A-Passw0rd", usePublicIp: false }),
    );
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(error.message).toContain("HTTP 403 refused: billing, quota or the key's scopes.");
    expect(error.message).toContain("the account's credit or quota does not allow another one");
    expect(error.message).toContain("Retrying will not help.");
    expect(calls()).toHaveLength(1);
  });

  it("network failure: NetworkError with the code and a hint", async () => {
    const { pool, client } = mockClient({ maxRetries: 0 });
    pool.intercept({ path: DETAIL, method: "GET" }).replyWithError(Object.assign(new Error("getaddrinfo ENOTFOUND api.vmhost.test"), { code: "ENOTFOUND" }));
    const error = (await client.instances.get("i-1").catch((e: unknown) => e)) as NetworkError;
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.code).toBe("ENOTFOUND");
    expect(error.status).toBeUndefined();
    expect(error.message).toBe(`${PREFIX} network error (ENOTFOUND). Check vmhost:baseUrl / VMHOST_BASE_URL and the network.`);
  });

  it("timeout: TimeoutError names the phase", async () => {
    const { pool, client } = mockClient({ maxRetries: 0 });
    pool.intercept({ path: DETAIL, method: "GET" }).replyWithError(new undiciErrors.HeadersTimeoutError());
    const error = (await client.instances.get("i-1").catch((e: unknown) => e)) as TimeoutError;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.phase).toBe("headers");
    expect(error.message).toBe(
      `${PREFIX} no answer in time. GET https://api.vmhost.test/v1/instance/i-1/detail got no answer within 60s. ` +
        'The bound of one request is vmhost:requestTimeout (VMHOST_REQUEST_TIMEOUT), e.g. "2m" for a slow host.',
    );
  });

  it("ambiguous: AmbiguousRequestError explains why it was not re-sent", async () => {
    const { pool, client } = mockClient();
    pool.intercept({ path: "/v1/instance/i-1/snapshot/create", method: "POST" }).reply(500, { message: "Server Error" });
    const error = await rejection(client.snapshots.create("i-1", { name: "n", description: "d" }));
    expect(error).toBeInstanceOf(AmbiguousRequestError);
    expect(error.message).toBe(
      'createSnapshot (POST /instance/{instance_uuid}/snapshot/create) failed: HTTP 500 the request may or may not have taken effect. The API said: "Server Error". It was not re-sent automatically because repeating it could do it twice; check whether it happened before retrying.',
    );
  });

  it("bad response: ResponseFormatError names the operation and the field path", async () => {
    const { pool, client } = mockClient();
    pool.intercept({ path: "/v1/instance/size-template", method: "GET" }).reply(200, {
      message: "ok",
      data: [{ id: 1, title: "Small", total_cpu: 1, total_ram: "a lot", total_disk: 20 }],
    });
    const error = (await client.catalog.sizeTemplates().catch((e: unknown) => e)) as ResponseFormatError;
    expect(error).toBeInstanceOf(ResponseFormatError);
    expect(error.issues).toEqual(['data.0.total_ram: not a size: "a lot"']);
    expect(error.message).toContain('listSizeTemplates (GET /instance/size-template) failed: HTTP 200 unexpected response format: data.0.total_ram: not a size: "a lot"');
  });

  it("a badly broken answer names at most ten fields, so the message stays readable", async () => {
    const { pool, client } = mockClient();
    pool.intercept({ path: "/v1/instance/size-template", method: "GET" }).reply(200, {
      message: "ok",
      data: Array.from({ length: 12 }, (_, i) => ({ id: i, title: "Small", total_cpu: 1, total_ram: "a lot", total_disk: 20 })),
    });
    const error = (await client.catalog.sizeTemplates().catch((e: unknown) => e)) as ResponseFormatError;
    expect(error).toBeInstanceOf(ResponseFormatError);
    expect(error.issues).toHaveLength(10);
    expect(error.issues[9]).toBe('data.9.total_ram: not a size: "a lot"');
    expect(error.message).not.toContain("data.10.");
  });

  it("find() returns undefined for 404/410 but still throws other errors", async () => {
    const { pool, client } = mockClient({ maxRetries: 0 });
    pool.intercept({ path: DETAIL, method: "GET" }).reply(410, { message: "Gone" });
    pool.intercept({ path: DETAIL, method: "GET" }).reply(401, { message: "Unauthenticated." });
    await expect(client.instances.find("i-1")).resolves.toBeUndefined();
    await expect(client.instances.find("i-1")).rejects.toBeInstanceOf(UnauthorizedError);
  });
});
