import { checkInputs, UNKNOWN_VALUE } from "../common/check";
import { inputsSchema, isValidPortSpec, isValidSource } from "./inputs";
import { canonicalPort, canonicalSource, changedApiProperties, diffFirewallRule } from "./diff";
import { createParams, firewallRuleOutputs, ruleMatches, ruleParams } from "./model";
import type { FirewallRule } from "../../api";

const VM = "6f1c2a3b-0000-4000-8000-000000000001";
const VM2 = "6f1c2a3b-0000-4000-8000-000000000002";
const base = { instanceId: VM, protocol: "tcp" as const, port: "22", action: "accept" as const };

describe("FirewallRule inputs", () => {
  it("normalizes a numeric port to text", () => {
    expect(checkInputs(inputsSchema, { ...base, port: 443 }).inputs).toEqual({ ...base, port: "443" });
  });
  it("drops blanks around a port, and a blank description (the API stores none)", () => {
    const r = checkInputs(inputsSchema, { ...base, port: " 8000-9000 ", description: "   " });
    expect(r.inputs).toEqual({ ...base, port: "8000-9000" });
    expect(r.inputs?.description).toBeUndefined();
  });

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ["missing instanceId", { ...base, instanceId: undefined }, "instanceId", /required/],
    ["instanceId not a uuid", { ...base, instanceId: "web-1" }, "instanceId", /uuid/],
    ["uppercase protocol", { ...base, protocol: "TCP" }, "protocol", /"tcp" or "udp"/],
    ["icmp", { ...base, protocol: "icmp" }, "protocol", /"tcp" or "udp"/],
    ["port 0", { ...base, port: 0 }, "port", /1-65535/],
    ["port above 65535", { ...base, port: "70000" }, "port", /1-65535/],
    ["reversed range", { ...base, port: "9000-8000" }, "port", /^port range "9000-8000" is reversed: write "8000-9000" \(low-high\)$/],
    ["reversed range beyond the ports", { ...base, port: "70000-80" }, "port", /^port must be a port 1-65535/],
    ["port list", { ...base, port: "22,80" }, "port", /^port takes one port or one range, not a list \("22,80"\): declare one FirewallRule per port or range$/],
    ["source not an address", { ...base, sourceIp: "office" }, "sourceIp", /CIDR/],
    ["prefix too long", { ...base, sourceIp: "10.0.0.0/33" }, "sourceIp", /CIDR/],
    ["action allow", { ...base, action: "allow" }, "action", /"accept" or "drop"/],
    ["action A (the API's code)", { ...base, action: "A" }, "action", /^action must be "accept" or "drop" \(lowercase; not the API's codes A\/D\), got "A"$/],
    ["missing action", { ...base, action: undefined }, "action", /required/],
    ["description on two lines", { ...base, description: "a\nb" }, "description", /one line/],
    ["description of just \"-\" (the API's placeholder for none)", { ...base, description: " - " }, "description", /reads back as no description/],
    ["blank adoptId", { ...base, adoptId: " " }, "adoptId", /empty/],
    ["bad duration", { ...base, timeouts: { update: "soon" } }, "timeouts.update", /duration/],
    ["typo'd property", { ...base, sourceIP: "1.2.3.4" }, "sourceIP", /^unknown property sourceIP: a FirewallRule takes instanceId, protocol, port, sourceIp, action, description, adoptId, timeouts: did you mean sourceIp\?$/],
  ])("rejects %s, naming the property", (_what, news, property, reason) => {
    const result = checkInputs(inputsSchema, news);
    expect(result.inputs).toBeUndefined();
    expect(result.failures).toEqual(expect.arrayContaining([{ property, reason: expect.stringMatching(reason) }]));
  });

  it("takes a range written with a colon, as the API does, and keeps it as written (it is sent so)", () => {
    expect(checkInputs(inputsSchema, { ...base, port: " 8000:9000 " }).inputs).toEqual({ ...base, port: "8000:9000" });
    expect(ruleParams({ ...base, port: "8000:9000" }).destinationPort).toBe("8000:9000");
    expect(checkInputs(inputsSchema, { ...base, port: "9000:8000" }).failures).toEqual([
      { property: "port", reason: 'port range "9000:8000" is reversed: write "8000:9000" (low-high)' },
    ]);
  });

  it.each([
    ["22", true], ["1-65535", true], ["80-80", true], ["065536", false], ["", false], ["-1", false],
    ["8000:8100", true], ["1:65535", true], ["22:22", true], ["9000:8000", false], ["1:65536", false], ["22:", false], [":22", false],
    ["1-2:3", false], ["8000 : 8100", false],
  ])(
    "port spec %p valid=%p", (text, ok) => expect(isValidPortSpec(text)).toBe(ok),
  );
  it.each([["203.0.113.7", true], ["10.0.0.0/8", true], ["0.0.0.0/0", true], ["2001:db8::/32", false], ["256.1.1.1", false], ["1.2.3.4/32", true], ["1.2.3.4/33", false], ["01.2.3.4", false], ["10.0.0.0/", false], ["1.2.3.4/8/9", false]])(
    "source %p valid=%p", (text, ok) => expect(isValidSource(text)).toBe(ok),
  );
});

describe("FirewallRule diff", () => {
  const olds = { ...base, sourceIp: "203.0.113.7", description: "ssh" };
  it.each<[string, Record<string, unknown>, boolean, string[], string[], string[]]>([
    ["nothing changed", { ...olds }, false, [], [], []],
    ["equivalent spellings are not drift", { ...olds, port: "22-22", sourceIp: "203.0.113.7/32" }, false, [], [], []],
    ["port", { ...olds, port: "2222" }, true, [], ["port"], ["port"]],
    ["action", { ...olds, action: "drop" }, true, [], ["action"], ["action"]],
    ["source removed", { ...olds, sourceIp: undefined }, true, [], ["sourceIp"], ["sourceIp"]],
    ["description removed: the API cannot blank it, so a new rule", { ...olds, description: undefined }, true, ["description"], ["description"], ["description"]],
    ["protocol and description", { ...olds, protocol: "udp", description: "dns" }, true, [], ["protocol", "description"], ["protocol", "description"]],
    ["port unknown in preview", { ...olds, port: UNKNOWN_VALUE }, true, [], ["port"], ["port"]],
    ["instance: replaced", { ...olds, instanceId: VM2 }, true, ["instanceId"], [], ["instanceId"]],
    ["timeouts only: no API call", { ...olds, timeouts: { update: "1m" } }, true, [], [], ["timeouts"]],
  ])("%s", (_what, news, changes, replaces, api, changedKeys) => {
    expect(diffFirewallRule(olds, news)).toEqual({ changes, replaces, deleteBeforeReplace: false, changedKeys });
    expect(changedApiProperties(olds, news)).toEqual(api);
  });

  it("an absent description equals the empty text the API may echo", () => {
    const noDesc = { ...base };
    expect(diffFirewallRule({ ...noDesc, description: "" }, noDesc).changes).toBe(false);
    // a state written before "-" was read as none: no replace (it was replaced at every up before)
    expect(diffFirewallRule({ ...noDesc, description: "-" }, noDesc)).toMatchObject({ changes: false, replaces: [] });
  });

  it("no source equals the any-source network the provider sends to remove one", () => {
    expect(diffFirewallRule({ ...base, sourceIp: "0.0.0.0/0" }, { ...base }).changes).toBe(false);
  });
});

describe("FirewallRule sources and ports", () => {
  it.each([["10.0.0.0/-1"], ["10.0.0.0/1e1"], ["10.0.0.0/ 8"]])("refuses the prefix of %p", (text) => expect(isValidSource(text)).toBe(false));

  it.each<[string, unknown, unknown, boolean]>([
    ["a number and its text", 22, "22", true],
    ["a one-port range and the port, spaced", " 22 - 22 ", "22", true],
    ["a padded port", " 80 ", "80", true],
    ["a real range and its first port", "22-23", "22", false],
    ["a range written inside other text", "x22-22", "22", false],
    ["a range followed by other text", "22-22x", "22", false],
    ["a range with a colon (the panel's spelling) and with a dash", "8000:8100", "8000-8100", true],
    ["a one-port range with a colon and the port", "22:22", "22", true],
    ["a range with a colon, spaced, and with a dash", " 8000 : 8100 ", "8000-8100", true],
    ["ranges with other ends", "8000:8100", "8000-8101", false],
    ["a port with a leading zero and the port", "080", "80", true],
  ])("port: %s same=%p", (_what, a, b, same) => {
    expect(canonicalPort(a) === canonicalPort(b)).toBe(same);
  });

  it.each<[string, unknown, unknown, boolean]>([
    ["no source and null", undefined, null, true],
    ["no source and blank", undefined, "  ", true],
    ["no source and the dash some hosts echo", undefined, "-", true],
    ["no source and any network", undefined, "0.0.0.0/0", true],
    ["a host and its /32, padded", "203.0.113.7", " 203.0.113.7/32 ", true],
    ["a host and another network", "203.0.113.7", "203.0.113.0/24", false],
    ["no source and a host", undefined, "203.0.113.7", false],
  ])("source: %s same=%p", (_what, a, b, same) => {
    expect(canonicalSource(a) === canonicalSource(b)).toBe(same);
  });

  it("a description or source spelled differently by the host is no change; a real one is", () => {
    const olds = { ...base, sourceIp: "203.0.113.7", description: "ssh" };
    expect(diffFirewallRule(olds, { ...olds, sourceIp: "203.0.113.7/32" }).changes).toBe(false);
    expect(diffFirewallRule({ ...base, description: "" }, { ...base }).changes).toBe(false);
    expect(diffFirewallRule({ ...base }, { ...base, description: "web" }).changes).toBe(true);
    expect(changedApiProperties({ ...base, sourceIp: "-" }, { ...base })).toEqual([]);
    expect(changedApiProperties({ ...base, port: "22" }, { ...base, port: "22-22" })).toEqual([]);
    // the panel (or another tool) stores a range with a colon: the same rule, no drift and no update
    expect(diffFirewallRule({ ...base, port: "8000:8100" }, { ...base, port: "8000-8100" })).toMatchObject({ changes: false, changedKeys: [] });
    expect(diffFirewallRule({ ...base, port: "8000-8100" }, { ...base, port: "8000:8100" })).toMatchObject({ changes: false, changedKeys: [] });
    expect(changedApiProperties({ ...base, port: "8000:8100" }, { ...base, port: "8000-8101" })).toEqual(["port"]);
    // each property compared by its own rule: a protocol is not a port, a description is not a network
    expect(changedApiProperties({ ...base, protocol: "tcp" }, { ...base, protocol: "udp" })).toEqual(["protocol"]);
    expect(changedApiProperties({ ...base, description: "lan/32" }, { ...base, description: "lan" })).toEqual(["description"]);
  });
});

describe("FirewallRule request bodies", () => {
  it("creates a rule without a source with no source at all, and updates it to any source", () => {
    expect(Object.keys(createParams({ ...base }))).not.toContain("sourceIp");
    expect(ruleParams({ ...base }).sourceIp).toBe("0.0.0.0/0");
    expect(createParams({ ...base, sourceIp: "10.0.0.0/8" }).sourceIp).toBe("10.0.0.0/8");
  });
});

describe("FirewallRule mapping", () => {
  const rule: FirewallRule = { id: "9", protocol: "tcp", destination_port: "22", source_ip: "10.0.0.0/8", action: "A", description: "ssh" } as FirewallRule;
  const inputs = { ...base, port: "22", sourceIp: "10.0.0.0/8", description: "ssh" };

  it("takes as ours only a rule equal in protocol, action, port, source and description (after an ambiguous create)", () => {
    expect(ruleMatches(rule, inputs)).toBe(true);
    expect(ruleMatches({ ...rule, destination_port: "22-22", source_ip: "10.0.0.0/8" }, inputs)).toBe(true);
    expect(ruleMatches({ ...rule, protocol: "udp" }, inputs)).toBe(false);
    expect(ruleMatches({ ...rule, action: "D" }, inputs)).toBe(false);
    expect(ruleMatches({ ...rule, destination_port: "23" }, inputs)).toBe(false);
    expect(ruleMatches({ ...rule, destination_port: "8000:8100" }, { ...inputs, port: "8000-8100" })).toBe(true);
    expect(ruleMatches({ ...rule, source_ip: "0.0.0.0/0" }, inputs)).toBe(false);
    expect(ruleMatches({ ...rule, description: "other" }, inputs)).toBe(false);
    expect(ruleMatches({ ...rule, description: null }, inputs)).toBe(false);
    expect(ruleMatches({ ...rule, description: "" }, { ...inputs, description: undefined })).toBe(true);
  });

  it("outputs leave out an empty description or source, and carry adoptId and timeouts only when set", () => {
    const bare = firewallRuleOutputs({ instanceId: VM }, { ...rule, source_ip: null, description: "" });
    expect(bare).toEqual({ instanceId: VM, protocol: "tcp", port: "22", action: "accept" });
    expect(Object.keys(bare)).toEqual(["instanceId", "protocol", "port", "action"]);
    expect(firewallRuleOutputs({ instanceId: VM }, { ...rule, description: null })).not.toHaveProperty("description");
    expect(firewallRuleOutputs({ instanceId: VM }, { ...rule, source_ip: "0.0.0.0/0" })).not.toHaveProperty("sourceIp");
    expect(firewallRuleOutputs({ instanceId: VM }, { ...rule, protocol: null, destination_port: null, action: null } as unknown as FirewallRule)).toEqual(
      expect.objectContaining({ protocol: "", port: "", action: "" }),
    );
    const full = firewallRuleOutputs({ instanceId: VM, adoptId: "9", timeouts: { delete: "1m" } }, rule);
    expect(full).toEqual({ ...inputs, action: "accept", adoptId: "9", timeouts: { delete: "1m" } });
  });
});
