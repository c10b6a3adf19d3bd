import type * as pulumi from "@pulumi/pulumi";
import { changedKeysOf, REPLACE_ON_CHANGES_KEY, replacesRequestedByOption, withReplaceOnChanges, type ResourceDiff } from "./replace-on-changes";

/** A resource whose diff compares top-level inputs as they are, and names the ones that differ. */
function rawDiff(olds: Record<string, unknown>, news: Record<string, unknown>): ResourceDiff {
  const changedKeys = Object.keys(news).filter((k) => !k.startsWith("__") && JSON.stringify(olds[k] ?? null) !== JSON.stringify(news[k] ?? null));
  return { changes: changedKeys.length > 0, replaces: [], changedKeys };
}
const inner: pulumi.dynamic.ResourceProvider = {
  check: async (_olds, news) => ({ inputs: { ...news } }),
  diff: async (_id, olds, news) => rawDiff(olds, news),
  create: async () => ({ id: "x", outs: {} }),
};
const wrapped = withReplaceOnChanges("Instance", inner);
/** A resource with a diff of its own: `diff` answers whatever the test says. */
function withDiff(diff: pulumi.dynamic.DiffResult | ResourceDiff): pulumi.dynamic.ResourceProvider {
  const provider: pulumi.dynamic.ResourceProvider = { ...inner, diff: async () => diff };
  return withReplaceOnChanges("Instance", provider);
}
/** The program's top-level keys, all taken as changed by the resource: the path rules alone decide. */
const every = (news: Record<string, unknown>): string[] => Object.keys(news);

describe("replaceOnChanges applied by the provider", () => {
  it("reports a listed property that changed as a replace", async () => {
    const news = (await wrapped.check!({}, { hostname: "b", cpu: 2, [REPLACE_ON_CHANGES_KEY]: ["hostname"] })).inputs;
    expect(await wrapped.diff!("id", { hostname: "a", cpu: 2 }, news)).toEqual({ changes: true, replaces: ["hostname"] });
  });
  it("leaves unlisted changes in place, and listed unchanged ones alone", () => {
    const news = { hostname: "a", cpu: 2, [REPLACE_ON_CHANGES_KEY]: ["hostname"] };
    expect(replacesRequestedByOption({ hostname: "a", cpu: 1 }, news, every(news))).toEqual([]);
  });
  it("compares nested paths and '*' (any input)", () => {
    const olds = { deleteOptions: { removePublicIp: true }, cpu: 1 };
    const nested = { deleteOptions: { removePublicIp: false }, cpu: 1, [REPLACE_ON_CHANGES_KEY]: ["deleteOptions.removePublicIp"] };
    expect(replacesRequestedByOption(olds, nested, every(nested))).toEqual(["deleteOptions"]);
    const any = { deleteOptions: { removePublicIp: true }, cpu: 2, [REPLACE_ON_CHANGES_KEY]: ["*"] };
    expect(replacesRequestedByOption(olds, any, every(any))).toEqual(["cpu"]);
  });
  it("compares a nested path whose parent the state lacks or holds as null (a property added since) as changed", () => {
    const news = { deleteOptions: { removePublicIp: false }, [REPLACE_ON_CHANGES_KEY]: ["deleteOptions.removePublicIp"] };
    expect(replacesRequestedByOption({}, news, every(news))).toEqual(["deleteOptions"]);
    expect(replacesRequestedByOption({ deleteOptions: null }, news, every(news))).toEqual(["deleteOptions"]);
  });
  it("skips a path that is not a string (a state written by hand) and still honours the others", () => {
    const news = { hostname: "b", [REPLACE_ON_CHANGES_KEY]: [5, "hostname"] };
    expect(replacesRequestedByOption({ hostname: "a" }, news, every(news))).toEqual(["hostname"]);
  });
  it("asks nothing without the option, and never compares a listed property the program leaves unset", () => {
    expect(replacesRequestedByOption({ hostname: "a" }, { hostname: "b" }, ["hostname"])).toEqual([]);
    const news = { hostname: "a", [REPLACE_ON_CHANGES_KEY]: ["rdns"] };
    expect(replacesRequestedByOption({ hostname: "a", rdns: "x.example.com" }, news, ["rdns"])).toEqual([]);
  });
  it("stores nothing for an empty list (no option in the state, so no diff when it is dropped)", async () => {
    expect((await wrapped.check!({}, { hostname: "a", [REPLACE_ON_CHANGES_KEY]: [] })).inputs).toEqual({ hostname: "a" });
  });
  it("adds the replace when the resource's own diff names no replaces at all", async () => {
    const bare = withDiff({ changes: true, changedKeys: ["hostname"] });
    expect(await bare.diff!("id", { hostname: "a" }, { hostname: "b", [REPLACE_ON_CHANGES_KEY]: ["hostname"] })).toEqual({ changes: true, replaces: ["hostname"] });
  });
  it("refuses a malformed value, naming replaceOnChanges", async () => {
    const r = await wrapped.check!({}, { hostname: "a", [REPLACE_ON_CHANGES_KEY]: "hostname" });
    expect(r.failures).toEqual([expect.objectContaining({ property: "replaceOnChanges" })]);
  });
  it("adds nothing when the listed property did not change, and never names a replace twice", async () => {
    expect(await withDiff({ changes: false, changedKeys: [] }).diff!("id", { hostname: "a" }, { hostname: "a", [REPLACE_ON_CHANGES_KEY]: ["hostname"] }))
      .toEqual({ changes: false });
    const already = withDiff({ changes: true, replaces: ["hostname"], changedKeys: ["hostname"] });
    expect(await already.diff!("id", { hostname: "a" }, { hostname: "b", [REPLACE_ON_CHANGES_KEY]: ["hostname"] }))
      .toEqual({ changes: true, replaces: ["hostname"] });
  });
  it("keeps the check's own failures and adds the malformed option's", async () => {
    const failing: pulumi.dynamic.ResourceProvider = { ...inner, check: async () => ({ failures: [{ property: "cpu", reason: "cpu must be a number" }] }) };
    expect(await withReplaceOnChanges("Instance", failing).check!({}, { cpu: "x", [REPLACE_ON_CHANGES_KEY]: [1] })).toEqual({
      failures: [
        { property: "cpu", reason: "cpu must be a number" },
        { property: "replaceOnChanges", reason: 'replaceOnChanges must be a list of property paths, e.g. ["hostname"]' },
      ],
    });
  });
  it("replaces an object adopted once but no longer declared with adoptId, and one adopted only now", async () => {
    const news = { hostname: "b", [REPLACE_ON_CHANGES_KEY]: ["hostname"] };
    expect((await wrapped.diff!("id", { adoptId: "u", hostname: "a" }, news)).replaces).toEqual(["hostname"]);
    expect((await wrapped.diff!("id", { hostname: "a" }, { ...news, adoptId: "u" })).replaces).toEqual(["hostname"]);
  });
  it("an adoptId naming another object than the state's is no adoption of it: replaced (the replacement adopts the other)", async () => {
    const news = { adoptId: "other", hostname: "b", [REPLACE_ON_CHANGES_KEY]: ["hostname"] };
    // also when a failed run recorded that adoptId in the state (soak: a snapshot in Error was stuck at every up)
    for (const olds of [{ hostname: "a" }, { adoptId: "other", hostname: "a" }])
      expect((await wrapped.diff!("id", olds, news)).replaces).toEqual(["hostname"]);
  });
  it("never replaces an adopted object", async () => {
    const news = { adoptId: "id", hostname: "b", [REPLACE_ON_CHANGES_KEY]: ["hostname"] };
    await expect(wrapped.diff!("id", { adoptId: "id", hostname: "a" }, news)).rejects.toThrow(
      "Instance id was adopted (adoptId) and replaceOnChanges asks to replace it for hostname; an adopted object is never replaced by " +
        "Pulumi (the replacement would adopt the same one, then delete it). Remove adoptId to replace it deliberately, or remove those " +
        "properties from replaceOnChanges.",
    );
  });
  it("at preview, an adopted object whose replace-forcing value is still unknown is neither refused nor replaced (the up decides)", async () => {
    const unknown = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
    const own = withDiff({ changes: true, replaces: ["locationId"], changedKeys: ["locationId", "password"] });
    expect(await own.diff!("id", { adoptId: "id", locationId: 1 }, { adoptId: "id", locationId: unknown, password: "p" })).toEqual({ changes: true, replaces: [] });
    const news = { adoptId: "id", hostname: unknown, [REPLACE_ON_CHANGES_KEY]: ["hostname"] };
    expect(await withDiff({ changes: true, replaces: [], changedKeys: ["hostname"] }).diff!("id", { adoptId: "id", hostname: "a" }, news)).toEqual({ changes: true, replaces: [] });
    // a known one is still refused
    await expect(own.diff!("id", { adoptId: "id", locationId: 1 }, { adoptId: "id", locationId: 2 })).rejects.toThrow("Instance id was adopted (adoptId) and locationId");
  });
  it("an adopted object's replace the resource says stands while unknown (a new parent VM) is a replace, not refused", async () => {
    const unknown = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
    // (PublicIp: asked whether it must go before its VM's delete-before-replace, "no" let the VM release the address)
    const own = withDiff({ changes: true, replaces: ["instanceId", "rdns"], changedKeys: ["instanceId", "rdns"], replacesWhileUnknown: ["instanceId"] });
    expect(await own.diff!("ip", { adoptId: "ip", instanceId: "vm", rdns: "a" }, { adoptId: "ip", instanceId: unknown, rdns: unknown })).toEqual({
      changes: true,
      replaces: ["instanceId"],
    });
    // known, it is refused as before
    await expect(own.diff!("ip", { adoptId: "ip", instanceId: "vm" }, { adoptId: "ip", instanceId: "vm2", rdns: unknown })).rejects.toThrow(
      "Instance ip was adopted (adoptId) and instanceId",
    );
  });
});

// The engine applies replaceOnChanges to the keys a provider's diff reports as changed, so each resource's own
// comparison decides: a value the resource calls equal (a reordered list, another spelling of the same rule)
// must never replace it, whatever the raw values look like.
describe("replaceOnChanges acts only on what the resource's diff found changed", () => {
  const olds = { sshKeys: ["a", "b"], cpu: 1 };
  const reordered = { sshKeys: ["b", "a"], cpu: 1 };

  it("replaces nothing for a listed property the resource calls unchanged, though its raw value differs", async () => {
    const quiet = withDiff({ changes: false, replaces: [], changedKeys: [] });
    expect(await quiet.diff!("id", olds, { ...reordered, [REPLACE_ON_CHANGES_KEY]: ["sshKeys"] })).toEqual({ changes: false, replaces: [] });
    expect(await quiet.diff!("id", olds, { ...reordered, [REPLACE_ON_CHANGES_KEY]: ["*"] })).toEqual({ changes: false, replaces: [] });
  });
  it("nor when another property changed: that one stays an in-place update", async () => {
    const cpuOnly = withDiff({ changes: true, replaces: [], changedKeys: ["cpu"] });
    expect(await cpuOnly.diff!("id", olds, { ...reordered, cpu: 2, [REPLACE_ON_CHANGES_KEY]: ["sshKeys"] })).toEqual({ changes: true, replaces: [] });
    expect(await cpuOnly.diff!("id", olds, { ...reordered, cpu: 2, [REPLACE_ON_CHANGES_KEY]: ["*"] })).toEqual({ changes: true, replaces: ["cpu"] });
  });
  it("replaces for a nested path only when its own value changed, not for a sibling's change", () => {
    const state = { deleteOptions: { removePublicIp: true, removeBlockStorage: false } };
    const news = { deleteOptions: { removePublicIp: true, removeBlockStorage: true }, [REPLACE_ON_CHANGES_KEY]: ["deleteOptions.removePublicIp"] };
    expect(replacesRequestedByOption(state, news, ["deleteOptions"])).toEqual([]);
  });
  it("adds nothing to a diff that reports no changes (the engine: only a DiffSome gets replaces), whatever keys it names", async () => {
    const unsure = withDiff({ changes: false, replaces: [], changedKeys: ["sshKeys"] });
    expect(await unsure.diff!("id", olds, { sshKeys: ["c"], cpu: 1, [REPLACE_ON_CHANGES_KEY]: ["sshKeys"] })).toEqual({ changes: false, replaces: [] });
  });
  it("adds nothing to a diff that names no changed keys (as the engine for a provider that sends none)", async () => {
    const unnamed = withDiff({ changes: true, replaces: [] });
    expect(await unnamed.diff!("id", olds, { sshKeys: ["c"], cpu: 1, [REPLACE_ON_CHANGES_KEY]: ["sshKeys"] })).toEqual({ changes: true, replaces: [] });
    expect(changedKeysOf({ changes: true })).toEqual([]);
    expect(changedKeysOf({ changes: true, changedKeys: ["a", 5] } as unknown as ResourceDiff)).toEqual(["a"]);
  });
  it("hands the host a plain DiffResult: changedKeys is the provider's own business", async () => {
    const result = await wrapped.diff!("id", { hostname: "a" }, { hostname: "b" });
    expect(result).toEqual({ changes: true, replaces: [] });
    expect(result).not.toHaveProperty("changedKeys");
  });
});
