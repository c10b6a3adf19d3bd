import { checkInputs, UNKNOWN_VALUE } from "../common/check";
import { attachmentId, inputsSchema, outputsSchema, parseAttachmentId, type VswitchAttachmentOutputs } from "./inputs";
import { diffVswitchAttachment } from "./diff";
import { inputsFromState, resolveAttachment, vswitchAttachmentOutputs, type VswitchRecord } from "./model";

const VM = "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab";
const VM2 = "7f1c2d3e-4b5a-4c6d-8e7f-0123456789ab";
const NET = "0a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d";
const NET2 = "1a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d";

describe("VswitchAttachment check", () => {
  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ["missing instanceId", { vswitchId: NET }, "instanceId", /instanceId is required/],
    ["missing vswitchId", { instanceId: VM }, "vswitchId", /vswitchId is required/],
    ["instanceId a hostname", { instanceId: "web-1", vswitchId: NET }, "instanceId", /uuid/],
    ["vswitchId a network name", { instanceId: VM, vswitchId: "backend" }, "vswitchId", /uuid .*not its name \(getVswitches lists them\)/],
    ["vswitchId a number (the vswitch tag)", { instanceId: VM, vswitchId: 12 }, "vswitchId", /uuid string/],
    ["adoptId a single uuid", { instanceId: VM, vswitchId: NET, adoptId: VM }, "adoptId", /<instance uuid>\/<vswitch uuid>/],
    ["adoptId of another attachment", { instanceId: VM, vswitchId: NET, adoptId: `${VM}/${NET2}` }, "adoptId", /same attachment/],
    ["timeouts.delete zero", { instanceId: VM, vswitchId: NET, timeouts: { delete: "0s" } }, "timeouts.delete", /positive duration/],
    ["timeouts a string", { instanceId: VM, vswitchId: NET, timeouts: "10m" }, "timeouts", /must be an object such as/],
    ["a typo'd property", { instanceId: VM, vswitchID: NET }, "vswitchID", /unknown property vswitchID.*did you mean vswitchId/],
  ])("%s", (_case, news, property, reason) => {
    const result = checkInputs(inputsSchema, news);
    expect(result.inputs).toBeUndefined();
    expect(result.failures).toEqual(expect.arrayContaining([{ property, reason: expect.stringMatching(reason) }]));
  });

  it("normalizes uuids to lower case, adoptId included", () => {
    const result = checkInputs(inputsSchema, { instanceId: VM.toUpperCase(), vswitchId: NET, adoptId: `${VM}/${NET}`.toUpperCase() });
    expect(result.inputs).toEqual({ instanceId: VM, vswitchId: NET, adoptId: `${VM}/${NET}` });
  });

  it("does not compare adoptId with an instanceId unknown during preview", () => {
    const result = checkInputs(inputsSchema, { instanceId: UNKNOWN_VALUE, vswitchId: NET, adoptId: `${VM}/${NET}` });
    expect(result.failures).toBeUndefined();
  });

  it("builds and splits ids", () => {
    expect(attachmentId(VM, NET)).toBe(`${VM}/${NET}`);
    expect(parseAttachmentId(`${VM}/${NET}`)).toEqual({ instanceId: VM, vswitchId: NET });
    expect(parseAttachmentId(VM)).toBeUndefined();
  });
});

const state = (over: Partial<VswitchAttachmentOutputs> = {}): VswitchAttachmentOutputs => ({
  instanceId: VM,
  vswitchId: NET,
  vswitchName: "backend",
  ...over,
});

describe("VswitchAttachment diff", () => {
  it.each<[string, Record<string, unknown>, { changes: boolean; replaces: string[] }]>([
    ["nothing changed", { instanceId: VM, vswitchId: NET }, { changes: false, replaces: [] }],
    ["another network: replace", { instanceId: VM, vswitchId: NET2 }, { changes: true, replaces: ["vswitchId"] }],
    ["another instance: replace", { instanceId: VM2, vswitchId: NET }, { changes: true, replaces: ["instanceId"] }],
    ["both: replace", { instanceId: VM2, vswitchId: NET2 }, { changes: true, replaces: ["instanceId", "vswitchId"] }],
    ["network unknown in preview: replace", { instanceId: VM, vswitchId: UNKNOWN_VALUE }, { changes: true, replaces: ["vswitchId"] }],
    ["timeouts changed: recorded in place", { instanceId: VM, vswitchId: NET, timeouts: { create: "3m" } }, { changes: true, replaces: [] }],
    ["adoptId added later: recorded in place (no write), as in every resource", { instanceId: VM, vswitchId: NET, adoptId: `${VM}/${NET}` }, { changes: true, replaces: [] }],
  ])("%s", (_case, news, expected) => {
    const result = diffVswitchAttachment(state(), news as never);
    expect({ changes: result.changes, replaces: result.replaces }).toEqual(expected);
  });
  it("replaces delete-first: an instance is on one private network at a time", () => {
    expect(diffVswitchAttachment(state(), { instanceId: VM, vswitchId: NET2 }).deleteBeforeReplace).toBe(true);
  });
});

describe("VswitchAttachment model", () => {
  const vswitches: VswitchRecord[] = [
    { uuid: NET, name: "backend", network_ip: "10.10.0.0/24", location: { id: null, name: "Jakarta" } },
    { uuid: NET2, name: "db", network_ip: null, location: "Jakarta" },
  ];
  it.each<[string, string | null, string, string]>([
    ["the detail names our network", "backend", NET, "attached"],
    ["the detail names our network by uuid", NET.toUpperCase(), NET, "attached"],
    ["no private network ('-' normalized to null)", null, NET, "detached"],
    ["another network", "db", NET, "elsewhere"],
    ["the detail shows the VM's private address, in our network", "10.10.0.17", NET, "attached"],
    ["the detail shows a private address outside our network", "10.10.1.17", NET, "elsewhere"],
    ["our vswitch was deleted", null, "2a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d", "vswitch-gone"],
  ])("%s -> %s", (_case, privateNetwork, vswitchId, kind) => {
    expect(resolveAttachment(privateNetwork, vswitchId, vswitches).kind).toBe(kind);
  });
  it("maps the vswitch to outputs", () => {
    const outputs = vswitchAttachmentOutputs({ instanceId: VM, vswitchId: NET }, vswitches[0]!);
    expect(outputs).toEqual({ instanceId: VM, vswitchId: NET, vswitchName: "backend", networkIp: "10.10.0.0/24", location: "Jakarta" });
    expect(outputsSchema.safeParse(outputs).success).toBe(true);
  });
  it("carries the user's inputs from state", () => {
    expect(inputsFromState(state({ timeouts: { delete: "2m" } }))).toEqual({ instanceId: VM, vswitchId: NET, timeouts: { delete: "2m" } });
  });
  it("carries adoptId from state, and leaves out what was not set (a refresh shows no spurious change)", () => {
    expect(inputsFromState(state({ adoptId: `${VM}/${NET}` }))).toEqual({ instanceId: VM, vswitchId: NET, adoptId: `${VM}/${NET}` });
    expect(Object.keys(inputsFromState(state()))).toEqual(["instanceId", "vswitchId"]);
  });
  it("carries adoptId and timeouts into outputs only when set, and leaves out a location the list does not name", () => {
    const bare = vswitchAttachmentOutputs({ instanceId: VM, vswitchId: NET2 }, { uuid: NET2, name: "db", location: null });
    expect(Object.keys(bare)).toEqual(["instanceId", "vswitchId", "vswitchName"]);
    const full = vswitchAttachmentOutputs({ instanceId: VM, vswitchId: NET2, adoptId: `${VM}/${NET2}`, timeouts: { delete: "1m" } }, vswitches[1]!);
    expect(full).toEqual({ instanceId: VM, vswitchId: NET2, vswitchName: "db", location: "Jakarta", adoptId: `${VM}/${NET2}`, timeouts: { delete: "1m" } });
  });
  it("a private address another network of the location also holds is not taken as ours; a network's text never is (review)", () => {
    const same: VswitchRecord[] = [
      { uuid: NET, name: "app", network_ip: "10.10.3.0/24", location: "Jakarta" },
      { uuid: NET2, name: "db", network_ip: "10.10.3.0/24", location: "Jakarta" },
    ];
    expect(resolveAttachment("10.10.3.7", NET, same).kind).toBe("elsewhere");
    expect(resolveAttachment("db (10.10.3.0/24)", NET, same).kind).toBe("elsewhere");
    expect(resolveAttachment("10.10.3.7", NET, [same[0]!, { ...same[1]!, location: "Surabaya" }]).kind).toBe("attached");
  });
  it("a private address on our network whose range the host does not give is ours when no other network of the location can hold it", () => {
    // (the list's NET2 "db" has network_ip null)
    expect(resolveAttachment("10.10.1.17", NET2, vswitches).kind).toBe("attached");
    expect(resolveAttachment("10.10.0.17", NET2, vswitches).kind).toBe("elsewhere"); // NET's range holds it
    const third: VswitchRecord = { uuid: "3a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d", name: "cache", network_ip: null, location: null };
    expect(resolveAttachment("10.10.1.17", NET2, [...vswitches, third]).kind).toBe("elsewhere"); // two unknown: not told
    expect(resolveAttachment("10.10.1.17", NET2, [...vswitches, { ...third, location: "Surabaya" }]).kind).toBe("attached");
  });
  it("reads a network named with blanks around it, by the host or in the list, as ours", () => {
    expect(resolveAttachment(" backend ", NET, vswitches).kind).toBe("attached");
    expect(resolveAttachment("db", NET2, [{ uuid: NET2, name: "db " }]).kind).toBe("attached");
  });
});
