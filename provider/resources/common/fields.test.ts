import { checkInputs } from "./check";
import { sameUuid, timeoutsOf } from "./fields";
import { z } from "zod";

describe("sameUuid (the one uuid comparison)", () => {
  it("ignores letter case and blanks around, and only equals null to null, undefined to undefined", () => {
    expect(sameUuid(" 6F1C2D3E-4B5A-4C6D-8E7F-0123456789AB ", "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab")).toBe(true);
    expect(sameUuid("6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab", "0a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d")).toBe(false);
    expect(sameUuid(null, null)).toBe(true);
    expect(sameUuid(undefined, undefined)).toBe(true);
    expect(sameUuid(null, undefined)).toBe(false);
    expect(sameUuid(null, "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab")).toBe(false);
    expect(sameUuid("6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab", undefined)).toBe(false);
  });
});

describe("the timeouts input", () => {
  const schema = z.strictObject({ timeouts: timeoutsOf().optional() });
  it("refuses a value that is not an object, showing one", () => {
    expect(checkInputs(schema, { timeouts: "10m" }).failures).toEqual([
      { property: "timeouts", reason: 'timeouts must be an object such as { create: "10m", update: "10m", delete: "10m" }' },
    ]);
  });
  it("names every unknown key and the ones it takes", () => {
    expect(checkInputs(schema, { timeouts: { craete: "1m", delet: "1m" } }).failures?.[0]?.reason).toBe(
      'timeouts only takes create, update, delete (durations like "10m"), not craete, delet',
    );
  });
  it.each(["0s", "0.5ms", "169h", "1000h"])("refuses %p: a zero duration, or one no timer can wait (over 7 days)", (text) => {
    expect(checkInputs(schema, { timeouts: { create: text } }).failures).toEqual([
      { property: "timeouts.create", reason: 'timeouts.create must be a positive duration such as "90s", "20m" or "1h30m", between 1ms and 168h (7 days)' },
    ]);
  });
  it("accepts up to 7 days", () => {
    expect(checkInputs(schema, { timeouts: { create: "168h", delete: "1ms" } }).failures).toBeUndefined();
  });
});
