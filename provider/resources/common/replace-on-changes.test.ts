import type * as pulumi from "@pulumi/pulumi";
import { REPLACE_ON_CHANGES_KEY, replacesRequestedByOption, withReplaceOnChanges } from "./replace-on-changes";

const inner: pulumi.dynamic.ResourceProvider = {
  check: async (_olds, news) => ({ inputs: { ...news } }),
  diff: async () => ({ changes: true, replaces: [] }),
  create: async () => ({ id: "x", outs: {} }),
};
const wrapped = withReplaceOnChanges("Instance", inner);

describe("replaceOnChanges applied by the provider", () => {
  it("reports a listed property that changed as a replace", async () => {
    const news = (await wrapped.check!({}, { hostname: "b", cpu: 2, [REPLACE_ON_CHANGES_KEY]: ["hostname"] })).inputs;
    expect(await wrapped.diff!("id", { hostname: "a", cpu: 2 }, news)).toMatchObject({ changes: true, replaces: ["hostname"] });
  });
  it("leaves unlisted changes in place, and listed unchanged ones alone", async () => {
    expect(replacesRequestedByOption({ hostname: "a", cpu: 1 }, { hostname: "a", cpu: 2, [REPLACE_ON_CHANGES_KEY]: ["hostname"] })).toEqual([]);
  });
  it("compares nested paths and '*' (any input)", () => {
    const olds = { deleteOptions: { removePublicIp: true }, cpu: 1 };
    expect(replacesRequestedByOption(olds, { deleteOptions: { removePublicIp: false }, cpu: 1, [REPLACE_ON_CHANGES_KEY]: ["deleteOptions.removePublicIp"] })).toEqual(["deleteOptions"]);
    expect(replacesRequestedByOption(olds, { deleteOptions: { removePublicIp: true }, cpu: 2, [REPLACE_ON_CHANGES_KEY]: ["*"] })).toEqual(["cpu"]);
  });
  it("compares a nested path whose parent the state lacks or holds as null (a property added since) as changed", () => {
    const news = { deleteOptions: { removePublicIp: false }, [REPLACE_ON_CHANGES_KEY]: ["deleteOptions.removePublicIp"] };
    expect(replacesRequestedByOption({}, news)).toEqual(["deleteOptions"]);
    expect(replacesRequestedByOption({ deleteOptions: null }, news)).toEqual(["deleteOptions"]);
  });
  it("skips a path that is not a string (a state written by hand) and still honours the others", () => {
    expect(replacesRequestedByOption({ hostname: "a" }, { hostname: "b", [REPLACE_ON_CHANGES_KEY]: [5, "hostname"] })).toEqual(["hostname"]);
  });
  it("asks nothing without the option, and never compares a listed property the program leaves unset", () => {
    expect(replacesRequestedByOption({ hostname: "a" }, { hostname: "b" })).toEqual([]);
    expect(replacesRequestedByOption({ hostname: "a", rdns: "x.example.com" }, { hostname: "a", [REPLACE_ON_CHANGES_KEY]: ["rdns"] })).toEqual([]);
  });
  it("stores nothing for an empty list (no option in the state, so no diff when it is dropped)", async () => {
    expect((await wrapped.check!({}, { hostname: "a", [REPLACE_ON_CHANGES_KEY]: [] })).inputs).toEqual({ hostname: "a" });
  });
  it("adds the replace when the resource's own diff names no replaces at all", async () => {
    const noReplaces: pulumi.dynamic.ResourceProvider = { ...inner, diff: async () => ({ changes: false }) };
    const bare = withReplaceOnChanges("Instance", noReplaces);
    expect(await bare.diff!("id", { hostname: "a" }, { hostname: "b", [REPLACE_ON_CHANGES_KEY]: ["hostname"] })).toEqual({ changes: true, replaces: ["hostname"] });
  });
  it("refuses a malformed value, naming replaceOnChanges", async () => {
    const r = await wrapped.check!({}, { hostname: "a", [REPLACE_ON_CHANGES_KEY]: "hostname" });
    expect(r.failures).toEqual([expect.objectContaining({ property: "replaceOnChanges" })]);
  });
  it("adds nothing when the listed property did not change, and never names a replace twice", async () => {
    const quiet: pulumi.dynamic.ResourceProvider = { ...inner, diff: async () => ({ changes: false }) };
    expect(await withReplaceOnChanges("Instance", quiet).diff!("id", { hostname: "a" }, { hostname: "a", [REPLACE_ON_CHANGES_KEY]: ["hostname"] }))
      .toEqual({ changes: false });
    const already: pulumi.dynamic.ResourceProvider = { ...inner, diff: async () => ({ changes: true, replaces: ["hostname"] }) };
    expect(await withReplaceOnChanges("Instance", already).diff!("id", { hostname: "a" }, { hostname: "b", [REPLACE_ON_CHANGES_KEY]: ["hostname"] }))
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
  it("never replaces an adopted object", async () => {
    const news = { adoptId: "u", hostname: "b", [REPLACE_ON_CHANGES_KEY]: ["hostname"] };
    await expect(wrapped.diff!("id", { adoptId: "u", hostname: "a" }, news)).rejects.toThrow(
      "Instance id was adopted (adoptId) and replaceOnChanges asks to replace it for hostname; an adopted object is never replaced by " +
        "Pulumi (the replacement would adopt the same one, then delete it). Remove adoptId to replace it deliberately, or remove those " +
        "properties from replaceOnChanges.",
    );
  });
});
