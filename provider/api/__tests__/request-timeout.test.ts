/**
 * A host that accepts a request and never answers: the call fails within the configured bound
 * (`vmhost:requestTimeout` / VMHOST_REQUEST_TIMEOUT), and the message names the method, the URL and the
 * config key that sets the bound. A real TCP server (accepts, reads, never writes), no mocks.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { ConfigurationError, createClient, resolveClientOptions, TimeoutError } from "..";
import { closeAllPools } from "../transport";

let server: http.Server;
let baseUrl: string;

beforeAll(async () => {
  server = http.createServer(() => undefined); // accepts every request and never answers
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await closeAllPools();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

it("fails within vmhost:requestTimeout, naming the method, URL and the key that sets the bound", async () => {
  const options = resolveClientOptions({ config: { "vmhost:apiKey": "k", "vmhost:baseUrl": baseUrl, "vmhost:requestTimeout": "300ms" }, env: {} });
  const client = createClient({ ...options, maxRetries: 1, retryDelayScale: 0.001 });
  const started = Date.now();
  const error = await client.catalog.locations().catch((e: unknown) => e);
  const elapsed = Date.now() - started;
  expect(error).toBeInstanceOf(TimeoutError);
  expect((error as Error).message).toContain(
    `GET ${baseUrl}/locations got no answer within 300ms. The bound of one request is vmhost:requestTimeout (VMHOST_REQUEST_TIMEOUT)`,
  );
  // two attempts of 300 ms (one retry), not the default minute
  expect(elapsed).toBeLessThan(10_000);
});

it("takes the bound from VMHOST_REQUEST_TIMEOUT, and refuses a value that is not a duration", () => {
  const fromEnv = resolveClientOptions({ env: { VMHOST_API_KEY: "k", VMHOST_BASE_URL: baseUrl, VMHOST_REQUEST_TIMEOUT: "2m" } });
  expect(fromEnv.timeouts).toEqual({ headersMs: 120_000, bodyMs: 120_000 });
  expect(() => resolveClientOptions({ env: { VMHOST_API_KEY: "k", VMHOST_BASE_URL: baseUrl, VMHOST_REQUEST_TIMEOUT: "soon" } })).toThrow(
    ConfigurationError,
  );
});
