import { ConfigurationError, parsePositiveDuration, resolveClientOptions } from "../config";
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

  it("a base URL that is not a URL is not echoed (the key pasted into the wrong setting); one that is, is", () => {
    // new-user audit: baseUrl and apiKey swapped printed the key
    const swapped = () => resolveClientOptions({ config: { "vmhost:apiKey": "https://api.dewavps.com/v1", "vmhost:baseUrl": "SeCrEtKeY9876zz" }, env: {} });
    expect(swapped).toThrow("vmhost:baseUrl / VMHOST_BASE_URL must be an http(s) URL ending in /v1 (the value set is not a URL; not shown, in case it is the API key)");
    expect(swapped).not.toThrow(/SeCrEtKeY9876zz/);
    expect(() => resolveClientOptions({ config: { "vmhost:apiKey": "k", "vmhost:baseUrl": "ftp://api.dewavps.com/v1" }, env: {} })).toThrow(
      'must be an http(s) URL ending in /v1, got "ftp://api.dewavps.com/v1"',
    );
  });

  it("says exactly what to set when the key and URL are missing", () => {
    expect(() => resolveClientOptions({ env: {} })).toThrow(ConfigurationError);
    expect(() => resolveClientOptions({ env: {} })).toThrow(
      "vmhost configuration: no API key: run `pulumi config set --secret vmhost:apiKey <key>` or set the VMHOST_API_KEY environment variable; no base URL: run `pulumi config set vmhost:baseUrl https://api.<host>/v1` (e.g. https://api.dewavps.com/v1) or set VMHOST_BASE_URL",
    );
    expect(() => resolveClientOptions({ config: { "vmhost:apiKey": "  " }, env: { VMHOST_BASE_URL: "https://x/v1" } })).toThrow("no API key");
    for (const key of ["abc\ndef", "kunci-rahasia-é", "two words"]) {
      const thrown = (() => {
        try {
          resolveClientOptions({ config: { "vmhost:apiKey": key }, env: { VMHOST_BASE_URL: "https://x/v1" } });
        } catch (e) {
          return (e as Error).message;
        }
        return "";
      })();
      expect(thrown).toContain("vmhost:apiKey / VMHOST_API_KEY holds a character an API key cannot have");
      expect(thrown).not.toContain(key);
    }
  });

  it("rejects invalid values with the key name", () => {
    const env = { VMHOST_API_KEY: "k", VMHOST_BASE_URL: "https://api.depa.id/v1" };
    expect(() => resolveClientOptions({ config: { "vmhost:routes": "{not json" }, env })).toThrow("vmhost:routes must be a JSON object");
    expect(() => resolveClientOptions({ config: { "vmhost:routes": '{"nope": "GET /x"}' }, env })).toThrow('unknown operation "nope"');
    for (const bad of ["fast", "0", "0.001", "1e-9", "0x10", "-5", "5000"])
      expect(() => resolveClientOptions({ config: { "vmhost:maxRequestsPerSecond": bad }, env })).toThrow(
        `vmhost:maxRequestsPerSecond must be a decimal number of requests per second from 0.02 (about one a minute) to 1000, e.g. 10, got ${JSON.stringify(bad)}`,
      );
    expect(resolveClientOptions({ config: { "vmhost:maxRequestsPerSecond": " 2.5 " }, env }).maxRequestsPerSecond).toBe(2.5);
    expect(() => resolveClientOptions({ env: { ...env, VMHOST_BASE_URL: "api.depa.id" } })).toThrow("must be an http(s) URL");
  });
});

describe("vmhost:requestTimeout", () => {
  it.each([
    ["90s", 90_000], ["2m", 120_000], ["500ms", 500], ["1m30s", 90_000], ["1h", 3_600_000], ["1.5s", 1_500],
    ["0.25m", 15_000], ["30", 30_000], ["2.5", 2_500], [" 45s ", 45_000],
  ])("reads %p as %p ms", (text, ms) => {
    expect(parsePositiveDuration(text)).toBe(ms);
  });

  it.each(["0", "0s", "0ms0s", "0.1ms", "169h", "-5", "-5s", "abc", "5x", "s", "1m 30s", "1.s", ".5s", "5s!", "x5s", "1.5.2s", "1e3"])("refuses %p", (text) => {
    expect(parsePositiveDuration(text)).toBeUndefined();
  });

  it("a value that is no duration is a configuration error naming the key and the forms", () => {
    expect(() => resolveClientOptions({ config: { "vmhost:apiKey": "k", "vmhost:baseUrl": "https://api.dewavps.com/v1", "vmhost:requestTimeout": "soon" }, env: {} })).toThrow(
      'vmhost:requestTimeout / VMHOST_REQUEST_TIMEOUT must be a duration such as "90s" or "2m" (or seconds), between 1ms and 168h (7 days), got "soon"',
    );
    expect(resolveClientOptions({ config: { "vmhost:apiKey": "k", "vmhost:baseUrl": "https://api.dewavps.com/v1" }, env: { VMHOST_REQUEST_TIMEOUT: "2m" } }).timeouts).toEqual({ headersMs: 120_000, bodyMs: 120_000 });
  });
});

describe("vmhost:createTimeout, updateTimeout, deleteTimeout", () => {
  const base = { "vmhost:apiKey": "k", "vmhost:baseUrl": "https://api.dewavps.com/v1" };
  it.each([
    [{ "vmhost:createTimeout": "banana" }, {}, 'vmhost:createTimeout / VMHOST_CREATE_TIMEOUT must be a positive duration such as "20m" or "90s" (or seconds), between 1ms and 168h (7 days), got "banana"'],
    [{}, { VMHOST_CREATE_TIMEOUT: "0" }, 'vmhost:createTimeout / VMHOST_CREATE_TIMEOUT must be a positive duration such as "20m" or "90s" (or seconds), between 1ms and 168h (7 days), got "0"'],
    [{ "vmhost:deleteTimeout": "0s" }, {}, "vmhost:deleteTimeout / VMHOST_DELETE_TIMEOUT must be a positive duration"],
    [{}, { VMHOST_UPDATE_TIMEOUT: "-5m" }, "vmhost:updateTimeout / VMHOST_UPDATE_TIMEOUT must be a positive duration"],
    [{ "vmhost:createTimeout": "1000h" }, {}, 'vmhost:createTimeout / VMHOST_CREATE_TIMEOUT must be a positive duration such as "20m" or "90s" (or seconds), between 1ms and 168h (7 days), got "1000h"'],
  ])("refuses %p %p with the key and the env name, where preview checks configuration", (config, env, message) => {
    expect(() => resolveClientOptions({ config: { ...base, ...config }, env })).toThrow(message);
  });

  it("accepts durations and leaves their resolution to each resource", () => {
    expect(() => resolveClientOptions({ config: { ...base, "vmhost:createTimeout": "45m" }, env: { VMHOST_DELETE_TIMEOUT: "90" } })).not.toThrow();
  });
});

describe("route overrides", () => {
  it("replaces method and path, keeps retry class and area", () => {
    const table = applyRouteOverrides({ updateRdns: { method: "put", path: "/network/ip/{ip_uuid}/rdns" } });
    expect(table.updateRdns).toEqual({ ...routes.updateRdns, method: "PUT", path: "/network/ip/{ip_uuid}/rdns" });
    expect(table.getInstance).toBe(routes.getInstance);
  });

  it("reads a text override with blanks around and between method and path, in any letter case", () => {
    const table = applyRouteOverrides({ updateRdns: "  patch   /network/ip/{ip_uuid}/rdns  " });
    expect(table.updateRdns).toMatchObject({ method: "PATCH", path: "/network/ip/{ip_uuid}/rdns" });
  });

  it("takes a path whose placeholders come in another order; a wrong set names the default route's, in the error's name", () => {
    const table = applyRouteOverrides({
      deleteSnapshot: "DELETE /snapshots/{snapshot_uuid}/of/{instance_uuid}",
      deleteFirewallRule: "DELETE /firewall/{instance_uuid}/{firewall_id}",
    });
    expect(table.deleteSnapshot).toMatchObject({ method: "DELETE", path: "/snapshots/{snapshot_uuid}/of/{instance_uuid}" });
    expect(table.deleteFirewallRule).toMatchObject({ method: "DELETE", path: "/firewall/{instance_uuid}/{firewall_id}" });
    const err = (() => {
      try {
        applyRouteOverrides({ deleteSnapshot: "DELETE /snapshots/{snapshot_uuid}" });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err?.name).toBe("RouteOverrideError");
    expect(err?.message).toBe(
      'route override for deleteSnapshot: path parameters must be {instance_uuid}, {snapshot_uuid} like /instance/{instance_uuid}/snapshot/{snapshot_uuid}/delete, got "/snapshots/{snapshot_uuid}"',
    );
  });

  it("names the package version of its own package.json in the User-Agent", () => {
    // A fresh module: the version is read once per process, so a test must load it anew to read it at all.
    jest.isolateModules(() => {
      const { userAgent } = require("../version") as typeof import("../version");
      expect(userAgent()).toBe(`pulumi-vmhost/${(require("../../../package.json") as { version: string }).version}`);
    });
  });

  it.each([
    [{ updateRdns: "1 PATCH /network/ip/{ip_uuid}/rdns" }, 'expected "METHOD /path", e.g. "PATCH /network/ip/{ip_uuid}/rdns", got "1 PATCH /network/ip/{ip_uuid}/rdns"'],
    [{ updateRdns: "PATCH /network/ip/{ip_uuid}/rdns now" }, 'expected "METHOD /path"'],
    [{ updateRdns: { method: "PATCH" } }, 'expected "METHOD /path" or {method, path}, got {"method":"PATCH"}'],
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
