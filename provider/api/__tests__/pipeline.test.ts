/** Each step of the request chain alone (pipeline.ts), with a fake next step instead of the network. */
import { AmbiguousRequestError, BusyError, NetworkError, NotFoundError, RateLimitedError, ResponseFormatError, ServerError } from "../errors";
import { RateLimiter } from "../limiter";
import type { RequestLogEntry } from "../log";
import { AttemptError, debugStep, errorStep, parseErrorBody, parseStep, rateLimitStep, retryStep, type Attempt, type PreparedRequest, type Step } from "../pipeline";
import { defaultRetrySettings, type Clock } from "../retry";
import { TransportError } from "../transport";

const request = (overrides: Partial<PreparedRequest> = {}): PreparedRequest => ({
  operation: "getInstance", method: "GET", pathTemplate: "/instance/{instance_uuid}/detail", path: "/instance/i-1/detail",
  url: "https://api.test/v1/instance/i-1/detail", headers: {}, retryClass: "read", ...overrides,
});
const ok = (text = "", status = 200, headers: Record<string, string> = {}) => ({ status, headers, text });
const reset = () =>
  new TransportError({ kind: "network", code: "ECONNRESET", sent: true, error: Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }) });

function fakeClock() {
  let now = 1_000_000;
  const sleeps: number[] = [];
  const clock: Clock = { now: () => now, sleep: async (ms) => { sleeps.push(ms); now += ms; } };
  return { clock, sleeps };
}

/** A next step answering from a script, one entry per attempt. */
function scripted(...answers: (ReturnType<typeof ok> | Error)[]): Step & { attempts: Attempt[] } {
  const attempts: Attempt[] = [];
  const step = (async (attempt: Attempt) => {
    attempts.push(attempt);
    const next = answers.shift();
    if (!next) throw new Error("script exhausted");
    if (next instanceof Error) throw next;
    return next;
  }) as Step & { attempts: Attempt[] };
  step.attempts = attempts;
  return step;
}

describe("debug step", () => {
  it("logs one line per attempt with its status and retry number, and a transport failure by its code", async () => {
    const entries: RequestLogEntry[] = [];
    const lines: string[] = [];
    const step = debugStep(scripted(ok("", 503), reset()), (entry, line) => { entries.push(entry); lines.push(line); }, () => 0);
    await step({ request: request(), retry: 0 });
    await expect(step({ request: request(), retry: 1 })).rejects.toBeInstanceOf(TransportError);
    expect(lines).toEqual([
      "GET /instance/i-1/detail 503 0ms retry=0 op=getInstance",
      "GET /instance/i-1/detail ERR(ECONNRESET) 0ms retry=1 op=getInstance",
    ]);
  });

  it("logs how long the exchange took, and an error only for a failed one", async () => {
    const entries: RequestLogEntry[] = [];
    const lines: string[] = [];
    const times = [1_000, 1_250];
    const step = debugStep(scripted(ok("{}", 200)), (entry, line) => { entries.push(entry); lines.push(line); }, () => times.shift()!);
    await step({ request: request(), retry: 0 });
    expect(lines).toEqual(["GET /instance/i-1/detail 200 250ms retry=0 op=getInstance"]);
    expect(Object.keys(entries[0]!)).not.toContain("error");
  });

  it("does not log a call the caller aborted (no attempt happened)", async () => {
    const lines: string[] = [];
    const step = debugStep(scripted(new Error("aborted")), (_e, line) => lines.push(line));
    await expect(step({ request: request(), retry: 0 })).rejects.toThrow("aborted");
    expect(lines).toEqual([]);
  });
});

describe("rate limit step", () => {
  it("shows every answer to the limiter, so a 429 pauses the whole account", async () => {
    const { clock } = fakeClock();
    const limiter = new RateLimiter(undefined, clock);
    const step = rateLimitStep(scripted(ok("", 429, { "retry-after": "3" })), limiter);
    await step({ request: request(), retry: 0 });
    expect(limiter.pausedUntilMs).toBe(clock.now() + 3000);
    expect(limiter.stats()).toMatchObject({ granted: 1, throttled: 1 });
  });

  it("calls the request's onSend when the limiter lets an attempt go, before the exchange (shared reads batch until then)", async () => {
    const events: string[] = [];
    let letGo: () => void = () => undefined;
    const limiter = {
      acquire: () => new Promise<number>((resolve) => (letGo = () => resolve(1))),
      observe: () => undefined,
    } as unknown as RateLimiter;
    const next: Step = async () => {
      events.push("exchange");
      return ok();
    };
    const sent = rateLimitStep(next, limiter)({ request: request({ onSend: () => events.push("onSend") }), retry: 0 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual([]); // queued in the limiter: not sent yet
    letGo();
    await sent;
    expect(events).toEqual(["onSend", "exchange"]);
  });

  it("frees the limiter's place when the send fails without an answer", async () => {
    const { clock } = fakeClock();
    const limiter = new RateLimiter(undefined, clock);
    const step = rateLimitStep(scripted(reset(), ok()), limiter);
    await expect(step({ request: request(), retry: 0 })).rejects.toBeInstanceOf(TransportError);
    await expect(step({ request: request(), retry: 1 })).resolves.toEqual(ok());
  });
});

describe("error step", () => {
  it("maps statuses to the error classes users see, with the API's message and the retry count", async () => {
    const { clock } = fakeClock();
    const step = errorStep(scripted(ok('{"message":"No query results"}', 404), ok("", 409)), "secret-key", clock);
    const notFound = await step({ request: request(), retry: 2 }).catch((e: AttemptError) => e);
    expect(notFound).toBeInstanceOf(AttemptError);
    expect((notFound as AttemptError).error).toBeInstanceOf(NotFoundError);
    expect((notFound as AttemptError).error.message).toBe(
      'getInstance (GET /instance/{instance_uuid}/detail) failed: HTTP 404 not found. The API said: "No query results". (after 2 retries)',
    );
    expect((notFound as AttemptError).failure).toEqual({ kind: "status", status: 404 });
    const busy = await step({ request: request(), retry: 0 }).catch((e: AttemptError) => e);
    expect((busy as AttemptError).error).toBeInstanceOf(BusyError);
  });

  it("maps a transport failure to NetworkError and keeps whether the request may have been sent", async () => {
    const { clock } = fakeClock();
    const failed = await errorStep(scripted(reset()), "k", clock)({ request: request(), retry: 0 }).catch((e: AttemptError) => e);
    expect((failed as AttemptError).error).toBeInstanceOf(NetworkError);
    expect((failed as AttemptError).failure).toEqual({ kind: "network", sent: true });
  });

  it("reads the API's message from Laravel, plain-text and proxy answers, redacted and bounded", () => {
    expect(parseErrorBody('{"message":"The given data was invalid.","errors":{"hostname":["taken"],"cpu":"too many"}}', "k")).toEqual({
      apiMessage: "The given data was invalid.", fieldErrors: { hostname: ["taken"], cpu: ["too many"] }, bodyIsJson: true,
    });
    // `errors` that is not a field map is not read as one
    expect(parseErrorBody('{"message":"bad","errors":"no map"}', "k")).toEqual({ apiMessage: "bad", fieldErrors: undefined, bodyIsJson: true });
    expect(parseErrorBody('{"message":"bad","errors":5}', "k")).toEqual({ apiMessage: "bad", fieldErrors: undefined, bodyIsJson: true });
    // a JSON string is text, not a body
    expect(parseErrorBody('"down for maintenance"', "k")).toEqual({ apiMessage: '"down for maintenance"', bodyIsJson: false });
    expect(parseErrorBody("  Service Unavailable \n", "k")).toEqual({ apiMessage: "Service Unavailable", bodyIsJson: false });
    expect(parseErrorBody("x".repeat(500), "k").apiMessage).toHaveLength(200);
    expect(parseErrorBody("<html><body>502 Bad Gateway</body></html>", "k")).toEqual({ bodyIsJson: false });
    expect(parseErrorBody("denied for key secret-key", "secret-key").apiMessage).not.toContain("secret-key");
  });

  it("treats a 3xx answer as a failure, not as data", async () => {
    const { clock } = fakeClock();
    const failed = await errorStep(scripted(ok("", 300)), "k", clock)({ request: request(), retry: 0 }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(AttemptError);
    expect((failed as AttemptError).failure).toEqual({ kind: "status", status: 300 });
  });

  it("passes 2xx answers through", async () => {
    const { clock } = fakeClock();
    await expect(errorStep(scripted(ok("{}", 201)), "k", clock)({ request: request(), retry: 0 })).resolves.toEqual(ok("{}", 201));
  });
});

describe("retry step", () => {
  const attemptError = (status: number) => new AttemptError(new ServerError({ operation: "getInstance", method: "GET", path: "/x", status }), { kind: "status", status });
  const rateLimited = () =>
    new AttemptError(new ServerError({ operation: "getInstance", method: "GET", path: "/x", status: 429 }), { kind: "status", status: 429 });

  it("retries a retryable status up to maxRetries, then throws the last error", async () => {
    const { clock, sleeps } = fakeClock();
    const next = scripted(attemptError(503), attemptError(503), attemptError(503));
    const limiter = new RateLimiter(undefined, clock);
    const send = retryStep(next as Step, { settings: { ...defaultRetrySettings, maxRetries: 2, random: () => 0.5 }, clock, limiter });
    await expect(send(request())).rejects.toBeInstanceOf(ServerError);
    expect(next.attempts.map((a) => a.retry)).toEqual([0, 1, 2]);
    expect(sleeps).toEqual([250, 500]);
  });

  it("does not count 429s against maxRetries", async () => {
    const { clock } = fakeClock();
    const next = scripted(rateLimited(), rateLimited(), rateLimited(), ok("{}"));
    const send = retryStep(next as Step, { settings: { ...defaultRetrySettings, maxRetries: 1 }, clock, limiter: new RateLimiter(undefined, clock) });
    await expect(send(request())).resolves.toEqual({ response: ok("{}"), retries: 3 });
  });

  it("stops retrying when the next wait would end past maxRetryTimeMs (a wait ending exactly at it is taken)", async () => {
    const { clock, sleeps } = fakeClock();
    const next = scripted(attemptError(503), attemptError(503), ok("{}"));
    const limiter = new RateLimiter(undefined, clock);
    const send = retryStep(next as Step, { settings: { ...defaultRetrySettings, maxRetries: 10, maxRetryTimeMs: 250, random: () => 0.5 }, clock, limiter });
    await expect(send(request())).rejects.toBeInstanceOf(ServerError);
    expect(sleeps).toEqual([250]);
    expect(next.attempts).toHaveLength(2);
  });

  describe("a 429", () => {
    const limited = (retryAfterMs?: number) =>
      new AttemptError(new RateLimitedError({ operation: "getInstance", method: "GET", path: "/x", status: 429, retryAfterMs }), { kind: "status", status: 429 });
    const settings = { ...defaultRetrySettings, random: () => 0.5 };

    it("while the account is paused: sends again at once (the limiter holds it until the pause ends), up to a pause ending exactly at the budget", async () => {
      const { clock, sleeps } = fakeClock();
      const limiter = new RateLimiter(undefined, clock);
      limiter.pauseUntil(clock.now() + 60_000);
      const next = scripted(limited(), ok("{}"));
      await expect(retryStep(next as Step, { settings, clock, limiter })(request())).resolves.toEqual({ response: ok("{}"), retries: 1 });
      expect(sleeps).toEqual([]);
    });

    it("fails at once when the account's pause ends past the budget, instead of holding the call", async () => {
      const { clock, sleeps } = fakeClock();
      const limiter = new RateLimiter(undefined, clock);
      limiter.pauseUntil(clock.now() + 60_001);
      const next = scripted(limited(), ok("{}"));
      await expect(retryStep(next as Step, { settings, clock, limiter })(request())).rejects.toBeInstanceOf(RateLimitedError);
      expect(next.attempts).toHaveLength(1);
      expect(sleeps).toEqual([]);
    });

    it("without a pause (it just ended): waits as the service asked, or the first backoff step, then sends again", async () => {
      const { clock, sleeps } = fakeClock();
      const limiter = new RateLimiter(undefined, clock);
      limiter.pauseUntil(clock.now());
      const next = scripted(limited(), limited(60_000 - 250), ok("{}"));
      await expect(retryStep(next as Step, { settings, clock, limiter })(request())).resolves.toMatchObject({ retries: 2 });
      expect(sleeps).toEqual([250, 59_750]);
    });

    it("fails at once when the wait the service asks for ends past the budget", async () => {
      const { clock, sleeps } = fakeClock();
      const next = scripted(limited(60_001), ok("{}"));
      await expect(retryStep(next as Step, { settings, clock, limiter: new RateLimiter(undefined, clock) })(request())).rejects.toBeInstanceOf(RateLimitedError);
      expect(sleeps).toEqual([]);
    });
  });

  it("never re-sends a create that may have reached the service: AmbiguousRequestError", async () => {
    const { clock } = fakeClock();
    const next = scripted(attemptError(502));
    const send = retryStep(next as Step, { settings: defaultRetrySettings, clock, limiter: new RateLimiter(undefined, clock) });
    await expect(send(request({ operation: "createInstance", retryClass: "once" }))).rejects.toBeInstanceOf(AmbiguousRequestError);
    expect(next.attempts).toHaveLength(1);
  });
});

describe("parse step", () => {
  it("returns the normalized data of a matching body", () => {
    const body = JSON.stringify({ message: "ok", data: { uuid: "i-1", hostname: "web-1" } });
    expect(parseStep(request({ operation: "stopInstance" }) as PreparedRequest & { operation: "stopInstance" }, { response: ok(body), retries: 0 }, "k"))
      .toEqual({ uuid: "i-1", hostname: "web-1" });
  });

  it("names the failing field; for a create the unreadable answer is ambiguous (the VM may exist)", () => {
    const body = JSON.stringify({ message: "ok", data: { hostname: "web-1" } });
    // (createInstance: an answer whose shape is read; a stop's is only an acknowledgement since 1a5980e)
    const read = request({ operation: "createInstance" }) as PreparedRequest & { operation: "createInstance" };
    expect(() => parseStep(read, { response: ok(body), retries: 0 }, "k")).toThrow(ResponseFormatError);
    expect(() => parseStep(read, { response: ok(body), retries: 0 }, "k")).toThrow(/data\.uuid/);
    const create = request({ operation: "stopInstance", retryClass: "once" }) as PreparedRequest & { operation: "stopInstance" };
    expect(() => parseStep(create, { response: ok("not json"), retries: 0 }, "k")).toThrow(AmbiguousRequestError);
  });

  it("reads an empty answer (blank too) as no data, and says when a body is not JSON", () => {
    const del = request({ operation: "deleteInstance" }) as PreparedRequest & { operation: "deleteInstance" };
    expect(parseStep(del, { response: ok(" \n"), retries: 0 }, "k")).toEqual([]);
    const read = request({ operation: "stopInstance" }) as PreparedRequest & { operation: "stopInstance" };
    expect(() => parseStep(read, { response: ok("<html>502</html>"), retries: 0 }, "k")).toThrow(/\(body\): not JSON/);
  });
});
