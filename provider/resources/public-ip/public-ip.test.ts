import { checkInputs, UNKNOWN_VALUE } from "../common/check";
import { inputsSchema, outputsSchema, type PublicIpOutputs } from "./inputs";
import { diffPublicIp, planPublicIpUpdate } from "./diff";
import { currentAddress, detachedOutputs, publicIpOutputs, settingsFromState } from "./model";

const VM = "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab";
const VM2 = "7f1c2d3e-4b5a-4c6d-8e7f-0123456789ab";
const IP = "0a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d";
const IP2 = "1a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d";

describe("PublicIp check", () => {
  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ["missing instanceId", {}, "instanceId", /instanceId is required/],
    ["instanceId not a uuid", { instanceId: "web-1" }, "instanceId", /uuid/],
    ["instanceId a number", { instanceId: 42 }, "instanceId", /uuid string/],
    ["publicNetworkId not a uuid", { instanceId: VM, publicNetworkId: "203.0.113.10" }, "publicNetworkId", /uuid of a reserved public address, not the address itself/],
    ["rdns a single label", { instanceId: VM, rdns: "mail" }, "rdns", /fully qualified/],
    ["rdns with an underscore", { instanceId: VM, rdns: "mail_1.example.com" }, "rdns", /fully qualified/],
    ["rdns label ending in a hyphen", { instanceId: VM, rdns: "mail-.example.com" }, "rdns", /fully qualified/],
    ["rdns blank", { instanceId: VM, rdns: "" }, "rdns", /remove the property/],
    ["adoptId not a uuid", { instanceId: VM, adoptId: "1.2.3.4" }, "adoptId", /not the address itself \(getInstance: publicIp\.ipId\)/],
    ["adoptId and publicNetworkId disagree", { instanceId: VM, adoptId: IP, publicNetworkId: IP2 }, "adoptId", /different addresses/],
    ["timeouts.create not a duration", { instanceId: VM, timeouts: { create: "ten minutes" } }, "timeouts.create", /duration/],
    ["timeouts with an unknown key", { instanceId: VM, timeouts: { read: "5m" } }, "timeouts.read", /timeouts only takes create, update, delete/],
    ["a typo'd property", { instanceId: VM, rDNS: "a.example.com" }, "rDNS", /unknown property rDNS.*did you mean rdns/],
  ])("%s", (_case, news, property, reason) => {
    const result = checkInputs(inputsSchema, news);
    expect(result.inputs).toBeUndefined();
    expect(result.failures).toEqual(expect.arrayContaining([{ property, reason: expect.stringMatching(reason) }]));
  });

  it("reports every bad property at once", () => {
    const result = checkInputs(inputsSchema, { instanceId: "x", rdns: "bad", timeouts: { update: "-1s" } });
    expect(result.failures?.map((f) => f.property).sort()).toEqual(["instanceId", "rdns", "timeouts.update"]);
  });

  it("takes adoptId and publicNetworkId naming the same address; names both otherwise", () => {
    expect(checkInputs(inputsSchema, { instanceId: VM, adoptId: IP, publicNetworkId: IP }).failures).toBeUndefined();
    expect(checkInputs(inputsSchema, { instanceId: VM, adoptId: IP, publicNetworkId: IP2 }).failures).toEqual([{
      property: "adoptId",
      reason: "adoptId and publicNetworkId name different addresses: adopt the address the instance has (adoptId) " +
        "or ask for a reserved one (publicNetworkId), or give both the same uuid",
    }]);
  });
  it("takes a name of two labels and one of 253 characters; refuses 254", () => {
    const label = "a".repeat(63);
    const longest = `${label}.${label}.${label}.${"b".repeat(61)}`; // 63*3 + 61 + 3 dots = 253
    expect(longest).toHaveLength(253);
    expect(checkInputs(inputsSchema, { instanceId: VM, rdns: "example.com" }).failures).toBeUndefined();
    expect(checkInputs(inputsSchema, { instanceId: VM, rdns: longest }).failures).toBeUndefined();
    expect(checkInputs(inputsSchema, { instanceId: VM, rdns: `${longest}c` }).failures?.map((f) => f.property)).toEqual(["rdns"]);
  });
  it("normalizes: uuids lower-cased, rdns lower-cased without the trailing dot", () => {
    const result = checkInputs(inputsSchema, { instanceId: VM.toUpperCase(), rdns: " Mail.Example.COM. ", publicNetworkId: IP });
    expect(result.inputs).toEqual({ instanceId: VM, rdns: "mail.example.com", publicNetworkId: IP });
  });

  it("passes an instanceId unknown during preview through", () => {
    expect(checkInputs(inputsSchema, { instanceId: UNKNOWN_VALUE }).inputs).toEqual({ instanceId: UNKNOWN_VALUE });
  });
});

const state = (over: Partial<PublicIpOutputs> = {}): PublicIpOutputs => ({
  instanceId: VM,
  publicIpId: IP,
  ipAddress: "203.0.113.10",
  ...over,
});

describe("PublicIp diff", () => {
  it.each<[string, PublicIpOutputs, Record<string, unknown>, { changes: boolean; replaces: string[] }]>([
    ["nothing changed", state(), { instanceId: VM }, { changes: false, replaces: [] }],
    ["rdns unset while the address has one (not managed)", state({ rdns: "a.example.com" }), { instanceId: VM }, { changes: false, replaces: [] }],
    ["rdns set to what it is", state({ rdns: "a.example.com" }), { instanceId: VM, rdns: "a.example.com" }, { changes: false, replaces: [] }],
    ["rdns changed: in place", state({ rdns: "a.example.com" }), { instanceId: VM, rdns: "b.example.com" }, { changes: true, replaces: [] }],
    ["rdns drifted away (cleared out of band): in place", state(), { instanceId: VM, rdns: "a.example.com" }, { changes: true, replaces: [] }],
    ["another instance: replace", state(), { instanceId: VM2 }, { changes: true, replaces: ["instanceId"] }],
    ["instance unknown in preview: replace", state(), { instanceId: UNKNOWN_VALUE }, { changes: true, replaces: ["instanceId"] }],
    ["another reserved address: replace", state({ publicNetworkId: IP }), { instanceId: VM, publicNetworkId: IP2 }, { changes: true, replaces: ["publicNetworkId"] }],
    ["pinning the address it already holds: no replace", state(), { instanceId: VM, publicNetworkId: IP }, { changes: true, replaces: [] }],
    ["pin removed: the address stays", state({ publicNetworkId: IP }), { instanceId: VM }, { changes: true, replaces: [] }],
    ["pinned to the address it holds, unchanged: nothing to do", state({ publicNetworkId: IP }), { instanceId: VM, publicNetworkId: IP }, { changes: false, replaces: [] }],
    ["pinned address unknown in preview: replace", state({ publicNetworkId: IP }), { instanceId: VM, publicNetworkId: UNKNOWN_VALUE }, { changes: true, replaces: ["publicNetworkId"] }],
    ["timeouts changed: recorded, no replace", state(), { instanceId: VM, timeouts: { create: "5m" } }, { changes: true, replaces: [] }],
    ["adoptId added after create: recorded in place (no write), as in every resource", state(), { instanceId: VM, adoptId: IP }, { changes: true, replaces: [] }],
    ["detached (taken off out of band): in place, the update assigns it back", state({ detached: true }), { instanceId: VM }, { changes: true, replaces: [] }],
    ["detached and pinned to it: in place, not a replace", state({ detached: true, publicNetworkId: IP }), { instanceId: VM, publicNetworkId: IP }, { changes: true, replaces: [] }],
  ])("%s", (_case, olds, news, expected) => {
    const result = diffPublicIp(olds, news as never);
    expect({ changes: result.changes, replaces: result.replaces }).toEqual(expected);
  });

  it("replaces create-before-delete (the old delete leaves a swapped address alone)", () => {
    expect(diffPublicIp(state(), { instanceId: VM2 }).deleteBeforeReplace).toBe(false);
  });

  it("plans an rdns update only when rdns is managed and differs", () => {
    expect(planPublicIpUpdate(state({ rdns: "a.example.com" }), { instanceId: VM, rdns: "b.example.com" })).toEqual([
      { kind: "rdns", rdns: "b.example.com" },
    ]);
    expect(planPublicIpUpdate(state({ rdns: "a.example.com" }), { instanceId: VM })).toEqual([]);
    expect(planPublicIpUpdate(state(), { instanceId: VM, timeouts: { update: "1m" } })).toEqual([]);
  });
});

describe("PublicIp model", () => {
  const detail = { public_ip: { ip_id: IP, ip_address: "203.0.113.10" }, rdns: "mail.example.com" };
  it("maps the instance detail's address to outputs", () => {
    const outputs = publicIpOutputs(IP, { instanceId: VM, publicNetworkId: IP, timeouts: { create: "5m" } }, detail);
    expect(outputs).toEqual({
      instanceId: VM,
      publicNetworkId: IP,
      publicIpId: IP,
      ipAddress: "203.0.113.10",
      rdns: "mail.example.com",
      timeouts: { create: "5m" },
    });
    expect(outputsSchema.safeParse(outputs).success).toBe(true);
  });
  it("records an address the instance no longer holds as detached: what the state knew, without rdns", () => {
    const outputs = detachedOutputs(IP, { instanceId: VM, publicIpId: IP, ipAddress: "203.0.113.10", rdns: "mail.example.com", timeouts: { create: "5m" } });
    expect(outputs).toEqual({ instanceId: VM, publicIpId: IP, ipAddress: "203.0.113.10", timeouts: { create: "5m" }, detached: true });
    expect(outputsSchema.safeParse(outputs).success).toBe(true);
  });
  it("is not held when the instance holds another address or none", () => {
    expect(publicIpOutputs(IP2, { instanceId: VM }, detail)).toBeUndefined();
    expect(publicIpOutputs(IP, { instanceId: VM }, { public_ip: null, rdns: null })).toBeUndefined();
    expect(currentAddress({ public_ip: { ip_id: null, ip_address: null }, rdns: null })).toBeUndefined();
  });
  it("leaves rdns out when the address has none", () => {
    expect(publicIpOutputs(IP, { instanceId: VM }, { ...detail, rdns: null })).not.toHaveProperty("rdns");
  });
  it("takes from state the settings read needs, but not rdns (the output is what the address has, not what was asked)", () => {
    expect(settingsFromState(state({ rdns: "a.example.com", publicNetworkId: IP, timeouts: { delete: "1m" } }))).toEqual({
      instanceId: VM,
      publicNetworkId: IP,
      timeouts: { delete: "1m" },
    });
  });
});
