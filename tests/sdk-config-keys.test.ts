/**
 * A misspelt vmhost: config key is ignored by the provider; the program warns about it, once, with the key it
 * most likely meant (sdk/nodejs/config-keys.ts, provider/api/config-keys.ts).
 */
import * as pulumi from "@pulumi/pulumi";
import { CONFIG_KEYS, unknownConfigKeyWarnings } from "../provider/api/config-keys";

jest.mock("@pulumi/pulumi/runtime/closure/serializeClosure", () => ({
  serializeFunction: async () => ({ text: "exports.handler = undefined;", containsSecrets: false }),
}));

describe("unknownConfigKeyWarnings", () => {
  it.each([
    ["vmhost:createtimeout", "vmhost:createTimeout"],
    ["vmhost:maxRequestPerSecond", "vmhost:maxRequestsPerSecond"],
    ["vmhost:api_key", "vmhost:apiKey"],
    ["vmhost:baseURL", "vmhost:baseUrl"],
    ["vmhost:deleteTimout", "vmhost:deleteTimeout"],
  ])("%s: did you mean %s?", (key, meant) => {
    expect(unknownConfigKeyWarnings([key])).toEqual([
      `config ${key} is not a vmhost setting and is ignored: did you mean ${meant}? (\`pulumi config rm ${key}\`, then set ${meant})`,
    ]);
  });
  it("lists the settings when nothing is close, and says nothing of known keys or other namespaces", () => {
    const [w, ...rest] = unknownConfigKeyWarnings(["vmhost:region", "aws:region", "project:apiKey", ...CONFIG_KEYS.map((k) => `vmhost:${k}`)]);
    expect(rest).toEqual([]);
    expect(w).toBe(`config vmhost:region is not a vmhost setting and is ignored: the vmhost settings are ${CONFIG_KEYS.map((k) => `vmhost:${k}`).join(", ")}`);
  });
  it("says nothing in a project named vmhost, whose own keys Pulumi stores as vmhost:<key>", () => {
    expect(unknownConfigKeyWarnings(["vmhost:region", "vmhost:createtimeout"], "vmhost")).toEqual([]);
    expect(unknownConfigKeyWarnings(["vmhost:region"], "web")).toHaveLength(1);
  });
});

describe("in a program", () => {
  it("warns once per program, for every misspelt key, when the first resource is declared", async () => {
    await pulumi.runtime.setMocks({ newResource: (a) => ({ id: `${a.name}-id`, state: a.inputs }), call: (a) => a.inputs }, "project", "stack", true);
    pulumi.runtime.setAllConfig({ "vmhost:apiKey": "dev", "vmhost:createtimeout": "1s", "vmhost:api_key": "x", "project:other": "1" });
    const warn = jest.spyOn(pulumi.log, "warn").mockResolvedValue();
    const { Snapshot } = await import("../sdk/nodejs");
    new Snapshot("a", { instanceId: "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab", name: "a" });
    new Snapshot("b", { instanceId: "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab", name: "b" });
    const texts = warn.mock.calls.map((c) => c[0]).filter((t) => t.startsWith("config vmhost:"));
    expect(texts).toEqual([
      expect.stringContaining("config vmhost:createtimeout is not a vmhost setting and is ignored: did you mean vmhost:createTimeout?"),
      expect.stringContaining("config vmhost:api_key is not a vmhost setting and is ignored: did you mean vmhost:apiKey?"),
    ]);
  });
});

describe("in a program of a project named vmhost", () => {
  it("does not warn about the project's own keys (`pulumi config set region x` is vmhost:region there)", async () => {
    await jest.isolateModulesAsync(async () => {
      const p: typeof pulumi = await import("@pulumi/pulumi");
      await p.runtime.setMocks({ newResource: (a) => ({ id: `${a.name}-id`, state: a.inputs }), call: (a) => a.inputs }, "vmhost", "stack", true);
      p.runtime.setAllConfig({ "vmhost:apiKey": "dev", "vmhost:region": "eu", "vmhost:replicas": "3" });
      const warn = jest.spyOn(p.log, "warn").mockResolvedValue();
      const { warnUnknownConfigKeys } = await import("../sdk/nodejs/config-keys");
      warnUnknownConfigKeys();
      expect(warn.mock.calls.map((c) => c[0]).filter((t) => t.startsWith("config vmhost:"))).toEqual([]);
    });
  });
});

describe("vmhost:apiKey in plain text", () => {
  // new-user audit: a stack file holding the key in plain text (usually committed) went unremarked
  const warningsWith = async (secretKeys: string[] | undefined): Promise<string[]> => {
    let texts: string[] = [];
    const saved = process.env.PULUMI_CONFIG_SECRET_KEYS;
    if (secretKeys === undefined) delete process.env.PULUMI_CONFIG_SECRET_KEYS;
    else process.env.PULUMI_CONFIG_SECRET_KEYS = JSON.stringify(secretKeys);
    try {
      await jest.isolateModulesAsync(async () => {
        const p: typeof pulumi = await import("@pulumi/pulumi");
        await p.runtime.setMocks({ newResource: (a) => ({ id: `${a.name}-id`, state: a.inputs }), call: (a) => a.inputs }, "web", "stack", true);
        p.runtime.setAllConfig({ "vmhost:apiKey": "dev" }, secretKeys);
        const warn = jest.spyOn(p.log, "warn").mockResolvedValue();
        const { warnPlaintextApiKey } = await import("../sdk/nodejs/config-keys");
        warnPlaintextApiKey();
        warnPlaintextApiKey();
        texts = warn.mock.calls.map((c) => c[0]).filter((t) => t.startsWith("vmhost:apiKey"));
      });
    } finally {
      if (saved === undefined) delete process.env.PULUMI_CONFIG_SECRET_KEYS;
      else process.env.PULUMI_CONFIG_SECRET_KEYS = saved;
    }
    return texts;
  };
  it("warns once, saying how to store it as a secret", async () => {
    expect(await warningsWith([])).toEqual([expect.stringContaining("vmhost:apiKey is stored in plain text in this stack's config file: set it as a secret with `pulumi config set --secret vmhost:apiKey <key>`")]);
  });
  it("says nothing of a secret key, nor when the engine does not say which keys are secret", async () => {
    expect(await warningsWith(["vmhost:apiKey"])).toEqual([]);
    expect(await warningsWith(undefined)).toEqual([]);
  });
});
