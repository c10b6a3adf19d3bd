/**
 * Injected faults and auth: the 429 budget with Retry-After and X-RateLimit-* headers, the 5xx rate,
 * connection resets before and after the request took effect, and their reset/clear behaviour.
 */
import { startSimulator } from "../index";
import { ManualClock } from "../clock";
import { OP_SECONDS, startTestSim, TestSim } from "./harness";

let t: TestSim;
beforeAll(async () => {
  t = await startTestSim();
});
afterAll(() => t.close());
beforeEach(() => t.admin("POST", "/reset"));

describe("auth", () => {
  it("answers 401 Unauthenticated. without a key or with a wrong one; admin routes need none", async () => {
    for (const apiKey of [null, "wrong"]) {
      const res = await t.call("GET", "/instance", { apiKey });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: "Unauthenticated." });
    }
    expect((await t.admin("GET", "/health")).status).toBe(200);
  });

  it("uses the key it was given", async () => {
    const sim = await startSimulator({ apiKey: "my-key" });
    try {
      expect(sim.apiKey).toBe("my-key");
      const res = await fetch(`${sim.url}/locations`, { headers: { "x-apikey": "my-key" } });
      expect(res.status).toBe(200);
    } finally {
      await sim.close();
    }
  });
});

describe("rate limit", () => {
  it("allows N requests per clock second, then answers 429 with Retry-After and X-RateLimit-* until the next second", async () => {
    await t.admin("POST", "/faults", { rateLimitPerSecond: 3 });
    t.clock!.set(Math.ceil(t.clock!.now() / 1000) * 1000 + 250); // a quarter into a second
    const remaining: (string | null)[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await t.call("GET", "/locations");
      expect(res.status).toBe(200);
      remaining.push(res.headers.get("x-ratelimit-remaining"));
    }
    expect(remaining).toEqual(["2", "1", "0"]);
    const limited = await t.call("GET", "/locations");
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ message: "Too Many Attempts." });
    expect(limited.headers.get("retry-after")).toBe("1");
    expect(limited.headers.get("x-ratelimit-limit")).toBe("3");
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(Number(limited.headers.get("x-ratelimit-reset"))).toBe(Math.floor(t.clock!.now() / 1000) + 1);
    t.clock!.advance(750);
    expect((await t.call("GET", "/locations")).status).toBe(200);
  });

  it("rateLimitPerMinute (Laravel's throttle:N,1): the budget lasts the clock minute; Retry-After counts to its end", async () => {
    await t.admin("POST", "/faults", { rateLimitPerMinute: 2 });
    t.clock!.set(Math.ceil(t.clock!.now() / 60000) * 60000 + 15000); // 15 s into a minute
    expect((await t.call("GET", "/locations")).status).toBe(200);
    t.clock!.advance(5000); // a new second, the same minute
    const second = await t.call("GET", "/locations");
    expect(second.status).toBe(200);
    expect(second.headers.get("x-ratelimit-limit")).toBe("2");
    expect(second.headers.get("x-ratelimit-remaining")).toBe("0");
    t.clock!.advance(1000);
    const limited = await t.call("GET", "/locations");
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("39");
    expect(Number(limited.headers.get("x-ratelimit-reset"))).toBe(Math.floor(t.clock!.now() / 60000) * 60 + 60);
    t.clock!.advance(39000);
    expect((await t.call("GET", "/locations")).status).toBe(200);
    expect((await t.admin("GET", "/faults")).body).toMatchObject({ rateLimitPerMinute: 2, rateLimitPerSecond: null });
  });

  it("a refused create has no effect", async () => {
    await t.admin("POST", "/faults", { rateLimitPerSecond: 1 });
    t.clock!.set(Math.ceil(t.clock!.now() / 1000) * 1000);
    await t.call("GET", "/locations");
    const res = await t.call("POST", "/instance/create", { form: { location_id: 1 } });
    expect(res.status).toBe(429);
    expect((await t.state()).instances).toEqual([]);
  });
});

describe("server errors", () => {
  it("errorRate 1 answers every request with errorStatus and does nothing", async () => {
    await t.admin("POST", "/faults", { errorRate: 1, errorStatus: 503 });
    const res = await t.call("POST", "/instance/create", {
      form: { location_id: 1, tier_id: 1, template_id: 1, hostname: "a", cpu: 1, memory: 1, storage: 20, username: "u", password: "p4ssword", use_public_ip: 0 },
    });
    expect(res.status).toBe(503);
    expect(typeof res.body.message).toBe("string");
    expect((await t.state()).instances).toEqual([]);
  });

  it("errorRate 0.5 fails some requests and not others, the same ones for the same seed", async () => {
    const run = async (): Promise<number[]> => {
      await t.admin("POST", "/reset");
      await t.admin("POST", "/faults", { errorRate: 0.5 });
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++) statuses.push((await t.call("GET", "/tiers")).status);
      return statuses;
    };
    const first = await run();
    expect(first.filter((s) => s === 500).length).toBeGreaterThan(5);
    expect(first.filter((s) => s === 200).length).toBeGreaterThan(5);
    expect(await run()).toEqual(first);
  });

  it("DELETE /__sim/faults clears them", async () => {
    await t.admin("POST", "/faults", { errorRate: 1 });
    await t.admin("DELETE", "/faults");
    expect((await t.call("GET", "/tiers")).status).toBe(200);
  });
});

describe("connection resets", () => {
  const createForm = { location_id: 1, tier_id: 1, template_id: 1, hostname: "web-1", cpu: 1, memory: 1, storage: 20, username: "u", password: "p4ssword", use_public_ip: 1 };

  it("before processing: the client gets a network error and nothing was created", async () => {
    await t.admin("POST", "/faults", { resetNext: { operation: "createInstance", count: 1, afterProcessing: false } });
    await expect(t.call("GET", "/instance")).resolves.toMatchObject({ status: 200 }); // other operations unaffected
    await expect(t.call("POST", "/instance/create", { form: createForm })).rejects.toThrow();
    expect((await t.state()).instances).toEqual([]);
    const log = (await t.admin("GET", "/requests")).body.requests;
    expect(log[log.length - 1]).toMatchObject({ operation: "createInstance", reset: true, status: null });
    // Only once.
    expect((await t.call("POST", "/instance/create", { form: createForm })).status).toBe(200);
  });

  it("after processing: the client gets a network error but the instance exists (the ambiguous create)", async () => {
    await t.admin("POST", "/faults", { resetNext: { operation: "POST /instance/create", afterProcessing: true } });
    await expect(t.call("POST", "/instance/create", { form: createForm })).rejects.toThrow();
    const state = await t.state();
    expect(state.instances).toHaveLength(1);
    expect(state.instances[0].hostname).toBe("web-1");
    t.advance(OP_SECONDS);
    const list = await t.call("GET", "/instance", { query: { search: "web-1" } });
    expect(list.body.data.data).toHaveLength(1);
  });
});

describe("canned error answers (respondNext)", () => {
  const createForm = { location_id: 1, tier_id: 1, template_id: 1, hostname: "web-1", cpu: 1, memory: 1, storage: 20, username: "u", password: "p4ssword", use_public_ip: 1 };

  it("answers a create refused by billing (402) or by the key's scope (403) once, with nothing created", async () => {
    await t.admin("POST", "/faults", { respondNext: { operation: "createInstance", status: 402, message: "Insufficient balance." } });
    await t.admin("POST", "/faults", { respondNext: { operation: "POST /instance/create", status: 403 } });
    expect((await t.call("GET", "/instance")).status).toBe(200); // other operations unaffected
    const refused = await t.call("POST", "/instance/create", { form: createForm });
    expect(refused.status).toBe(402);
    expect(refused.body).toEqual({ message: "Insufficient balance." });
    const forbidden = await t.call("POST", "/instance/create", { form: createForm });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual({ message: "This action is unauthorized." });
    expect((await t.state()).instances).toEqual([]);
    expect((await t.call("POST", "/instance/create", { form: createForm })).status).toBe(200);
    expect((await t.admin("GET", "/faults")).body.respondNext).toEqual([]);
  });

  it("can word a busy instance as another host does (422 with field errors), after letting `skip` requests through", async () => {
    const uuid = await t.runningInstance();
    await t.admin("POST", "/faults", {
      respondNext: { operation: "updateHostname", skip: 1, status: 422, message: "VM is still in progress.", errors: { vm: ["VM is still in progress."] } },
    });
    expect((await t.call("PATCH", `/instance/${uuid}/update-hostname`, { form: { hostname: "web-2" } })).status).toBe(200);
    const busy = await t.call("PATCH", `/instance/${uuid}/update-hostname`, { form: { hostname: "web-3" } });
    expect(busy.status).toBe(422);
    expect(busy.body).toEqual({ message: "VM is still in progress.", errors: { vm: ["VM is still in progress."] } });
    expect((await t.state()).instances[0].hostname).toBe("web-2");
  });

  it("can write a refusal as a success (status 200, data null), with nothing created", async () => {
    await t.admin("POST", "/faults", { respondNext: { operation: "createInstance", status: 200, message: "Saldo Anda tidak mencukupi.", data: null } });
    const answer = await t.call("POST", "/instance/create", { form: createForm });
    expect([answer.status, answer.body]).toEqual([200, { message: "Saldo Anda tidak mencukupi.", data: null }]);
    expect((await t.state()).instances).toEqual([]);
  });

  it("afterProcessing: the create takes effect and is answered 200 with data null; a refusal by the handler stands", async () => {
    await t.admin("POST", "/faults", { respondNext: { operation: "createInstance", status: 200, message: "Instance is being created.", data: null, afterProcessing: true } });
    const invalid = await t.call("POST", "/instance/create", { form: { ...createForm, hostname: "Bad_Name" } });
    expect(invalid.status).toBe(422); // the handler refused it: its own answer, the fault still waits
    const answer = await t.call("POST", "/instance/create", { form: createForm });
    expect([answer.status, answer.body]).toEqual([200, { message: "Instance is being created.", data: null }]);
    expect((await t.state()).instances.map((i: { hostname: string }) => i.hostname)).toEqual(["web-1"]);
    expect((await t.admin("GET", "/faults")).body.respondNext).toEqual([]);
  });

  it("effectAfterMs: answered at once, the create lands later (a queued create)", async () => {
    await t.admin("POST", "/faults", { respondNext: { operation: "createInstance", status: 200, data: null, effectAfterMs: 300 } });
    const answer = await t.call("POST", "/instance/create", { form: createForm });
    expect([answer.status, answer.body]).toEqual([200, { message: "HTTP 200", data: null }]);
    expect((await t.state()).instances).toEqual([]);
    const started = Date.now();
    while ((await t.state()).instances.length === 0 && Date.now() - started < 5_000) await new Promise((r) => setTimeout(r, 20));
    expect((await t.state()).instances.map((i: { hostname: string }) => i.hostname)).toEqual(["web-1"]);
  });

  it("is cleared by DELETE /__sim/faults", async () => {
    await t.admin("POST", "/faults", { respondNext: { status: 403, count: 5 } });
    await t.admin("DELETE", "/faults");
    expect((await t.call("GET", "/tiers")).status).toBe(200);
  });
});

describe("slow requests (delayNext)", () => {
  const createForm = { location_id: 1, tier_id: 1, template_id: 1, hostname: "web-1", cpu: 1, memory: 1, storage: 20, username: "u", password: "p4ssword", use_public_ip: 1 };

  it("a create the client gave up on lands later, while the listings that look for it are not slowed", async () => {
    await t.admin("POST", "/faults", { delayNext: { operation: "createInstance", ms: 600 } });
    const { encodeForm } = await import("./harness");
    const sent = fetch(`${t.sim.url}/instance/create`, {
      method: "POST",
      headers: { "x-apikey": t.sim.apiKey, "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: encodeForm(createForm),
      signal: AbortSignal.timeout(100), // the client's request timeout
    });
    await expect(sent).rejects.toThrow();
    // The client looks right after its timeout: nothing yet, and the look itself is answered at once.
    const lookStarted = Date.now();
    const look = await t.call("GET", "/instance", { query: { search: "web-1" } });
    expect(Date.now() - lookStarted).toBeLessThan(400);
    expect(look.body.data.data).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 700));
    const later = await t.call("GET", "/instance", { query: { search: "web-1" } });
    expect(later.body.data.data.map((i: { hostname: string }) => i.hostname)).toEqual(["web-1"]);
    expect((await t.admin("GET", "/faults")).body.delayNext).toEqual([]);
  });
});

describe("wire variants (wire)", () => {
  it("write the fields the spec leaves open as other hosts may: private_network, console key, list os, snapshot status", async () => {
    const uuid = await t.runningInstance();
    const vs = (await t.state()).vswitches.find((v: { name: string }) => v.name === "jkt-private-1");
    expect((await t.call("PATCH", `/instance/${uuid}/vswitch/update`, { form: { vswitch: vs.uuid } })).status).toBe(200);
    const snap = (await t.call("POST", `/instance/${uuid}/snapshot/create`, { form: { name: "s1", description: "d" } })).body.data.snap_uuid;
    t.advance(OP_SECONDS);
    const look = async () => ({
      network: (await t.call("GET", `/instance/${uuid}/detail`)).body.data.private_network,
      console: Object.keys((await t.call("POST", `/instance/${uuid}/console-websocket`)).body.data).sort(),
      rowHasOs: "os" in (await t.call("GET", "/instance")).body.data.data[0],
      snapshot: (await t.call("GET", `/instance/${uuid}/snapshot/snapshots`)).body.data.find((x: { id: string }) => x.id === snap).status,
    });
    expect(await look()).toEqual({ network: "jkt-private-1", console: ["password", "url"], rowHasOs: true, snapshot: "Ready" });
    await t.admin("POST", "/faults", { wire: { privateNetwork: "ip", consoleUrlKey: "webview" } });
    await t.admin("POST", "/faults", { wire: { listOs: false, snapshotReady: "Completed" } }); // merged
    expect(await look()).toEqual({ network: "10.10.1.10", console: ["password", "webview"], rowHasOs: false, snapshot: "Completed" });
    await t.admin("POST", "/faults", { wire: { privateNetwork: "uuid" } });
    expect((await look()).network).toBe(vs.uuid);
    await t.admin("POST", "/faults", { wire: null });
    expect(await look()).toEqual({ network: "jkt-private-1", console: ["password", "url"], rowHasOs: true, snapshot: "Ready" });
  });
});

describe("page size cap (wire.maxPageSize)", () => {
  it("refuses a larger limit on every paged list with Laravel's 422 on limit, or clamps it; null goes back to 100", async () => {
    const uuid = await t.runningInstance();
    for (let i = 0; i < 4; i++) await t.admin("POST", "/instances", { hostname: `cap-${i}` });
    await t.admin("POST", "/faults", { wire: { maxPageSize: 2 } });
    for (const path of ["/instance", "/billing/credit/history", `/instance/${uuid}/firewall/rules`, `/instance/${uuid}/backup/history`]) {
      const refused = await t.call("GET", `${path}?limit=3`);
      expect([path, refused.status, refused.body]).toEqual([path, 422, { message: "The limit field must not be greater than 2.", errors: { limit: ["The limit field must not be greater than 2."] } }]);
      expect((await t.call("GET", `${path}?limit=2`)).status).toBe(200);
    }
    await t.admin("POST", "/faults", { wire: { overPageSize: "clamp" } }); // merged: the cap stays
    const clamped = (await t.call("GET", "/instance?limit=100&page=2")).body.data;
    expect(clamped.data).toHaveLength(2);
    expect(clamped.page).toEqual({ total: 5, count: 2, per_page: 2, current_page: 2, total_pages: 3 });
    await t.admin("POST", "/faults", { wire: null });
    expect((await t.call("GET", "/instance?limit=100")).body.data.page.per_page).toBe(100);
    expect((await t.call("GET", "/instance?limit=101")).status).toBe(422);
  });
});

describe("random resets and faults after processing", () => {
  const createForm = { location_id: 1, tier_id: 1, template_id: 1, hostname: "web-1", cpu: 1, memory: 1, storage: 20, username: "u", password: "p4ssword", use_public_ip: 1 };
  // An invalid create: answered 422 when it gets through, a network error when its connection is reset.
  const probe = async (): Promise<"reset" | number> => {
    try {
      return (await t.call("POST", "/instance/create", { form: { location_id: 1 } })).status;
    } catch {
      return "reset";
    }
  };

  it("resetRate resets a share of requests (not the next N), the same ones for the same seed, until cleared", async () => {
    const run = async (): Promise<("reset" | number)[]> => {
      await t.admin("POST", "/reset");
      await t.admin("POST", "/faults", { resetRate: 0.5 });
      const outcomes: ("reset" | number)[] = [];
      for (let i = 0; i < 30; i++) outcomes.push(await probe());
      return outcomes;
    };
    const first = await run();
    expect(first.filter((o) => o === "reset").length).toBeGreaterThan(5);
    expect(first.filter((o) => o === 422).length).toBeGreaterThan(5);
    expect(await run()).toEqual(first);
    expect((await t.admin("GET", "/faults")).body).toMatchObject({ resetRate: 0.5, afterProcessingShare: 0 });
    await t.admin("DELETE", "/faults");
    for (let i = 0; i < 10; i++) expect(await probe()).toBe(422);
  });

  it("a random reset before processing has no effect; after processing (afterProcessingShare 1) the instance exists", async () => {
    await t.admin("POST", "/faults", { resetRate: 1 });
    await expect(t.call("POST", "/instance/create", { form: createForm })).rejects.toThrow();
    expect((await t.state()).instances).toEqual([]);
    await t.admin("POST", "/faults", { afterProcessingShare: 1 });
    await expect(t.call("POST", "/instance/create", { form: createForm })).rejects.toThrow();
    expect((await t.state()).instances.map((i: { hostname: string }) => i.hostname)).toEqual(["web-1"]);
    const log = (await t.admin("GET", "/requests")).body.requests;
    expect(log.map((r: { reset: boolean; status: number | null }) => [r.reset, r.status])).toEqual([[true, null], [true, null]]);
  });

  it("an injected 5xx after processing: the client gets the error status and the instance exists", async () => {
    await t.admin("POST", "/faults", { errorRate: 1, errorStatus: 504, afterProcessingShare: 1 });
    const res = await t.call("POST", "/instance/create", { form: createForm });
    expect(res.status).toBe(504);
    expect((await t.state()).instances).toHaveLength(1);
  });
});

describe("faults at start-up", () => {
  it("are restored by /__sim/reset, while POSTed ones are dropped", async () => {
    const clock = new ManualClock();
    const sim = await startSimulator({ clock, faults: { rateLimitPerSecond: 1 } });
    const other = new TestSim(sim, clock);
    try {
      await other.admin("POST", "/faults", { errorRate: 1 });
      await other.admin("POST", "/reset");
      const faults = (await other.admin("GET", "/faults")).body;
      expect(faults).toMatchObject({ rateLimitPerSecond: 1, errorRate: 0 });
    } finally {
      await other.close();
    }
  });
});
