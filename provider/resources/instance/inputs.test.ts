import { UNKNOWN_VALUE } from "../common/check";
import { checkInstanceInputs, passwordProblem } from "./inputs";
import { badInputs, validCreate } from "../../../tests/resources/instance-cases";

describe("Instance check", () => {
  it("accepts a complete program and fills the delete defaults", () => {
    const r = checkInstanceInputs({ ...validCreate, __provider: "stub" });
    expect(r.failures).toBeUndefined();
    expect(r.inputs).toEqual({ ...validCreate, dedicatedCpu: false, deleteOptions: { removePublicIp: true, removeBlockStorage: false } });
  });

  it(`has at least 20 bad-input cases (${badInputs.length})`, () => expect(badInputs.length).toBeGreaterThanOrEqual(20));

  it.each(badInputs)("refuses %s, naming the property", (_what, inputs, property) => {
    const r = checkInstanceInputs(inputs);
    expect(r.inputs).toBeUndefined();
    // (a secret input's failure names it in the reason, not as the property: see the next test)
    expect(r.failures?.map((f) => f.property || f.reason.split(/[ :]/)[0])).toContain(property);
    for (const f of r.failures ?? []) expect(f.reason.length).toBeGreaterThan(10);
  });

  it("a password failure carries no property: the real engine would print the secret's value beside it", () => {
    const r = checkInstanceInputs({ ...validCreate, password: "short" });
    expect(r.failures).toEqual([{ property: "", reason: expect.stringMatching(/^password /) }]);
    expect(JSON.stringify(r.failures)).not.toContain("short\"");
  });

  it("reports every problem of a program in one run", () => {
    const r = checkInstanceInputs({ ...validCreate, hostname: "Web_1", cpu: 0, powerState: "on" });
    expect(r.failures?.map((f) => f.property).sort()).toEqual(["cpu", "hostname", "powerState"]);
  });

  it("suggests the property a typo meant", () => {
    const r = checkInstanceInputs({ ...validCreate, hostName: "web-1" });
    expect(r.failures?.find((f) => f.property === "hostName")?.reason).toMatch(/did you mean hostname/);
  });

  it("accepts a hostname of dotted labels (a VM named db.internal.example in the panel can be declared as it is)", () => {
    expect(checkInstanceInputs({ ...validCreate, hostname: "db.internal.example" }).failures).toBeUndefined();
    expect(checkInstanceInputs({ ...validCreate, hostname: `${"a".repeat(30)}.${"b".repeat(33)}` }).failures?.map((f) => f.property)).toEqual(["hostname"]);
  });

  it("says how to fix a hostname", () => {
    const r = checkInstanceInputs({ ...validCreate, hostname: "Web" });
    expect(r.failures?.[0]?.reason).toMatch(/lowercase letters, digits, hyphens or dots.*e\.g\. web-1 or db\.internal/);
  });

  it("needs only hostname, location and tier to clone, and nothing but adoptId to adopt", () => {
    const clone = checkInstanceInputs({ cloneFrom: "6f1c0a2e-1111-4222-8333-444455556666", hostname: "web-2", locationId: 1, tierId: 2 });
    expect(clone.failures).toBeUndefined();
    const adopt = checkInstanceInputs({ adoptId: "6f1c0a2e-1111-4222-8333-444455556666" });
    expect(adopt.failures).toBeUndefined();
    const missing = checkInstanceInputs({ cloneFrom: "6f1c0a2e-1111-4222-8333-444455556666", hostname: "web-2" });
    expect(missing.failures?.map((f) => f.property).sort()).toEqual(["locationId", "tierId"]);
  });

  it("lets values unknown during preview through, including required ones", () => {
    const r = checkInstanceInputs({ ...validCreate, hostname: UNKNOWN_VALUE, vswitchId: UNKNOWN_VALUE, publicNetworkId: UNKNOWN_VALUE, publicIp: false });
    expect(r.failures).toBeUndefined();
    expect(r.inputs?.hostname).toBe(UNKNOWN_VALUE);
  });

  it("accepts blank vswitchId (no private network) and well-formed timeouts", () => {
    const r = checkInstanceInputs({ ...validCreate, vswitchId: "", timeouts: { create: "30m", delete: "1h30m" } });
    expect(r.failures).toBeUndefined();
  });

  it.each([
    ["Blue-Horse-42", undefined],
    ["Aa345678", undefined],
    ["Aa34567", /at least 8/],
    ["aaaaaaaa1", /mix lowercase letters, uppercase letters and digits/],
    ["A".repeat(64) + "a1".repeat(5), /at most 72/],
  ])("password %p", (pw, problem) => {
    const p = passwordProblem(pw);
    if (problem === undefined) expect(p).toBeUndefined();
    else expect(p).toMatch(problem);
  });
});

describe("Instance check messages, exactly", () => {
  const reasons = (inputs: Record<string, unknown>) => checkInstanceInputs(inputs).failures?.map((f) => `${f.property}: ${f.reason}`);

  it("a clone names what it still needs, without the create-only hints", () => {
    expect(reasons({ cloneFrom: "6f1c0a2e-1111-4222-8333-444455556666" })).toEqual([
      "locationId: locationId is required when cloning (cloneFrom)",
      "tierId: tierId is required when cloning (cloneFrom)",
      "hostname: hostname is required, e.g. web-1 when cloning (cloneFrom)",
    ]);
  });

  it("a size or a catalogue name written as text says what to write instead (new-user audit)", () => {
    expect(reasons({ ...validCreate, memory: "2GB", storage: "40", cpu: "two" })).toEqual([
      'cpu: cpu must be a number (CPU count)',
      'memory: memory must be a number (GB), not the text "2GB": write memory: 2',
      'storage: storage must be a number (GB), not the text "40": write storage: 40',
    ]);
    expect(reasons({ ...validCreate, locationId: "Jakarta", tierId: "Premium", templateId: true })).toEqual([
      'locationId: locationId must be a number (the integer id from the catalogue), not "Jakarta": to give a name, use locationId: ' +
        'vmhost.getLocationOutput({ name: "Jakarta" }).id (getLocations lists them)',
      'templateId: templateId must be a number (the integer id from the catalogue)',
      'tierId: tierId must be a number (the integer id from the catalogue), not "Premium": to give a name, use tierId: ' +
        'vmhost.getTierOutput({ name: "Premium" }).id (getTiers lists them)',
    ]);
  });

  it("an id written as text (what config.get returns) says the number to write, not a lookup of a name like \"3\"", () => {
    expect(reasons({ ...validCreate, locationId: "3", tierId: "" })).toEqual([
      'locationId: locationId must be a number (the integer id from the catalogue), not the text "3": write locationId: 3 ' +
        "(from stack config, config.requireNumber gives a number)",
      "tierId: tierId must be a number (the integer id from the catalogue)",
    ]);
  });

  it("deleteOptions of the wrong type, or with unknown keys (all named)", () => {
    expect(reasons({ ...validCreate, deleteOptions: "yes" })).toEqual([
      "deleteOptions: deleteOptions must be an object such as { removePublicIp: true, removeBlockStorage: false }",
    ]);
    expect(reasons({ ...validCreate, deleteOptions: { removeIp: true, keepDisks: true } })).toEqual([
      "deleteOptions.removeIp: deleteOptions only takes removePublicIp and removeBlockStorage (true or false), not removeIp, keepDisks",
      "deleteOptions.keepDisks: deleteOptions only takes removePublicIp and removeBlockStorage (true or false), not removeIp, keepDisks",
    ]);
  });

  it("passwords: 72 bytes is the most, and each character class is needed", () => {
    expect(passwordProblem(`Aa1${"x".repeat(69)}`)).toBeUndefined();
    expect(passwordProblem(`Aa1${"x".repeat(70)}`)).toMatch(/^password must be at most 72 bytes/);
    expect(passwordProblem("BLUEHORSE42")).toBe("password must mix lowercase letters, uppercase letters and digits, e.g. Blue-Horse-42");
  });
});

describe("Instance check: one failure per property, defaults only for a new VM", () => {
  it("a property wrong in form and in combination is named once", () => {
    const failures = checkInstanceInputs({ adoptId: "6f1c0a2e-1111-4222-8333-444455556666", cloneFrom: "web-1" }).failures ?? [];
    expect(failures.filter((f) => f.property === "cloneFrom")).toHaveLength(1);
  });
  it("dedicatedCpu: false is filled in for a create only (a clone or an adopted VM keeps what it has)", () => {
    const clone = checkInstanceInputs({ cloneFrom: "6f1c0a2e-1111-4222-8333-444455556666", hostname: "c-1", locationId: 1, tierId: 2 });
    expect(clone.failures).toBeUndefined();
    expect(clone.inputs).not.toHaveProperty("dedicatedCpu");
    const adopt = checkInstanceInputs({ adoptId: "6f1c0a2e-1111-4222-8333-444455556666" });
    expect(adopt.inputs).not.toHaveProperty("dedicatedCpu");
  });
});
