import { engineAddressOf, engineGuard, EngineGoneError, type Probe } from "./engine-liveness";

describe("engineAddressOf", () => {
  it("is the first argument of Pulumi's dynamic-provider host, and nothing elsewhere", () => {
    expect(engineAddressOf(["node", "/p/node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js", "127.0.0.1:40123"])).toBe("127.0.0.1:40123");
    expect(engineAddressOf(["node", "/p/node_modules/@pulumi/pulumi/cmd/dynamic-provider", "127.0.0.1:40123", "ref"])).toBe("127.0.0.1:40123");
    expect(engineAddressOf(["node", "/p/node_modules/.bin/jest", "127.0.0.1:40123"])).toBeUndefined();
    expect(engineAddressOf(["node", "/p/program.js"])).toBeUndefined();
  });
});

describe("engineGuard", () => {
  const probing = (answers: Array<"alive" | "gone" | "unknown">) => {
    const asked: string[] = [];
    const probe: Probe = async (a) => (asked.push(a), answers.shift() ?? "alive");
    return { asked, probe };
  };

  it("looks before every write; once the engine is gone, refuses every request without looking again", async () => {
    const { asked, probe } = probing(["alive", "gone"]);
    const guard = engineGuard("127.0.0.1:9", probe, () => 0);
    await guard({ method: "POST" });
    await expect(guard({ method: "POST" })).rejects.toBeInstanceOf(EngineGoneError);
    await expect(guard({ method: "GET" })).rejects.toThrow("has exited (was pulumi killed?)");
    expect(asked).toHaveLength(2);
  });

  it("reads look at most once a second; an unknown answer (a slow connect) never stops a request", async () => {
    let now = 0;
    const { asked, probe } = probing(["alive", "unknown", "unknown"]);
    const guard = engineGuard("127.0.0.1:9", probe, () => now);
    await guard({ method: "GET" });
    now = 500;
    await guard({ method: "GET" });
    expect(asked).toHaveLength(1);
    now = 1_000;
    await guard({ method: "GET" });
    await guard({ method: "DELETE" });
    expect(asked).toHaveLength(3);
  });
});
