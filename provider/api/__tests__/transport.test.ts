/**
 * The real transport path (no injected dispatcher): undici pool against a local node:http server.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createClient } from "../client";
import { AmbiguousRequestError, NetworkError, TimeoutError } from "../errors";
import type { RequestLogEntry } from "../log";
import { classifyFailure, closeAllPools, poolFor } from "../transport";

let server: Server;
let baseUrl: string;
const seen: { method: string; url: string; remotePort: number }[] = [];
let handler: (req: IncomingMessage, res: ServerResponse) => void = () => undefined;

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ method: req.method!, url: req.url!, remotePort: req.socket.remotePort! });
    req.resume();
    req.on("end", () => handler(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  await closeAllPools();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  seen.length = 0;
});

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};

describe("transport over a real socket", () => {
  it("reuses keep-alive connections across calls and clients of the same base URL", async () => {
    handler = (_req, res) => json(res, 200, { message: "ok", data: [] });
    const a = createClient({ baseUrl, apiKey: "k-transport-1", logger: false });
    const b = createClient({ baseUrl, apiKey: "k-transport-1b", logger: false });
    for (let i = 0; i < 3; i += 1) {
      await a.network.listVswitches(); // (the catalogue would be read once: cached per client)
      await b.network.listVswitches();
    }
    expect(seen).toHaveLength(6);
    // Six sequential requests over fewer connections: the shared pool keeps them open.
    expect(new Set(seen.map((s) => s.remotePort)).size).toBeLessThan(6);
  });

  it("a create whose connection is cut after sending is AmbiguousRequestError, sent exactly once", async () => {
    handler = (req) => req.socket.destroy();
    const client = createClient({ baseUrl, apiKey: "k-transport-2", logger: false, retryDelayScale: 0 });
    const error = await client.instances
      .create({ locationId: 1, tierId: 1, templateId: 1, hostname: "h", cpu: 1, memory: 1, storage: 10, username: "u", password: "p", usePublicIp: false })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AmbiguousRequestError);
    expect(seen.filter((s) => s.url === "/v1/instance/create")).toHaveLength(1);
  });

  it("a read whose connection is cut is retried and succeeds", async () => {
    let first = true;
    handler = (req, res) => {
      if (first) {
        first = false;
        req.socket.destroy();
      } else json(res, 200, { message: "ok", data: [] });
    };
    const client = createClient({ baseUrl, apiKey: "k-transport-3", logger: false, retryDelayScale: 0 });
    await expect(client.network.listVswitches()).resolves.toEqual([]);
    expect(seen).toHaveLength(2);
  });

  it("no answer within headersMs is a TimeoutError", async () => {
    handler = () => undefined; // never answers
    const client = createClient({ baseUrl, apiKey: "k-transport-4", logger: false, maxRetries: 0, timeouts: { headersMs: 150 } });
    const error = (await client.catalog.sizeTemplates().catch((e: unknown) => e)) as TimeoutError;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.phase).toBe("headers");
  });

  it("a refused connection is retried even for a create (nothing was sent), then reported", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const entries: RequestLogEntry[] = [];
    const client = createClient({
      baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: "k-transport-5", retryDelayScale: 0, maxRetries: 2, logger: (entry) => entries.push(entry),
    });
    const error = (await client.snapshots.create("i-1", { name: "n", description: "d" }).catch((e: unknown) => e)) as NetworkError;
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.code).toBe("ECONNREFUSED");
    expect(entries.map((e) => [e.retry, e.error])).toEqual([[0, "ECONNREFUSED"], [1, "ECONNREFUSED"], [2, "ECONNREFUSED"]]);
  });
});

describe("classifying a failure without an answer (what decides a retry, and whether a create may be re-sent)", () => {
  const withCode = (code: string, message = `failed: ${code}`) => Object.assign(new Error(message), { code });
  it.each([
    ["UND_ERR_CONNECT_TIMEOUT", { kind: "timeout", phase: "connect", sent: false }],
    ["UND_ERR_HEADERS_TIMEOUT", { kind: "timeout", phase: "headers", sent: true }],
    ["UND_ERR_BODY_TIMEOUT", { kind: "timeout", phase: "body", sent: true }],
    ["ECONNREFUSED", { kind: "network", sent: false }],
    ["ENOTFOUND", { kind: "network", sent: false }],
    ["EAI_AGAIN", { kind: "network", sent: false }],
    ["EHOSTUNREACH", { kind: "network", sent: false }],
    ["ENETUNREACH", { kind: "network", sent: false }],
    ["UND_ERR_CONNECT", { kind: "network", sent: false }],
    ["ECONNRESET", { kind: "network", sent: true }],
    ["UND_ERR_SOCKET", { kind: "network", sent: true }],
  ])("%s", (code, expected) => {
    expect(classifyFailure(withCode(code))).toMatchObject({ ...expected, code });
  });

  it("finds the code up to three causes deep (fetch wraps the socket error), not deeper; no code means maybe sent", () => {
    const wrapped = (depth: number) => {
      let error: Error = withCode("ECONNREFUSED");
      for (let i = 0; i < depth; i++) error = new Error("fetch failed", { cause: error });
      return error;
    };
    expect(classifyFailure(wrapped(3))).toMatchObject({ kind: "network", code: "ECONNREFUSED", sent: false });
    expect(classifyFailure(wrapped(4))).toMatchObject({ kind: "network", code: undefined, sent: true });
    expect(classifyFailure("a string thrown")).toMatchObject({ kind: "network", code: undefined, sent: true });
    expect(classifyFailure("a string thrown").error.message).toBe("a string thrown");
  });

  it("keeps the error's name and message, with the API key cut out, and the code on the copy", () => {
    const failure = classifyFailure(Object.assign(new TypeError("connect to https://x?key=s3cr3t-key failed; s3cr3t-key"), { code: "ECONNRESET" }), "s3cr3t-key");
    expect(failure.error.name).toBe("TypeError");
    expect(failure.error.message).toBe("connect to https://x?key=[REDACTED] failed; [REDACTED]");
    expect((failure.error as Error & { code?: string }).code).toBe("ECONNRESET");
  });
});

describe("connection pools", () => {
  it("one pool per origin and timeouts: clients of one service share it, other timeouts get their own", () => {
    const timeouts = { connectMs: 1_000, headersMs: 2_000, bodyMs: 3_000 };
    const pool = poolFor("http://127.0.0.1:9/v1", timeouts);
    expect(poolFor("http://127.0.0.1:9/other", timeouts)).toBe(pool);
    expect(poolFor("http://127.0.0.1:9/v1", { ...timeouts, headersMs: 5_000 })).not.toBe(pool);
    expect(poolFor("http://localhost:9/v1", timeouts)).not.toBe(pool);
  });
});
