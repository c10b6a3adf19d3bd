import { z } from "zod";
import { checkInputs, closestName, isUnknown, UNKNOWN_VALUE } from "./check";

describe("closestName (the 'did you mean' of check messages)", () => {
  it("answers a name that differs only in letter case", () => {
    expect(closestName("HostName", ["cpu", "hostname"])).toBe("hostname");
  });
  it("answers a name within two edits, and none beyond", () => {
    expect(closestName("hostnmae", ["cpu", "hostname"])).toBe("hostname");
    expect(closestName("cpuxy", ["cpu"])).toBe("cpu");
    expect(closestName("cpuxyz", ["cpu"])).toBeUndefined();
  });
  it("prefers the closest name, and the first listed of equally close ones", () => {
    expect(closestName("cpu", ["cpuxy", "cpux"])).toBe("cpux");
    expect(closestName("cpu", ["cpux", "cpuxy"])).toBe("cpux");
    expect(closestName("cpu", ["cpux", "cpuy"])).toBe("cpux");
  });
});

describe("check messages of a schema that gives none (never zod's generic text)", () => {
  const schema = z.object({
    name: z.string().min(3).max(5),
    tags: z.array(z.string()).min(1).max(2),
    count: z.number().min(1).max(9),
    mode: z.enum(["fast", "safe"]),
    code: z.string().regex(/^x/),
    size: z.number(),
  });
  const base = { name: "abcd", tags: ["a"], count: 2, mode: "fast", code: "x1", size: 1 };
  const reasonFor = (patch: Record<string, unknown>): string | undefined => checkInputs(schema, { ...base, ...patch }).failures?.[0]?.reason;
  it.each([
    [{ name: "ab" }, "name must be at least 3 characters"],
    [{ name: "abcdef" }, "name must be at most 5 characters"],
    [{ tags: [] }, "tags must be at least 1 item"],
    [{ tags: ["a", "b", "c"] }, "tags must be at most 2 items"],
    [{ count: 0 }, "count must be at least 1"],
    [{ count: 10 }, "count must be at most 9"],
    [{ mode: "slow" }, 'mode must be one of "fast", "safe"'],
    [{ code: "y" }, "code has an invalid value: see the property's description in the docs"],
    [{ size: "big" }, "size must be a number"],
    [{ size: undefined }, "size must be a number (it is required)"],
  ])("%p: %s", (patch, reason) => expect(reasonFor(patch)).toBe(reason));
});

describe("check messages of unknown properties when the schema gives no text", () => {
  const schema = z.strictObject({ hostname: z.string(), cpu: z.number().optional(), limits: z.strictObject({ cpu: z.number() }).optional() });
  it("names the resource and what it takes, with 'did you mean' when a name is close", () => {
    expect(checkInputs(schema, { hostname: "a", hostnme: "b" }, "a Thing").failures).toEqual([
      { property: "hostnme", reason: "hostnme is not a property of a Thing (it takes hostname, cpu, limits): did you mean hostname?" },
    ]);
    expect(checkInputs(schema, { hostname: "a", colour: 1 }).failures).toEqual([
      { property: "colour", reason: "colour is not a property of this resource (it takes hostname, cpu, limits)" },
    ]);
  });
  it("never reports the serialized provider Pulumi adds to every input bag as an unknown property (strict schema)", () => {
    expect(checkInputs(schema, { hostname: "a", __provider: "exports.handler = ..." })).toEqual({ inputs: { hostname: "a" } });
  });
  it("names a nested unknown key by its path and says to remove it", () => {
    expect(checkInputs(schema, { hostname: "a", limits: { cpu: 1, ram: 2 } }).failures).toEqual([
      { property: "limits.ram", reason: "limits.ram is not a property of limits: remove it" },
    ]);
  });
});

describe("values unknown during preview", () => {
  const schema = z.strictObject({ hostname: z.string(), cpu: z.number() });
  it("a required property still unknown is no failure: it is checked again at up", () => {
    expect(checkInputs(schema, { hostname: UNKNOWN_VALUE, cpu: 1 })).toEqual({ inputs: { cpu: 1, hostname: UNKNOWN_VALUE } });
  });
  it("a list or object holding one unknown value is unknown", () => {
    expect(isUnknown(["a", UNKNOWN_VALUE])).toBe(true);
    expect(isUnknown({ a: 1, b: UNKNOWN_VALUE })).toBe(true);
    expect(isUnknown({ a: 1, b: ["x"] })).toBe(false);
  });
});

describe("checked inputs the dynamic-provider host can send back (audit)", () => {
  // The host answers Check with Struct.fromJavaScript (sdk/nodejs/cmd/dynamic-provider/index.ts), which throws
  // "Unexpected struct type." on an undefined value.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Struct } = require("google-protobuf/google/protobuf/struct_pb") as { Struct: { fromJavaScript(v: unknown): unknown } };
  const { inputsSchema } = jest.requireActual<typeof import("../firewall-rule/inputs")>("../firewall-rule/inputs");
  const rule = { instanceId: "9b756134-08d4-4ada-8f44-a1a86d2863a5", protocol: "tcp", port: " 22 ", action: "accept" };

  it("a blank optional input is left out, not sent as undefined (FirewallRule description \"\" is no description)", () => {
    for (const description of ["", "   "]) {
      const checked = checkInputs(inputsSchema, { ...rule, description, timeouts: { create: "5m" } });
      expect(checked.failures).toBeUndefined();
      expect(Object.keys(checked.inputs as object)).not.toContain("description");
      expect(() => Struct.fromJavaScript(checked.inputs)).not.toThrow();
    }
  });

  it("with a required input unknown at preview, the known ones are normalized as up will send them", () => {
    const checked = checkInputs(inputsSchema, { ...rule, instanceId: UNKNOWN_VALUE, description: "  ", sourceIp: " 10.0.0.1 " });
    expect(checked.failures).toBeUndefined();
    expect(checked.inputs).toMatchObject({ instanceId: UNKNOWN_VALUE, port: checkInputs(inputsSchema, rule).inputs?.port, sourceIp: "10.0.0.1" });
    expect(Object.keys(checked.inputs as object)).not.toContain("description");
    expect(() => Struct.fromJavaScript(checked.inputs)).not.toThrow();
  });
});
