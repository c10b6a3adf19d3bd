import { z } from "zod";
import { checkInputs, closestName } from "./check";

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
    [{ tags: [] }, "tags must be at least 1 items"],
    [{ tags: ["a", "b", "c"] }, "tags must be at most 2 items"],
    [{ count: 0 }, "count must be at least 1"],
    [{ count: 10 }, "count must be at most 9"],
    [{ mode: "slow" }, 'mode must be one of "fast", "safe"'],
    [{ code: "y" }, "code has an invalid value: see the property's description in the docs"],
    [{ size: "big" }, "size must be a number"],
    [{ size: undefined }, "size must be a number (it is required)"],
  ])("%p: %s", (patch, reason) => expect(reasonFor(patch)).toBe(reason));
});
