import { checkInputs, UNKNOWN_VALUE } from "../common/check";
import { inputsSchema, isValidPortSpec, isValidSource } from "./inputs";
import { changedApiProperties, diffFirewallRule } from "./diff";

const VM = "6f1c2a3b-0000-4000-8000-000000000001";
const VM2 = "6f1c2a3b-0000-4000-8000-000000000002";
const base = { instanceId: VM, protocol: "tcp" as const, port: "22", action: "accept" as const };

describe("FirewallRule inputs", () => {
  it("normalizes a numeric port to text", () => {
    expect(checkInputs(inputsSchema, { ...base, port: 443 }).inputs).toEqual({ ...base, port: "443" });
  });

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ["missing instanceId", { ...base, instanceId: undefined }, "instanceId", /required/],
    ["instanceId not a uuid", { ...base, instanceId: "web-1" }, "instanceId", /uuid/],
    ["uppercase protocol", { ...base, protocol: "TCP" }, "protocol", /"tcp" or "udp"/],
    ["icmp", { ...base, protocol: "icmp" }, "protocol", /"tcp" or "udp"/],
    ["port 0", { ...base, port: 0 }, "port", /1-65535/],
    ["port above 65535", { ...base, port: "70000" }, "port", /1-65535/],
    ["reversed range", { ...base, port: "9000-8000" }, "port", /low-high/],
    ["port list", { ...base, port: "22,80" }, "port", /range/],
    ["source not an address", { ...base, sourceIp: "office" }, "sourceIp", /CIDR/],
    ["prefix too long", { ...base, sourceIp: "10.0.0.0/33" }, "sourceIp", /CIDR/],
    ["action allow", { ...base, action: "allow" }, "action", /"accept" or "drop"/],
    ["missing action", { ...base, action: undefined }, "action", /required/],
    ["description on two lines", { ...base, description: "a\nb" }, "description", /one line/],
    ["blank adoptId", { ...base, adoptId: " " }, "adoptId", /empty/],
    ["bad duration", { ...base, timeouts: { update: "soon" } }, "timeouts.update", /duration/],
    ["typo'd property", { ...base, sourceIP: "1.2.3.4" }, "sourceIP", /sourceIP.*did you mean sourceIp/],
  ])("rejects %s, naming the property", (_what, news, property, reason) => {
    const result = checkInputs(inputsSchema, news);
    expect(result.inputs).toBeUndefined();
    expect(result.failures).toEqual(expect.arrayContaining([{ property, reason: expect.stringMatching(reason) }]));
  });

  it.each([["22", true], ["1-65535", true], ["80-80", true], ["065536", false], ["", false], ["-1", false]])(
    "port spec %p valid=%p", (text, ok) => expect(isValidPortSpec(text)).toBe(ok),
  );
  it.each([["203.0.113.7", true], ["10.0.0.0/8", true], ["0.0.0.0/0", true], ["2001:db8::/32", false], ["256.1.1.1", false], ["10.0.0.0/", false], ["1.2.3.4/8/9", false]])(
    "source %p valid=%p", (text, ok) => expect(isValidSource(text)).toBe(ok),
  );
});

describe("FirewallRule diff", () => {
  const olds = { ...base, sourceIp: "203.0.113.7", description: "ssh" };
  it.each<[string, Record<string, unknown>, boolean, string[], string[]]>([
    ["nothing changed", { ...olds }, false, [], []],
    ["equivalent spellings are not drift", { ...olds, port: "22-22", sourceIp: "203.0.113.7/32" }, false, [], []],
    ["port", { ...olds, port: "2222" }, true, [], ["port"]],
    ["action", { ...olds, action: "drop" }, true, [], ["action"]],
    ["source removed", { ...olds, sourceIp: undefined }, true, [], ["sourceIp"]],
    ["description removed: the API cannot blank it, so a new rule", { ...olds, description: undefined }, true, ["description"], ["description"]],
    ["protocol and description", { ...olds, protocol: "udp", description: "dns" }, true, [], ["protocol", "description"]],
    ["port unknown in preview", { ...olds, port: UNKNOWN_VALUE }, true, [], ["port"]],
    ["instance: replaced", { ...olds, instanceId: VM2 }, true, ["instanceId"], []],
    ["timeouts only: no API call", { ...olds, timeouts: { update: "1m" } }, true, [], []],
  ])("%s", (_what, news, changes, replaces, api) => {
    expect(diffFirewallRule(olds, news)).toEqual({ changes, replaces, deleteBeforeReplace: false });
    expect(changedApiProperties(olds, news)).toEqual(api);
  });

  it("an absent description equals the empty text the API may echo", () => {
    const noDesc = { ...base };
    expect(diffFirewallRule({ ...noDesc, description: "" }, noDesc).changes).toBe(false);
  });

  it("no source equals the any-source network the provider sends to remove one", () => {
    expect(diffFirewallRule({ ...base, sourceIp: "0.0.0.0/0" }, { ...base }).changes).toBe(false);
  });
});
