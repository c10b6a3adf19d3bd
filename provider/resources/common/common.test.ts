import { z } from "zod";
import { parseDuration, formatDuration } from "../../duration";
import { checkInputs, UNKNOWN_VALUE } from "./check";
import { timeoutsOf, timeoutsSchema } from "./fields";
import { resourceTimeouts } from "../../context";

describe("durations in timeouts inputs", () => {
  it.each([
    ["90s", 90_000], ["20m", 1_200_000], ["1h30m", 5_400_000], ["1.5h", 5_400_000], ["500ms", 500], ["45", 45_000],
    ["1.25", 1_250], [" 45 ", 45_000], [" 2m ", 120_000],
  ])("parses %p", (text, ms) => expect(parseDuration(text)).toBe(ms));
  it("takes a number as seconds (config values may be numbers), never a negative or endless one", () => {
    expect(parseDuration(90)).toBe(90_000);
    expect(parseDuration(0)).toBe(0);
    expect(parseDuration(-1)).toBeUndefined();
    expect(parseDuration(Number.POSITIVE_INFINITY)).toBeUndefined();
    expect(parseDuration(Number.NaN)).toBeUndefined();
  });
  it.each(["", "10 minutes", "m5", "-5s", "1d"])("rejects %p", (text) => expect(parseDuration(text)).toBeUndefined());
  it("formats for messages", () => {
    expect(formatDuration(90_000)).toBe("1m30s");
    expect(formatDuration(3_600_000)).toBe("1h");
    expect(formatDuration(250)).toBe("250ms");
  });
});

describe("timeouts inputs require a unit", () => {
  // "30" read as 30 seconds would make a VM create give up after half a minute while its author meant minutes
  it.each(["30", " 45 ", "1.5"])("refuses %p and says both readings", (text) => {
    const n = text.trim();
    const r = checkInputs(z.object({ timeouts: timeoutsSchema.optional() }), { timeouts: { create: text } });
    expect(r.failures).toEqual([{ property: "timeouts.create", reason: `timeouts.create "${n}" has no unit: write "${n}s" for seconds or "${n}m" for minutes` }]);
  });
  it("names the kind of wait, and still takes durations with a unit", () => {
    const r = checkInputs(z.object({ timeouts: timeoutsOf({ delete: "d" }) }), { timeouts: { delete: "20" } });
    expect(r.failures?.[0]?.reason).toMatch(/^timeouts\.delete "20" has no unit/);
    expect(checkInputs(z.object({ timeouts: timeoutsSchema }), { timeouts: { create: "30m", delete: "90s" } }).failures).toBeUndefined();
  });
  it("is a rule of check only: a state written before it still deletes with its bare seconds", () => {
    expect(resourceTimeouts({ delete: "30" }).delete).toBe(30_000);
  });
});

describe("checkInputs", () => {
  const schema = z.object({
    hostname: z.string().regex(/^[a-z0-9-]+$/, "use lowercase letters, digits and hyphens"),
    cpu: z.number().int().min(1),
    tags: z.array(z.string()).optional(),
  });
  it("returns one failure per bad property, named as the user wrote it", () => {
    const r = checkInputs(schema, { hostname: "Web_1", cpu: 0, tags: ["a", 3] });
    expect(r.failures).toEqual(
      expect.arrayContaining([
        { property: "hostname", reason: "use lowercase letters, digits and hyphens" },
        expect.objectContaining({ property: "cpu" }),
        expect.objectContaining({ property: "tags[1]" }),
      ]),
    );
    expect(r.inputs).toBeUndefined();
  });
  it("passes values unknown during preview through instead of failing on them", () => {
    const r = checkInputs(schema, { hostname: UNKNOWN_VALUE, cpu: 2 });
    expect(r.failures).toBeUndefined();
    expect(r.inputs).toEqual({ hostname: UNKNOWN_VALUE, cpu: 2 });
  });
  it("drops the serialized provider from the inputs it validates", () => {
    const r = checkInputs(schema, { hostname: "web", cpu: 1, __provider: "exports.handler=..." });
    expect(r.inputs).toEqual({ hostname: "web", cpu: 1 });
  });
});
