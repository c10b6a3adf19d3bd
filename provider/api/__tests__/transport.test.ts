/**
 * The real transport path (no injected dispatcher): undici pool against a local node:http server.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createClient } from "../client";
import { AmbiguousRequestError, NetworkError, TimeoutError } from "../errors";
import type { RequestLogEntry } from "../log";
import { closeAllPools } from "../transport";

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
