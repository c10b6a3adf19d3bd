import { ConfigurationError, resolveClientOptions } from "../config";
import { applyRouteOverrides, RouteOverrideError } from "../overrides";
import { routes } from "../routes";
import { stderrLogger } from "../log";

describe("resolveClientOptions", () => {
  it("reads stack config keys (as Pulumi's dynamic-provider Config object gives them)", () => {
    const raw: Record<string, string> = {
      "vmhost:apiKey": "key-from-config",
      "vmhost:baseUrl": "https://api.dewavps.com/v1",
      "vmhost:routes": '{"updateRdns": "PATCH /network/ip/{ip_uuid}/rdns"}',
      "vmhost:maxRequestsPerSecond": "5",
    };
    const config = { get: (key: string) => raw[key] };
    expect(resolveClientOptions({ config, env: {} })).toEqual({
      apiKey: "key-from-config",
      baseUrl: "https://api.dewavps.com/v1",
      routes: { updateRdns: "PATCH /network/ip/{ip_uuid}/rdns" },
      maxRequestsPerSecond: 5,
      logger: false,
    });
  });

  it("falls back to VMHOST_API_KEY / VMHOST_BASE_URL, and config wins over env", () => {
    const env = { VMHOST_API_KEY: "env-key", VMHOST_BASE_URL: "https://api.frog.id/v1" };
    expect(resolveClientOptions({ env })).toMatchObject({ apiKey: "env-key", baseUrl: "https://api.frog.id/v1" });
    expect(resolveClientOptions({ config: { "vmhost:apiKey": "cfg-key" }, env })).toMatchObject({ apiKey: "cfg-key", baseUrl: "https://api.frog.id/v1" });
  });

  it("turns on stderr debug logging with VMHOST_LOG=debug (or the provider's logger)", () => {
    const env = { VMHOST_API_KEY: "k", VMHOST_BASE_URL: "https://api.depa.id/v1", VMHOST_LOG: "debug" };
    expect(resolveClientOptions({ env }).logger).toBe(stderrLogger);
    const mine = () => undefined;
    expect(resolveClientOptions({ env, debugLogger: mine }).logger).toBe(mine);
  });

  it("says exactly what to set when the key and URL are missing", () => {
    expect(() => resolveClientOptions({ env: {} })).toThrow(ConfigurationError);
    expect(() => resolveClientOptions({ env: {} })).toThrow(
      "vmhost configuration: no API key: run `pulumi config set --secret vmhost:apiKey <key>` or set the VMHOST_API_KEY environment variable; no base URL: run `pulumi config set vmhost:baseUrl https://api.<host>/v1` (e.g. https://api.dewavps.com/v1) or set VMHOST_BASE_URL",
    );
    expect(() => resolveClientOptions({ config: { "vmhost:apiKey": "  " }, env: { VMHOST_BASE_URL: "https://x/v1" } })).toThrow("no API key");
  });

  it("rejects invalid values with the key name", () => {
    const env = { VMHOST_API_KEY: "k", VMHOST_BASE_URL: "https://api.depa.id/v1" };
    expect(() => resolveClientOptions({ config: { "vmhost:routes": "{not json" }, env })).toThrow("vmhost:routes must be a JSON object");
    expect(() => resolveClientOptions({ config: { "vmhost:routes": '{"nope": "GET /x"}' }, env })).toThrow('unknown operation "nope"');
    expect(() => resolveClientOptions({ config: { "vmhost:maxRequestsPerSecond": "fast" }, env })).toThrow("vmhost:maxRequestsPerSecond must be a positive number");
    expect(() => resolveClientOptions({ env: { ...env, VMHOST_BASE_URL: "api.depa.id" } })).toThrow("must be an http(s) URL");
  });
});

describe("route overrides", () => {
  it("replaces method and path, keeps retry class and area", () => {
    const table = applyRouteOverrides({ updateRdns: { method: "put", path: "/network/ip/{ip_uuid}/rdns" } });
    expect(table.updateRdns).toEqual({ ...routes.updateRdns, method: "PUT", path: "/network/ip/{ip_uuid}/rdns" });
    expect(table.getInstance).toBe(routes.getInstance);
  });

  it.each([
    [{ updateRdns: "PATCH network/ip/{ip_uuid}/rdns" }, 'path must start with "/"'],
    [{ updateRdns: "FETCH /network/ip/{ip_uuid}/rdns" }, 'expected "METHOD /path"'],
    [{ updateRdns: "PATCH /network/ip/{id}/rdns" }, "path parameters must be {ip_uuid}"],
    [{ getVswitch: "GET /network/vswitch/details" }, "path parameters must be {vswitch_uuid}"],
    [{ notAnOperation: "GET /x" }, 'unknown operation "notAnOperation"'],
  ])("rejects %p", (overrides, message) => {
    expect(() => applyRouteOverrides(overrides)).toThrow(RouteOverrideError);
    expect(() => applyRouteOverrides(overrides)).toThrow(message);
  });
});
