/**
 * Every check message of every resource names its property (nested path included) and the fix; zod's
 * generic wording ("Invalid input: expected object, received string", "Unrecognized key") never reaches a
 * user, and an unknown property is reported under its own name.
 */
import { inputsSchema as snapshot } from "../snapshot/inputs";
import { inputsSchema as firewallRule } from "../firewall-rule/inputs";
import { inputsSchema as publicIp } from "../public-ip/inputs";
import { inputsSchema as vswitchAttachment } from "../vswitch-attachment/inputs";
import { inputsSchema as blockStorageAttachment } from "../block-storage-attachment/inputs";
import { checkInstanceInputs } from "../instance/inputs";
import { checkInputs, isGenericValidatorText } from "./check";
import type { z } from "zod";

const VM = "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab";
const OTHER = "0a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d";

const valid: [string, z.ZodType, Record<string, unknown>][] = [
  ["Snapshot", snapshot, { instanceId: VM, name: "before-upgrade" }],
  ["FirewallRule", firewallRule, { instanceId: VM, protocol: "tcp", port: 22, action: "accept" }],
  ["PublicIp", publicIp, { instanceId: VM }],
  ["VswitchAttachment", vswitchAttachment, { instanceId: VM, vswitchId: OTHER }],
  ["BlockStorageAttachment", blockStorageAttachment, { blockStorageId: OTHER, instanceId: VM }],
];

/** Wrong-typed values for every property and nested property, plus unknown ones. */
const wrongValues: unknown[] = [42, "text", true, { nested: 1 }, [1], null];

describe.each(valid)("%s check messages", (name, schema, base) => {
  const props = [...Object.keys((schema as unknown as { shape: Record<string, unknown> }).shape), "timeouts.create", "timeouts.bogus"];
  it.each(props)("a wrong value of %s names it and is never zod's generic text", (prop) => {
    for (const value of wrongValues) {
      const [top, sub] = prop.split(".");
      const inputs = { ...base, [top!]: sub ? { [sub]: value } : value };
      const r = checkInputs(schema, inputs, `a ${name}`);
      for (const f of r.failures ?? []) {
        expect(f.reason).not.toMatch(/received|Unrecognized key|Invalid input|Invalid option/);
        expect(isGenericValidatorText(f.reason)).toBe(false);
        expect(f.property).not.toBe("(resource)");
        expect(f.reason).toContain(f.property.split(/[.[]/)[0]!);
      }
    }
  });
  it("reports an unknown property under its own name", () => {
    const r = checkInputs(schema, { ...base, colour: "blue" }, `a ${name}`);
    expect(r.failures).toEqual([expect.objectContaining({ property: "colour", reason: expect.stringContaining("colour") })]);
  });
  it("reports each of two unknown properties under its own name, listing every property the resource takes", () => {
    const r = checkInputs(schema, { ...base, colour: "blue", size: 3 }, `a ${name}`);
    const takes = `a ${name} takes ${props.filter((p) => !p.includes(".")).join(", ")}`;
    expect(r.failures).toEqual([
      { property: "colour", reason: `colour is not a known property (unknown properties colour, size: ${takes})` },
      { property: "size", reason: `size is not a known property (unknown properties colour, size: ${takes})` },
    ]);
  });
  it("reports an unknown key of timeouts as timeouts.<key>", () => {
    const r = checkInputs(schema, { ...base, timeouts: { craete: "5m" } }, `a ${name}`);
    expect(r.failures).toEqual([{ property: "timeouts.craete", reason: expect.stringMatching(/^timeouts only takes create/) }]);
  });
  it("accepts an upper-case uuid and stores it lower-case (the API answers lower case: no endless diff)", () => {
    const upper = Object.fromEntries(Object.entries(base).map(([k, v]) => [k, v === VM || v === OTHER ? String(v).toUpperCase() : v]));
    const r = checkInputs(schema, upper, `a ${name}`);
    expect(r.failures).toBeUndefined();
    const uuids = Object.fromEntries(Object.entries(base).filter(([, v]) => v === VM || v === OTHER));
    expect(r.inputs).toEqual(expect.objectContaining(uuids));
  });
});

describe("Instance check messages", () => {
  const base = { locationId: 1, tierId: 2, templateId: 1, hostname: "web-1", cpu: 2, memory: 4, storage: 40, username: "deploy", password: "Blue-Horse-42" };
  it.each(["deleteOptions", "timeouts", "deleteOptions.removePublicIp", "timeouts.update", "sshKeys", "powerState", "vswitchId", "cpu"])(
    "a wrong value of %s names it and is never zod's generic text",
    (prop) => {
      for (const value of wrongValues) {
        const [top, sub] = prop.split(".");
        const r = checkInstanceInputs({ ...base, [top!]: sub ? { [sub]: value } : value });
        for (const f of r.failures ?? []) {
          expect(isGenericValidatorText(f.reason)).toBe(false);
          expect(f.reason).not.toMatch(/received|Unrecognized key/);
          expect(f.reason).toContain(f.property.split(/[.[]/)[0]!);
        }
      }
    },
  );
  it("converges on upper-case vswitchId and publicNetworkId (stored lower-case, as the API answers)", () => {
    const r = checkInstanceInputs({ ...base, vswitchId: ` ${OTHER.toUpperCase()}`, publicNetworkId: VM.toUpperCase() });
    expect(r.failures).toBeUndefined();
    expect(r.inputs).toEqual(expect.objectContaining({ vswitchId: OTHER, publicNetworkId: VM }));
  });
  it.each([["cpu", 65, /at most 64/], ["memory", 300, /at most 256/], ["storage", 5000, /at most 4000/]])(
    "refuses %s %d, above what the host accepts",
    (prop, value, message) => {
      const r = checkInstanceInputs({ ...base, [prop]: value });
      expect(r.failures).toEqual([{ property: prop, reason: expect.stringMatching(message) }]);
    },
  );
});

describe("FirewallRule description", () => {
  const base = { instanceId: VM, protocol: "tcp", port: 22, action: "accept" };
  it("of only spaces is the same as none (the API stores a blank description as none: no endless diff)", () => {
    const r = checkInputs(firewallRule, { ...base, description: "   " });
    expect(r.failures).toBeUndefined();
    expect(r.inputs?.description).toBeUndefined();
  });
  it("is trimmed as the API trims it", () => {
    expect(checkInputs(firewallRule, { ...base, description: "  ssh from office " }).inputs?.description).toBe("ssh from office");
  });
});
