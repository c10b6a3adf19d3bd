/**
 * `customTimeouts` never reaches a dynamic provider: the warning our resource classes log names the
 * `timeouts` input with the values given. (That the classes log it is shown end to end in
 * tests/e2e/preview-mistakes.test.ts: resource construction needs the real language host.)
 */
import { customTimeoutsWarning } from "../sdk/nodejs/options";

describe("customTimeouts warning", () => {
  it("names the timeouts input with the values given, only the waits the resource has", () => {
    expect(customTimeoutsWarning("Snapshot", { create: "45m", update: "9m" }, ["create", "delete"])).toBe(
      'customTimeouts is ignored by vmhost.Snapshot (dynamic providers never receive it): set the timeouts input instead, e.g. timeouts: { create: "45m" }',
    );
  });
  it("suggests every wait the resource has when the values given are empty, and says nothing without customTimeouts", () => {
    expect(customTimeoutsWarning("Instance", {})).toBe(
      'customTimeouts is ignored by vmhost.Instance (dynamic providers never receive it): set the timeouts input instead, e.g. timeouts: { create: "30m", update: "30m", delete: "30m" }',
    );
    expect(customTimeoutsWarning("Instance", undefined)).toBeUndefined();
  });
});
